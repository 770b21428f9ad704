"""TokenSegmenter: lossless token chunks, streaming equals replay, offline tiktoken."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llenvs.core.errors import SegmenterSpecError
from llenvs.core.segmenters import (
    CompositeSegmenter,
    LineSegmenter,
    SentenceSegmenter,
    TokenSegmenter,
    check_spans,
    ensure_offline_encodings,
    get_tiktoken_encoding,
    load_tokenizer,
    segmenter_from_spec,
)
from tests.core.segmenters.segmenter_cases import (
    check_invariants,
    check_prefix_decisions,
    read_jsonl,
    stream_pieces,
    texts,
)

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SIZES = [1, 2, 3, 5]


@pytest.mark.parametrize("size", SIZES)
@PROPERTY
@given(text=texts(), cuts=st.lists(st.integers(0, 80), max_size=10))
def test_cl100k_any_chunking_gives_the_pieces_of_spans(
    cl100k: Any, size: int, text: str, cuts: list[int]
) -> None:
    check_invariants(TokenSegmenter(cl100k, size), text, cuts)


@pytest.mark.parametrize("size", [1, 3])
@PROPERTY
@given(text=texts(max_tokens=12))
def test_cl100k_decisions_on_prefixes_hold(cl100k: Any, size: int, text: str) -> None:
    check_prefix_decisions(TokenSegmenter(cl100k, size), text)


@pytest.mark.parametrize("size", [1, 4])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts(), cuts=st.lists(st.integers(0, 80), max_size=10))
def test_smollm2_any_chunking_gives_the_pieces_of_spans(
    smollm2_tokenizer: Any, size: int, text: str, cuts: list[int]
) -> None:
    check_invariants(TokenSegmenter(smollm2_tokenizer, size), text, cuts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts(max_tokens=10))
def test_smollm2_decisions_on_prefixes_hold(smollm2_tokenizer: Any, text: str) -> None:
    check_prefix_decisions(TokenSegmenter(smollm2_tokenizer, 2), text)


@pytest.mark.parametrize("text", ["", " ", "\n", "\r\n\r\n", " \t\n\u3000\x1c "])
def test_empty_text_has_no_spans_and_whitespace_one(cl100k: Any, text: str) -> None:
    seg = TokenSegmenter(cl100k, 1)
    assert seg.spans(text) == ([(0, len(text))] if text else [])
    assert stream_pieces(seg, list(text)) == ([text] if text else [])


def test_real_responses_round_trip_in_any_chunk_size(
    cl100k: Any, smollm2_tokenizer: Any, real_responses: list[dict[str, Any]]
) -> None:
    texts_ = [row["response"] for row in real_responses]
    texts_ += ["\n\n".join(row["steps"]) for row in read_jsonl("step_traces.jsonl")[:5]]
    for seg in (TokenSegmenter(cl100k, 64), TokenSegmenter(smollm2_tokenizer, 16)):
        for number, text in enumerate(texts_):
            pieces = seg.pieces(text)
            check_spans(text, seg.spans(text))
            assert "".join(seg.segment(text)) == text
            step = 1 + number % 7
            chunks = [text[i : i + step] for i in range(0, len(text), step)]
            assert stream_pieces(seg, chunks) == pieces


def test_chunks_hold_token_size_tokens(cl100k: Any) -> None:
    text = "The farmer has 12 cows and 7 chickens. Cows have 4 legs, chickens 2. " * 5
    pieces = TokenSegmenter(cl100k, 8).pieces(text)
    assert "".join(pieces) == text
    assert [len(cl100k.encode(piece)) for piece in pieces[:-1]] == [8] * (len(pieces) - 1)
    assert 0 < len(cl100k.encode(pieces[-1])) <= 8


def test_split_characters_stay_whole(cl100k: Any) -> None:
    # 🦒 is three cl100k tokens; a cut never falls inside it.
    seg = TokenSegmenter(cl100k, 2)
    assert seg.pieces("a 🦒b c") == ["a 🦒", "b c"]
    assert seg.find_boundary("a 🦒b") is None
    assert seg.find_boundary("a 🦒b c") == 3


def test_streaming_waits_for_a_complete_pre_token(cl100k: Any) -> None:
    seg = TokenSegmenter(cl100k, 1)
    # "12" may grow into "123", " sun" into " sunshine": no decision until a hard boundary.
    assert seg.find_boundary("12") is None
    assert seg.find_boundary("12 ") is None
    assert seg.find_boundary("12 x") == 2
    assert seg.find_boundary("sun") is None
    assert seg.find_boundary("sun\nx") is None
    assert seg.find_boundary("sun\nxy") == 3


def test_token_size_must_be_positive(cl100k: Any) -> None:
    with pytest.raises(ValueError, match="token_size must be > 0, got -3"):
        TokenSegmenter(cl100k, -3)
    with pytest.raises(TypeError, match="encode"):
        TokenSegmenter(object(), 3)


def test_normalising_tokenizer_with_only_encode_and_decode_stays_lossless() -> None:
    class Lowercase:
        """A word tokenizer that lowercases (decode is not the original text)."""

        def __init__(self) -> None:
            self.vocab: dict[str, int] = {}

        def encode(self, text: str) -> list[int]:
            import re

            return [
                self.vocab.setdefault(word, len(self.vocab))
                for word in re.findall(r"\s*\S+|\s+", text.lower())
            ]

        def decode(self, ids: list[int]) -> str:
            words = {index: word for word, index in self.vocab.items()}
            return "".join(words[i] for i in ids)

    seg = TokenSegmenter(Lowercase(), 1)
    text = "Hello World and more"
    assert "".join(seg.pieces(text)) == text
    assert seg.spec == "token:1:<unnamed Lowercase>"
    assert len(seg.pieces(text)) >= 1


def test_spec_names_the_tokenizer(cl100k: Any, smollm2_tokenizer: Any) -> None:
    seg = TokenSegmenter(cl100k, 64)
    assert seg.spec == "token:64:cl100k_base"
    assert segmenter_from_spec(seg.spec) == seg == segmenter_from_spec("token:64")
    smol = TokenSegmenter(smollm2_tokenizer, 16)
    assert smol.spec.startswith("token:16:hf\\:")
    assert smol.trims is False


@PROPERTY
@given(text=texts(), cuts=st.lists(st.integers(0, 80), max_size=10))
def test_composite_with_a_token_child_streams_like_replay(
    cl100k: Any, text: str, cuts: list[int]
) -> None:
    seg = CompositeSegmenter(
        (LineSegmenter("\n\n"), SentenceSegmenter(), TokenSegmenter(cl100k, 3))
    )
    check_invariants(seg, text, cuts)
    # One child does not trim, so segment() gives the exact pieces.
    assert seg.segment(text) == seg.pieces(text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts(max_tokens=12))
def test_composite_with_a_token_child_decides_on_prefixes(cl100k: Any, text: str) -> None:
    seg = CompositeSegmenter((LineSegmenter(), TokenSegmenter(cl100k, 2)))
    check_prefix_decisions(seg, text)


def test_composite_token_spec_round_trips(cl100k: Any) -> None:
    seg = CompositeSegmenter((LineSegmenter("\n\n"), TokenSegmenter(cl100k, 64)))
    assert seg.spec == "composite:line:\\n\\n+token:64:cl100k_base"
    assert segmenter_from_spec(seg.spec) == seg
    assert seg.pieces("Plan.\n\nAdd 2 and 3.") == ["Plan.\n\n", "Add 2 and 3."]


def test_unnamed_tokenizers_are_refused_by_spec() -> None:
    with pytest.raises(SegmenterSpecError, match="in code"):
        segmenter_from_spec("token:8:<unnamed Mine>")
    with pytest.raises(SegmenterSpecError, match="size > 0"):
        segmenter_from_spec("token:0:cl100k_base")
    with pytest.raises(SegmenterSpecError, match="size > 0"):
        segmenter_from_spec("token")
    with pytest.raises(SegmenterSpecError, match=r"o200k_base.*not available offline"):
        segmenter_from_spec("token:8:o200k_base")


def test_offline_files_land_under_the_sha1_of_the_official_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert ensure_offline_encodings() == ["cl100k_base"]
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    assert (tmp_path / hashlib.sha1(url.encode()).hexdigest()).is_file()
    assert get_tiktoken_encoding("cl100k_base").encode("Hello world") == [9906, 1917]
    with pytest.raises(ValueError, match=r"o200k_base\.tiktoken"):
        get_tiktoken_encoding("o200k_base")


def test_replay_in_a_segmented_environment(cl100k: Any, leg_counting: Any) -> None:
    from llenvs.core import SegmentedEnvironment

    response = "Each dog has 4 legs and there are 25 dogs, so 100 legs. <answer>100</answer>"
    env = SegmentedEnvironment(leg_counting, TokenSegmenter(tokenizer=cl100k, token_size=8))
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, response)
    segments = results[-1].next_state.hidden.segments
    assert "".join(segments) == response
    assert len(results) == len(segments) == len(TokenSegmenter(cl100k, 8).pieces(response))
    assert results[-1].rewards.as_dict() == {"correctness": 1.0, "format": 1.0}


def test_hf_names_load_through_auto_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smollm2_tokenizer: Any
) -> None:
    import transformers

    calls: list[tuple[str, dict[str, Any]]] = []

    def record(path: str, **kwargs: Any) -> Any:
        calls.append((path, kwargs))
        return smollm2_tokenizer

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", record)
    (tmp_path / "model.gguf").write_bytes(b"")
    assert load_tokenizer(f"hf:{tmp_path}") is smollm2_tokenizer
    assert load_tokenizer("hf:org/model") is smollm2_tokenizer
    assert load_tokenizer("hf:/models/x:weights.gguf") is smollm2_tokenizer
    assert calls == [
        (str(tmp_path), {"gguf_file": "model.gguf"}),
        ("org/model", {}),
        ("/models/x", {"gguf_file": "weights.gguf"}),
    ]
    # The embedded tokenizer's spec names its folder, which loads through its one GGUF file.
    seg = TokenSegmenter(smollm2_tokenizer, 16)
    assert segmenter_from_spec(seg.spec) == seg
