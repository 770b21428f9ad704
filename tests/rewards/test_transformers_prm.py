"""TransformersPRM on tiny random models built offline, against a slow step-by-step reference.

The reference below formats each prefix of a trace by hand (as the published model cards do),
runs one forward pass per prefix and reads the score at the prefix's last separator or tag. The
library reads the whole trace in one pass; causal attention makes the two agree.
"""

import pytest
import tokenizers
import torch
import transformers

from llenvs.core import SegmentedEnvironment
from llenvs.rewards import (
    MathShepherd,
    PRMRewardFunction,
    QwenMathPRM,
    get_prm,
)
from llenvs.rewards.prm import TransformersPRM
from tests.floats import close

SYSTEM = QwenMathPRM().system_prompt
TEXT = """
Janet has 16 eggs . She eats 3 and bakes with 4 . So 16 - 3 - 4 = 9 eggs are left .
She sells them at 2 dollars each , so 9 * 2 = 18 dollars . The answer is 18 .
How many legs do 2 dogs have ? Each dog has 4 legs , so 2 * 4 = 8 legs .
step question user system assistant reason please put final answer within boxed
"""
QUESTION = "Janet has 16 eggs . How many dollars ?"
STEPS = [
    "She eats 3 and bakes with 4 .",
    "So 16 - 3 - 4 = 9 eggs are left .\n\n",
    "  9 * 2 = 18 dollars .",
    "The answer is 18 .",
]
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
)


def _tokenizer(specials):
    words = sorted(set(TEXT.split()) | {"+", "-", "*", "=", ".", ",", "?"})
    vocab = {"[UNK]": 0, "[PAD]": 1}
    for word in words:
        vocab.setdefault(word, len(vocab))
    model = tokenizers.models.WordLevel(vocab, unk_token="[UNK]")
    backend = tokenizers.Tokenizer(model)
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]"
    )
    tokenizer.add_special_tokens({"additional_special_tokens": specials})
    tokenizer.chat_template = TEMPLATE
    return tokenizer


def _tiny_model(tmp_path_factory, name, seed, special_tokens, config_class, model_class, **extra):
    """A randomly initialised 2-layer model and its tokenizer, saved to a new folder."""
    torch.manual_seed(seed)
    tokenizer = _tokenizer(special_tokens)
    config = config_class(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=tokenizer.pad_token_id,
        **extra,
    )
    folder = tmp_path_factory.mktemp(name)
    model_class(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def qwen_folder(tmp_path_factory):
    return _tiny_model(
        tmp_path_factory,
        "qwen_prm",
        0,
        ["<extra_0>", "<|im_start|>", "<|im_end|>"],
        transformers.Qwen2Config,
        transformers.Qwen2ForTokenClassification,
        num_labels=2,
    )


@pytest.fixture(scope="module")
def shepherd_folder(tmp_path_factory):
    return _tiny_model(
        tmp_path_factory,
        "shepherd_prm",
        1,
        ["ки"],
        transformers.LlamaConfig,
        transformers.LlamaForCausalLM,
    )


def _slow_qwen(folder, question, steps):
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForTokenClassification.from_pretrained(folder).eval()
    separator = tokenizer.convert_tokens_to_ids("<extra_0>")
    scores = []
    for k in range(1, len(steps) + 1):
        assistant = "".join(step.strip() + "<extra_0>" for step in steps[:k])
        text = (
            f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{question}<|im_end|>\n"
            f"<|im_start|>assistant\n{assistant}<|im_end|>\n"
        )
        ids = tokenizer(text)["input_ids"]
        last = max(i for i, t in enumerate(ids) if t == separator)
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0, last]
        scores.append(torch.softmax(logits, dim=-1)[1].item())
    return scores


