"""The run spec: round trips, every spelling the CLI and the workbench accept, clear errors."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llenvs.core import SamplingParams
from llenvs.core.errors import UnknownName
from llenvs.core.run_spec import (
    AGGREGATIONS,
    AnswerOpening,
    ModelSpec,
    PRMKind,
    PRMSpec,
    Provider,
    RunSpec,
    SegmenterSpec,
    ServerMode,
    TaskSource,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
maybe_text = st.none() | text
name = st.from_regex(r"[a-z][a-z0-9_.-]{0,10}", fullmatch=True)
url = st.from_regex(r"https?://[a-z0-9.]{1,10}(:[0-9]{2,4})?/v1", fullmatch=True)

models = st.one_of(
    st.builds(
        ModelSpec,
        st.just(Provider.EMBEDDED),
        dtype=st.none() | st.sampled_from(("float32", "bfloat16", "float16")),
    ),
    st.builds(
        ModelSpec,
        st.just(Provider.TRANSFORMERS),
        name,
        dtype=st.none() | st.just("float32"),
    ).filter(lambda m: m.model != "SmolLM2-135M-Instruct"),
    st.builds(
        ModelSpec,
        st.just(Provider.OPENAI),
        name,
        base_url=st.none() | url,
        mode=st.sampled_from(ServerMode),
        tokenizer=maybe_text,
        api_key_env=name,
    ),
    st.builds(ModelSpec, st.just(Provider.SCRIPTED), outputs=st.lists(text, max_size=3).map(tuple)),
    st.builds(ModelSpec, st.just(Provider.SCRIPTED), responses=text),
)

prms = st.one_of(
    st.builds(PRMSpec, st.sampled_from((PRMKind.NONE, PRMKind.ARITHMETIC))),
    st.builds(PRMSpec, st.just(PRMKind.TRANSFORMERS), name, convention=st.none() | name),
    st.builds(
        PRMSpec, st.just(PRMKind.VLLM), name, convention=st.none() | name, base_url=st.none() | url
    ),
    st.builds(PRMSpec, st.just(PRMKind.JUDGE), judge=st.none() | models),
    st.builds(
        PRMSpec,
        st.just(PRMKind.ARITHMETIC),
        aggregation=st.none() | st.sampled_from(AGGREGATIONS),
        class_name=st.none() | name,
    ),
    st.builds(
        PRMSpec,
        st.just(PRMKind.MC),
        rollouts=st.none() | st.integers(1, 100),
        temperature=st.none() | st.floats(0, 2),
        max_tokens=st.none() | st.integers(1, 4096),
        seed=st.none() | st.integers(0, 2**31),
    ),
)

json_scalar = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | text
tasks = st.builds(
    TaskSource.parse,
    name,
    adapter=name,
    tasks=st.none() | st.sampled_from(("10", "0-9", "0,3,5")),
    size=st.none() | st.integers(1, 1000),
    seed=st.none() | st.integers(0, 2**31),
    extra=st.none() | json_scalar | st.lists(json_scalar, max_size=3),
)
segmenters = st.sampled_from(
    (
        "steps",
        "sentence",
        "line",
        "line:\n\n",
        "pattern",
        r"pattern:^Step \d+",
        "token:64",
        "token:16:cl100k_base",
        "composite:line:\\n\\n+sentence",
        "llm",
    )
).map(SegmenterSpec.parse)
samplings = st.builds(
    SamplingParams,
    max_tokens=st.integers(1, 131072),
    temperature=st.floats(0, 2),
    top_p=st.floats(0.01, 1),
    top_k=st.none() | st.integers(1, 100),
    seed=st.none() | st.integers(0, 2**31),
    stop=st.lists(text, max_size=3).map(tuple),
    logprobs=st.booleans(),
)
openings = st.builds(
    AnswerOpening, text, st.integers(1, 64), text, st.lists(text, max_size=2).map(tuple)
)
runs = st.builds(
    RunSpec,
    task=st.none() | tasks,
    segmenter=st.none() | segmenters,
    model=st.none() | models,
    prm=st.none() | prms,
    sampling=st.none() | samplings,
    answer_opening=st.none() | openings,
)


def _through_json(record: object) -> object:
    """A record as a trace file gives it back."""
    return json.loads(json.dumps(record))


@pytest.mark.parametrize(
    "values",
    [models, prms, tasks, segmenters, samplings, openings, runs],
    ids=["model", "prm", "task", "segmenter", "sampling", "opening", "run"],
)
def test_from_record_of_to_record_is_the_same_spec(values):
    @given(values)
    def check(spec):
        assert type(spec).from_record(_through_json(spec.to_record())) == spec

    check()


@given(models)
def test_every_provider_parses_back_from_its_name_and_options(spec):
    assert ModelSpec.parse(spec.name, **spec.options) == spec


@given(prms.filter(lambda s: s.judge is None or not s.judge.options))
def test_every_prm_kind_parses_back_from_its_name_and_options(spec):
    """A judge's own options travel in its record only (``judge:<backend>`` names none), and
    so do the facts recorded about a PRM that was made (its class, its aggregation)."""
    made = PRMSpec.parse(spec.name, **spec.options)
    assert made == dataclasses.replace(spec, aggregation=None, class_name=None)


def test_a_prm_records_facts_but_never_takes_them_as_options():
    made = PRMSpec(PRMKind.VLLM, "m", aggregation="min", class_name="VllmPRM")
    assert PRMSpec.from_record(made.to_record()) == made
    with pytest.raises(ValueError, match="aggregation must be one of min, last, product, mean"):
        PRMSpec(PRMKind.ARITHMETIC, aggregation="median")
    with pytest.raises(ValueError, match="class_name is not an option of the none PRM"):
        PRMSpec(PRMKind.NONE, class_name="X")
    with pytest.raises(ValueError, match="aggregation is not an option of the arithmetic PRM"):
        PRMSpec.parse("arithmetic", aggregation="min")


URL = "http://127.0.0.1:8000/v1"

MODEL_SPELLINGS = [
    ("transformers", {}, ModelSpec(Provider.EMBEDDED), "transformers"),
    ("transformers/SmolLM2-135M-Instruct", {}, ModelSpec(Provider.EMBEDDED), "transformers"),
    ("transformers/", {}, ModelSpec(Provider.EMBEDDED), "transformers"),
    ("transformers/models/x", {}, ModelSpec(Provider.TRANSFORMERS, "models/x"), None),
    (
        "transformers//abs/x",
        {"dtype": "bfloat16"},
        ModelSpec(Provider.TRANSFORMERS, "/abs/x", dtype="bfloat16"),
        None,
    ),
    (
        "openai/smollm2",
        {"base_url": URL},
        ModelSpec(Provider.OPENAI, "smollm2", base_url=URL),
        None,
    ),
    (
        "openai/gpt-4o-mini",
        {"base_url": URL, "mode": "chat", "tokenizer": "t", "api_key_env": "MY_KEY"},
        ModelSpec(
            Provider.OPENAI,
            "gpt-4o-mini",
            base_url=URL,
            mode=ServerMode.CHAT,
            tokenizer="t",
            api_key_env="MY_KEY",
        ),
        None,
    ),
    ("openai/org/Model-7B", {}, ModelSpec(Provider.OPENAI, "org/Model-7B"), None),
    ("scripted", {"outputs": ["a", "b"]}, ModelSpec(Provider.SCRIPTED, outputs=("a", "b")), None),
    ("scripted", {"responses": "r.jsonl"}, ModelSpec(Provider.SCRIPTED, responses="r.jsonl"), None),
]


@pytest.mark.parametrize(("spelling", "options", "meant", "name"), MODEL_SPELLINGS)
def test_every_backend_spelling_means_its_spec_and_names_it_back(spelling, options, meant, name):
    spec = ModelSpec.parse(spelling, **options)
    assert spec == meant
    assert spec.name == (name or spelling)
    assert ModelSpec.parse(spec.name, **spec.options) == spec


def test_the_embedded_model_is_recorded_under_its_backend_name():
    from llenvs.inference._backends.embedded_model import EMBEDDED_MODEL_NAME

    assert ModelSpec.parse("transformers").recorded_name == f"transformers/{EMBEDDED_MODEL_NAME}"
    assert ModelSpec.parse("openai/m").recorded_name == "openai/m"


PRM_SPELLINGS = [
    (None, {}, PRMSpec(PRMKind.NONE), "none"),
    ("none", {}, PRMSpec(PRMKind.NONE), None),
    ("arithmetic", {}, PRMSpec(PRMKind.ARITHMETIC), None),
    ("mc", {}, PRMSpec(PRMKind.MC), None),
    ("mc", {"rollouts": 40, "seed": 1}, PRMSpec(PRMKind.MC, rollouts=40, seed=1), None),
    ("judge", {}, PRMSpec(PRMKind.JUDGE), None),
    ("judge:transformers", {}, PRMSpec(PRMKind.JUDGE, judge=ModelSpec(Provider.EMBEDDED)), None),
    ("judge:scripted", {}, PRMSpec(PRMKind.JUDGE, judge=ModelSpec(Provider.SCRIPTED)), None),
    ("judge:openai/m", {}, PRMSpec(PRMKind.JUDGE, judge=ModelSpec(Provider.OPENAI, "m")), None),
    (
        "transformers/ckpt/prm",
        {"convention": "math-shepherd"},
        PRMSpec(PRMKind.TRANSFORMERS, "ckpt/prm", convention="math-shepherd"),
        None,
    ),
    ("vllm/org/Model-7B", {}, PRMSpec(PRMKind.VLLM, "org/Model-7B"), None),
    ("vllm/tiny-prm", {"base_url": URL}, PRMSpec(PRMKind.VLLM, "tiny-prm", base_url=URL), None),
]


@pytest.mark.parametrize(("spelling", "options", "meant", "name"), PRM_SPELLINGS)
def test_every_prm_spelling_means_its_spec_and_names_it_back(spelling, options, meant, name):
    spec = PRMSpec.parse(spelling, **options)
    assert spec == meant
    assert spec.name == (name or spelling)


def test_every_ui_prm_choice_and_cli_name_parses():
    from llenvs.workbench.models import PRM_CHOICES

    assert {PRMSpec.parse(choice).name for choice in PRM_CHOICES} == {
        "none",
        "arithmetic",
        "judge",
        "judge:transformers",
    }


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: ModelSpec.parse("nope/x"), UnknownName, "openai, scripted, transformers"),
        (lambda: ModelSpec.parse("openai"), ValueError, "needs a model name"),
        (lambda: ModelSpec.parse("scripted/x"), ValueError, "takes no model name"),
        (lambda: ModelSpec.parse("openai/m", mode="edit"), ValueError, "'completions' or 'chat'"),
        (lambda: ModelSpec.parse("transformers", base_url=URL), ValueError, "choose from dtype"),
        (lambda: ModelSpec.parse("openai/m", api_key="sk-1"), ValueError, "api_key_env"),
        (
            lambda: ModelSpec.parse("transformers", dtype="float64"),
            ValueError,
            "float32, bfloat16, float16",
        ),
        (lambda: PRMSpec.parse("nope"), UnknownName, "arithmetic, judge, judge:<backend>, mc"),
        (lambda: PRMSpec.parse("vllm/"), UnknownName, "vllm/<model>"),
        (lambda: PRMSpec.parse("arithmetic", base_url=URL), ValueError, "choose from none"),
        (lambda: PRMSpec.parse("vllm/m", rollouts=3), ValueError, "convention, base_url"),
        (lambda: PRMSpec.parse("judge:nope"), UnknownName, "openai, scripted, transformers"),
        (lambda: SegmenterSpec.parse("sentense"), UnknownName, "composite, line, llm"),
        (
            lambda: ModelSpec.from_record({"provider": "hal"}),
            ValueError,
            "choose from 'embedded', 'transformers', 'openai' or 'scripted'",
        ),
        (
            lambda: ModelSpec.from_record({"provider": "embedded", "base_url": URL}),
            ValueError,
            "model: unknown field(s): base_url: choose from provider, dtype",
        ),
        (
            lambda: PRMSpec.from_record({"kind": "mcts"}),
            ValueError,
            "prm.kind: unknown value 'mcts': choose from 'none', 'arithmetic', 'transformers'",
        ),
        (
            lambda: PRMSpec.from_record({"kind": "judge", "judge": {"provider": "x"}}),
            ValueError,
            "prm.judge.provider",
        ),
        (
            lambda: SamplingParams.from_record({"max_token": 9}),
            ValueError,
            "unknown field(s): max_token: choose from max_tokens, temperature",
        ),
        (
            lambda: SamplingParams.from_record({"max_tokens": 0}),
            ValueError,
            "sampling_params.max_tokens: expected an integer >= 1",
        ),
        (
            lambda: AnswerOpening.from_record(
                {"text": "<answer>", "max_tokens": "8", "marker": "<answer>"}
            ),
            ValueError,
            "run.answer_opening.max_tokens: expected an integer",
        ),
        (
            lambda: TaskSource.from_record({"environment": "e", "size": 3}),
            ValueError,
            "task: unknown field(s): size: choose from environment, adapter, options, tasks",
        ),
        (
            lambda: RunSpec.from_record({"model": {"provider": "embedded"}, "sampling": []}),
            ValueError,
            "run.spec.sampling: expected an object",
        ),
    ],
)
def test_bad_spellings_and_records_name_the_valid_choices(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_a_task_source_builds_its_environment_and_its_tasks():
    source = TaskSource.parse("leg_counting", size=5, seed=3, tasks="0,3")
    environment = source.build()
    assert len(environment) == 5 and source.task_indices(len(environment)) == (0, 3)
    assert (
        environment.task(3).question
        == TaskSource.from_record(source.to_record()).build().task(3).question
    )


def test_a_segmenter_spec_builds_the_segmenter_it_names():
    assert SegmenterSpec.parse("line:\n\n").build().segment("A.\n\nB.") == ["A.", "B."]


@pytest.mark.slow
def test_importing_the_spec_imports_no_heavy_library_and_no_upper_layer():
    code = (
        "import sys, json; import llenvs.core.run_spec; "
        "print(json.dumps(sorted(m for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    modules = set(json.loads(out.stdout))
    heavy = ["torch", "transformers", "streamlit", "openai", "plotly", "pandas"]
    assert "llenvs.core.run_spec" in modules
    assert [m for m in heavy if m in modules] == []
    layers = {m.split(".")[1] for m in modules if m.startswith("llenvs.")}
    assert layers <= {"core", "tiktoken_cache"}  # the layer 0 of tests/test_layers.py
