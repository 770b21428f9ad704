"""VllmPRM: request building, response parsing and errors on a fake server; then a tiny random
Qwen2ForProcessRewardModel served by the real vLLM CPU server scores as TransformersPRM does."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.rewards.prm import PRM_NAMES, BatchPRM, VllmPRM, get_prm, score_traces
from llenvs.traces import read_branches, read_traces
from tests.floats import CROSS_IMPLEMENTATION_TOLERANCE
from tests.vllm_server import free_port

SEPARATOR = "<extra_0>"
TINY_NAME = "tiny-prm"
MODELING_FILE = "modeling_tiny_prm.py"

MODELING = '''"""A Qwen2.5-Math-PRM-shaped model: Qwen2 and a 2-class head on every token."""

from torch import nn
from transformers import Qwen2Model, Qwen2PreTrainedModel
from transformers.modeling_outputs import TokenClassifierOutput


class Qwen2ForProcessRewardModel(Qwen2PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.model = Qwen2Model(config)
        size = config.hidden_size
        self.score = nn.Sequential(nn.Linear(size, size), nn.ReLU(), nn.Linear(size, 2))
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return TokenClassifierOutput(logits=self.score(hidden))
'''
"""The published checkpoints' class (``modeling_qwen2_rm.py``), as vLLM's ``qwen2_rm.py`` reads
it: ``model.*`` and ``score.0`` / ``score.2`` (linear, ReLU, linear)."""


def build_tiny_prm(folder: Path, *, seed: int = 0) -> int:
    """Save a tiny random Qwen2ForProcessRewardModel to ``folder``; return the separator's id.

    The tokenizer is the embedded model's with ``<extra_0>`` added as a special token; the
    weights are random (``seed``), large enough (init 0.2) that step scores spread over [0, 1].
    TransformersPRM loads it with ``trust_remote_code`` (``auto_map``); vLLM by architecture.
    """
    import importlib.util

    import torch
    from transformers import AutoTokenizer, Qwen2Config

    from llenvs.inference._backends.embedded_model import embedded_model_path

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = AutoTokenizer.from_pretrained(
        str(embedded_model_path(progress=False)), local_files_only=True
    )
    tokenizer.add_tokens([SEPARATOR], special_tokens=True)
    tokenizer.save_pretrained(str(folder))
    (folder / MODELING_FILE).write_text(MODELING, encoding="utf-8")
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=2048,
        tie_word_embeddings=False,
        initializer_range=0.2,
        num_labels=2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        architectures=["Qwen2ForProcessRewardModel"],
        auto_map={"AutoModel": "modeling_tiny_prm.Qwen2ForProcessRewardModel"},
    )
    spec = importlib.util.spec_from_file_location("modeling_tiny_prm", folder / MODELING_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(seed)
    module.Qwen2ForProcessRewardModel(config).save_pretrained(str(folder))
    separator: int = tokenizer.convert_tokens_to_ids(SEPARATOR)
    return separator


def tiny_prm_server(folder: Path, separator: int) -> Any:
    """A (not yet started) vLLM server for the tiny PRM: pooling runner, its separator's id."""
    from tests.vllm_server import VLLMServer

    pooler = json.dumps({"step_tag_id": separator})
    return VLLMServer(
        folder, served_name=TINY_NAME, extra_args=("--runner", "pooling", "--pooler-config", pooler)
    )


def sample_traces(count: int = 20, seed: int = 0) -> list[tuple[str, list[str]]]:
    """``count`` arithmetic traces of 1 to 6 steps, some right, some wrong, from ``seed``."""
    rng = random.Random(seed)
    traces = []
    for _ in range(count):
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        question = f"Sam has {a} apples and buys {b} more. How many apples does Sam have?"
        steps = []
        total = a
        for _ in range(rng.randint(1, 6)):
            add = rng.randint(1, 20)
            wrong = rng.random() < 0.3
            result = total + add + (rng.randint(1, 5) if wrong else 0)
            steps.append(f"  {total} + {add} = {result}, so we now have {result}.\n")
            total = result
        steps.append(f"The answer is {total}.")
        traces.append((question, steps))
    return traces


# --- a fake pooling server ------------------------------------------------------------------


