"""Backend capabilities: declared by every backend, read there, never probed for."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from llenvs.analysis.sampling import StoppableBackend
from llenvs.core import (
    BackendCapabilities,
    ModelBackend,
    SamplingParams,
    SegmentedEnvironment,
    StopToken,
)
from llenvs.core.registry import environment_registry
from llenvs.core.segmenters import TokenSegmenter
from llenvs.evaluation import LogConfig, run_segmented_evaluation
from llenvs.evaluation.episodes import TokenContinuationStrategy
from llenvs.inference import backend_options, get_backend
from llenvs.traces import read_traces

PACKAGE = Path(__file__).resolve().parents[2] / "llenvs"
PROTOCOL = PACKAGE / "core" / "backend.py"


def _named_backend(node: ast.expr) -> bool:
    """Whether an expression names a backend: ``backend``, ``self.backend``, ``self._backend``."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return isinstance(name, str) and "backend" in name.lower()


def test_no_backend_is_probed_for_attributes_outside_the_protocol_module():
    probes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PROTOCOL:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):  # a face's module-level __getattr__ probes nothing
                for method in node.body:
                    if isinstance(method, ast.FunctionDef) and method.name == "__getattr__":
                        probes.append(f"{path.relative_to(PACKAGE)}:{method.lineno} __getattr__")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and _named_backend(node.args[0])
            ):
                probes.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.func.id}")
    assert probes == []


def test_the_scan_sees_a_probe_of_a_backend():
    probe = ast.parse("getattr(self.backend, 'tokenizer', None)").body[0]
    assert isinstance(probe, ast.Expr) and isinstance(probe.value, ast.Call)
    assert _named_backend(probe.value.args[0])
    assert not _named_backend(ast.parse("getattr(config, 'x')").body[0].value.args[0])  # type: ignore[attr-defined]


def test_the_scripted_backend_declares_nothing_optional():
    backend = get_backend("scripted", outputs=["a"])
    assert isinstance(backend, ModelBackend)
    assert backend.capabilities == BackendCapabilities()
    assert backend.capabilities.tokenizer() is None and backend_options(backend) == {}


def test_the_transformers_backend_declares_its_template_and_tokenizer(embedded_backend):
    capabilities = embedded_backend.capabilities
    assert isinstance(embedded_backend, ModelBackend)
    assert capabilities.chat_template == embedded_backend.tokenizer.chat_template
    assert "<|im_start|>" in capabilities.chat_template
    assert capabilities.tokenizer() is embedded_backend.tokenizer
    assert capabilities.max_in_flight is None  # one call serves a whole batch
    assert dict(capabilities.rebuild_options) == {"dtype": "float32"}  # made again in it


def test_the_openai_backend_declares_concurrency_and_how_to_reach_it_again():
    completions = get_backend("openai/m", base_url="http://127.0.0.1:9/v1", max_in_flight=3)
    chat = get_backend("openai/m", base_url="http://127.0.0.1:9/v1", mode="chat")
    assert completions.capabilities.max_in_flight == 3
    assert dict(completions.capabilities.rebuild_options) == {
        "base_url": "http://127.0.0.1:9/v1",
        "mode": "completions",
        "tokenizer": "m",
        "api_key_env": "OPENAI_API_KEY",
    }
    assert completions.capabilities.load_tokenizer is not None  # the server's ids: loaded on use
    assert chat.capabilities.load_tokenizer is None  # chat mode's ids are counted, not the model's
    assert backend_options(chat)["mode"] == "chat"


def test_a_wrapper_declares_the_capabilities_of_the_backend_it_wraps(embedded_backend):
    wrapped = StoppableBackend(embedded_backend, StopToken())
    assert isinstance(wrapped, ModelBackend)
    assert wrapped.capabilities is embedded_backend.capabilities


def test_the_token_strategy_reads_the_declared_tokenizer(embedded_backend):
    segmenter = TokenSegmenter(embedded_backend.tokenizer, token_size=4)  # the model's tokens
    assert TokenContinuationStrategy.applies(segmenter, embedded_backend)
    assert not TokenContinuationStrategy.applies(segmenter, get_backend("scripted"))


def test_a_trace_records_the_chat_template_its_backend_declares(embedded_backend, tmp_path):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
    env = SegmentedEnvironment(base, "sentence")
    out = tmp_path / "results.jsonl"
    run_segmented_evaluation(
        env,
        embedded_backend,
        num_tasks=1,
        sampling_params=SamplingParams(max_tokens=4),
        log=LogConfig(targets=()),
        results_file=out,
    )
    [trace] = read_traces(out)
    assert trace.run.chat_template == embedded_backend.tokenizer.chat_template


def test_capabilities_refuse_a_bad_concurrency():
    with pytest.raises(ValueError, match="max_in_flight must be an int >= 1 or None, got 0"):
        BackendCapabilities(max_in_flight=0)
    frozen = BackendCapabilities(rebuild_options={"mode": "chat"})
    with pytest.raises(TypeError):
        frozen.rebuild_options["mode"] = "completions"  # type: ignore[index]