def _slow_shepherd(folder, question, steps):
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    tag = tokenizer.convert_tokens_to_ids("ки")
    good, bad = tokenizer.convert_tokens_to_ids("+"), tokenizer.convert_tokens_to_ids("-")
    scores = []
    for k in range(1, len(steps) + 1):
        text = question + " " + "\n".join(f"{step.strip()} ки" for step in steps[:k])
        ids = tokenizer(text)["input_ids"]
        last = max(i for i, t in enumerate(ids) if t == tag)
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0, last]
        scores.append(torch.softmax(logits[[good, bad]], dim=-1)[0].item())
    return scores


@pytest.mark.slow
@pytest.mark.parametrize(
    ("convention", "folder", "slow"),
    [
        ("qwen2.5-math-prm", "qwen_folder", _slow_qwen),
        ("math-shepherd", "shepherd_folder", _slow_shepherd),
    ],
)
def test_one_pass_agrees_with_the_slow_reference(request, convention, folder, slow):
    path = request.getfixturevalue(folder)
    prm = TransformersPRM.from_pretrained(path, convention=convention)
    fast = prm.score_steps(QUESTION, STEPS)
    reference = slow(path, QUESTION, STEPS)
    assert len(fast) == len(STEPS)
    assert all(0.0 <= s <= 1.0 for s in fast)
    assert fast == close(reference)  # one pass against a pass per prefix: other shapes
    assert len(set(round(s, 6) for s in fast)) > 1  # a random model still tells steps apart


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["qwen_folder", "shepherd_folder"])
def test_a_padded_batch_agrees_with_one_trace_at_a_time(request, folder):
    path = request.getfixturevalue(folder)
    convention = "qwen2.5-math-prm" if folder == "qwen_folder" else "math-shepherd"
    prm = TransformersPRM.from_pretrained(path, convention=convention, batch_size=3)
    traces = [
        (QUESTION, STEPS),
        ("How many legs ?", ["Each dog has 4 legs ."]),
        ("q", []),
        (QUESTION, STEPS[:2]),
    ]
    batched = prm.score_traces(traces)
    alone = [prm.score_steps(q, s) for q, s in traces]
    assert [len(b) for b in batched] == [4, 1, 0, 2]
    for b, a in zip(batched, alone, strict=True):
        assert b == close(a)  # a padded batch against one trace: other shapes


@pytest.mark.slow
def test_replay_reads_the_trace_in_one_forward_pass(shepherd_folder, leg_counting):
    prm = get_prm(f"transformers/{shepherd_folder}", convention=MathShepherd())
    calls = []
    prm.model.register_forward_hook(lambda *args: calls.append(1))
    env = SegmentedEnvironment(leg_counting, "sentence", reward_functions=(PRMRewardFunction(prm),))
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, "Each dog has 4 legs. So 2 * 4 = 8 legs. The answer is 8.")
    assert len(results) == 3 and len(calls) == 1
    assert all(0.0 <= r.rewards["prm"].reward <= 1.0 for r in results)


@pytest.mark.slow
def test_a_step_containing_the_separator_is_refused(qwen_folder):
    prm = TransformersPRM.from_pretrained(qwen_folder, convention=QwenMathPRM())
    with pytest.raises(ValueError, match="found 3 '<extra_0>' tokens for 2 steps"):
        prm.score_steps("q", ["a <extra_0> b", "c"])


@pytest.mark.slow
def test_a_token_classifier_without_two_labels_is_refused(tmp_path, qwen_folder):
    model = transformers.AutoModelForTokenClassification.from_pretrained(qwen_folder)
    config = model.config
    config.num_labels = 3
    transformers.Qwen2ForTokenClassification(config).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="2-class head, this model has 3 labels"):
        TransformersPRM.from_pretrained(tmp_path, convention="qwen2.5-math-prm")


def test_get_prm_needs_a_convention(qwen_folder):
    with pytest.raises(ValueError, match="need convention="):
        get_prm(f"transformers/{qwen_folder}")
    with pytest.raises(KeyError, match="unknown PRM convention 'llama'"):
        get_prm(f"transformers/{qwen_folder}", convention="llama")