class FakePooling:
    """A loopback HTTP server answering ``/pooling`` as ``answer(body)`` says."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.status = 200
        self.payload: Any = None

        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                body = json.loads(self.rfile.read(length))
                fake.requests.append((self.path, body))
                status, payload = fake.answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if self.payload is not None:
            return self.status, self.payload
        if path != "/pooling":
            return 404, {"detail": "Not Found"}
        if body["model"] != "m":
            message = f"The model `{body['model']}` does not exist."
            return 404, {"error": {"message": message, "type": "NotFoundError", "code": 404}}
        # one row per separator; the positive class encodes the step's length, for order checks
        content = body["messages"][2]["content"]
        steps = content.split(SEPARATOR)[:-1]
        rows = [[1 - len(s) / 100, len(s) / 100] for s in steps]
        return 200, {"object": "list", "model": "m", "data": [{"index": 0, "data": rows}]}


@contextmanager
def running_fake_pooling() -> Iterator[FakePooling]:
    """A ``FakePooling`` server, serving until the block ends."""
    server = FakePooling()
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


@pytest.fixture
def fake() -> Iterator[FakePooling]:
    with running_fake_pooling() as server:
        yield server


def test_one_request_per_trace_in_the_qwen_convention(fake):
    prm = VllmPRM("m", fake.base_url)
    assert prm.score_steps("What is 2 + 2?", ["  2 + 2 = 4. ", "So 4."]) == [0.1, 0.05]
    [(path, body)] = fake.requests
    assert path == "/pooling"
    assert body["model"] == "m"
    assert body["add_generation_prompt"] is False
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant"]
    assert body["messages"][0]["content"] == prm.convention.system_prompt
    assert body["messages"][1]["content"] == "What is 2 + 2?"
    assert body["messages"][2]["content"] == "2 + 2 = 4.<extra_0>So 4.<extra_0>"


def test_many_traces_in_flight_come_back_in_order(fake):
    prm = VllmPRM("m", fake.base_url + "/", max_in_flight=4)
    traces = [("q", ["x" * n for n in range(1, k + 1)]) for k in range(12)]
    assert isinstance(prm, BatchPRM)
    scores = score_traces(prm, traces)
    assert scores == [[n / 100 for n in range(1, k + 1)] for k in range(12)]
    assert len(fake.requests) == 11  # the empty trace needs none


def test_an_unknown_model_names_model_and_endpoint(fake):
    prm = VllmPRM("nope", fake.base_url)
    with pytest.raises(PermanentBackendError) as error:
        prm.score_steps("q", ["a"])
    message = str(error.value)
    assert "'nope'" in message and f"{fake.base_url.removesuffix('/v1')}/pooling" in message
    assert "HTTP 404" in message and "does not exist" in message


def test_a_bad_request_carries_the_servers_message(fake):
    fake.status, fake.payload = 400, {"error": {"message": "max_model_len exceeded", "code": 400}}
    with pytest.raises(PermanentBackendError, match=r"'m' at .*/pooling answered HTTP 400: max_"):
        VllmPRM("m", fake.base_url).score_steps("q", ["a"])


def test_a_server_error_may_be_retried(fake):
    fake.status, fake.payload = 500, {"error": {"message": "engine dead"}}
    with pytest.raises(BackendError, match="HTTP 500: engine dead") as error:
        VllmPRM("m", fake.base_url).score_steps("q", ["a"])
    assert not isinstance(error.value, PermanentBackendError)


def test_no_server_names_model_and_endpoint():
    port = free_port()
    with pytest.raises(BackendError) as error:
        VllmPRM("m", f"http://127.0.0.1:{port}/v1").score_steps("q", ["a"])
    message = str(error.value)
    assert f"'m' at http://127.0.0.1:{port}/pooling cannot be reached" in message
    assert "is the vLLM server running?" in message


def test_a_wrong_number_of_rows_is_refused(fake):
    fake.payload = {"data": [{"index": 0, "data": [[0.5, 0.5]] * 3}]}
    with pytest.raises(ValueError, match=r"returned 3 scores for 1 steps.*step_tag_id"):
        VllmPRM("m", fake.base_url).score_steps("q", ["a"])
    fake.payload = {"data": [{"index": 0, "data": [[0.5]]}]}
    with pytest.raises(ValueError, match="where a 2-class softmax was expected"):
        VllmPRM("m", fake.base_url).score_steps("q", ["a"])
    fake.payload = {"object": "error"}
    with pytest.raises(ValueError, match="returned no pooling data"):
        VllmPRM("m", fake.base_url).score_steps("q", ["a"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "127.0.0.1:8000"}, "base_url must be an http"),
        ({"max_in_flight": 0}, "max_in_flight must be an int >= 1"),
        ({"timeout_s": 0}, "timeout_s must be > 0"),
        ({"convention": "math-shepherd"}, "reads the qwen2.5-math-prm convention"),
    ],
)
def test_bad_arguments_fail_early(options, message):
    with pytest.raises(ValueError, match=message):
        VllmPRM("m", **options)


def test_the_registry_makes_it_by_name(fake):
    assert "vllm/<model>" in PRM_NAMES
    prm = get_prm("vllm/m", base_url=fake.base_url, convention="qwen2.5-math-prm")
    assert isinstance(prm, VllmPRM) and prm.model == "m" and prm.base_url == fake.base_url
    assert prm.score_steps("q", ["abc"]) == [0.03]
    assert get_prm("vllm/org/Model-7B").model == "org/Model-7B"


# --- the real vLLM server -------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_prm_folder(tmp_path_factory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("tiny-prm")
    return folder, build_tiny_prm(folder)


@pytest.mark.slow
@pytest.mark.vllm
def test_served_tiny_prm_scores_as_transformers_prm(tiny_prm_folder):
    from llenvs.rewards.prm import TransformersPRM
    from tests.vllm_server import require_vllm_python

    require_vllm_python()
    folder, separator = tiny_prm_folder
    traces = sample_traces(20)
    local = TransformersPRM.from_pretrained(
        folder, convention="qwen2.5-math-prm", trust_remote_code=True
    )
    expected = local.score_traces(traces)
    server = tiny_prm_server(folder, separator)
    try:
        server.start()
        served = get_prm(f"vllm/{TINY_NAME}", base_url=server.base_url).score_traces(traces)
    finally:
        server.stop()
    assert [len(s) for s in served] == [len(steps) for _, steps in traces]
    flat_served = [x for scores in served for x in scores]
    flat_expected = [x for scores in expected for x in scores]
    # two implementations (vLLM's kernels, transformers'): tests/floats.py's tolerance for that
    assert flat_served == pytest.approx(flat_expected, abs=CROSS_IMPLEMENTATION_TOLERANCE)
    assert max(flat_expected) - min(flat_expected) > 0.1  # the random weights do discriminate


@pytest.mark.slow
def test_the_cli_scores_with_a_served_prm_and_a_branch_reuses_its_url(fake, tmp_path):
    from tests.cli.test_commands import ENV, _responses, llenvs

    responses = _responses(tmp_path / "r.jsonl", ["Count. So 8 legs. <answer>8</answer>"])
    out = tmp_path / "runs.jsonl"
    llenvs("evaluate", *ENV, "--segmenter", "sentence", "--backend", "scripted",
           "--responses", responses, "--num-tasks", "1", "-o", out, "--no-log",
           "--prm", "vllm/m", "--prm-base-url", fake.base_url, cwd=tmp_path)  # fmt: skip
    [parent] = read_traces(out)
    assert parent.run.spec.prm.name == "vllm/m" and parent.run.spec.prm.base_url == fake.base_url
    assert [s.prm_scores["prm"] for s in parent.segments] == [0.06, 0.29]
    asked = len(fake.requests)

    rest = _responses(tmp_path / "rest.jsonl", ["Count. So 100 legs. <answer>100</answer>"])
    done = llenvs("intervene", out, "--at", "1", "--force", "So 100 legs. ",
                  "--responses", rest, cwd=tmp_path)  # fmt: skip
    assert "scoring the branch with the trace's own PRM: vllm/m" in done.stderr
    [child] = read_branches(out)
    assert child.run.spec.prm.base_url == fake.base_url and len(fake.requests) > asked

    elsewhere = "http://127.0.0.1:9/v1"  # the trace's own PRM at another server: not served
    moved = llenvs("intervene", out, "--at", "1", "--resample", "--responses", rest,
                   "--prm-base-url", elsewhere, cwd=tmp_path, check=False)  # fmt: skip
    assert moved.returncode != 0 and "127.0.0.1:9/pooling" in moved.stderr  # the URL given
    refused = llenvs("intervene", out, "--at", "1", "--resample", "--responses", rest,
                     "--prm", "arithmetic", "--prm-base-url", fake.base_url,
                     cwd=tmp_path, check=False)  # fmt: skip
    assert refused.returncode != 0 and "--prm-base-url is for --prm vllm" in refused.stderr


@pytest.mark.slow
def test_import_scores_with_a_served_prm_at_the_url_given(fake, tmp_path):
    from tests.cli.test_commands import llenvs

    chat = [
        {"role": "user", "content": "2 + 2?"},
        {"role": "assistant", "content": "2 + 2 = 4. So 4."},
    ]
    source = tmp_path / "chat.jsonl"
    source.write_text(json.dumps({"messages": chat}) + "\n")
    out = tmp_path / "imported.jsonl"
    llenvs("import", "openai_chat", source, "-o", out, "--segmenter", "sentence",
           "--prm", "vllm/m", "--prm-base-url", fake.base_url, cwd=tmp_path)  # fmt: skip
    [trace] = read_traces(out)
    assert len(fake.requests) == 1 and fake.requests[0][1]["model"] == "m"
    assert [s.prm_scores["prm"] for s in trace.segments] == [0.1, 0.05]  # the fake's scores
    refused = llenvs("import", "openai_chat", source, "-o", tmp_path / "no.jsonl",
                     "--prm", "arithmetic", "--prm-base-url", fake.base_url,
                     cwd=tmp_path, check=False)  # fmt: skip
    assert refused.returncode != 0 and "--prm-base-url is for --prm vllm" in refused.stderr
    assert not (tmp_path / "no.jsonl").exists()
