"""LLMSegmenter: the model's steps mapped onto exact spans; fallbacks; replay only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llenvs.core import LLMSegmenter
from llenvs.core.errors import SegmenterSpecError
from llenvs.core.segmenters import (
    DEFAULT_PROMPT_TEMPLATE,
    CompositeSegmenter,
    LineSegmenter,
    SentenceSegmenter,
    check_spans,
    match_steps,
    segmenter_from_spec,
)
from llenvs.inference import get_backend
from tests.core.segmenters.segmenter_cases import texts

GUIDE_TEXT = "Let me think about this. The key insight is..."
GUIDE_OUTPUT = '["Let me think about this. ", "The key insight is..."]'


def _segmenter(*outputs: str, **kwargs: object) -> LLMSegmenter:
    return LLMSegmenter(backend=get_backend("scripted", outputs=list(outputs)), **kwargs)  # type: ignore[arg-type]


def test_the_guide_example() -> None:
    segments = _segmenter(GUIDE_OUTPUT).segment(GUIDE_TEXT)
    assert segments == ["Let me think about this. ", "The key insight is..."]
    assert "".join(segments) == GUIDE_TEXT


def test_whitespace_differences_and_unmatched_steps() -> None:
    text = "Add 2 and 3.\n  That gives 5.\n\nSo the answer is 5."
    output = json.dumps(
        ["Add 2 and 3.", "That  gives\n5.", "An invented step.", "So the answer is 5."]
    )
    assert _segmenter(output).pieces(text) == [
        "Add 2 and 3.\n  ",
        "That gives 5.\n\n",
        "So the answer is 5.",
    ]


@pytest.mark.parametrize(
    "output", ["not json", '{"steps": 1}', "[1, 2]", "[]", '["nothing here matches"]', '["unclosed']
)
def test_unusable_output_gives_one_segment(output: str) -> None:
    assert _segmenter(output).segment(GUIDE_TEXT) == [GUIDE_TEXT]


def test_json_inside_prose_is_found() -> None:
    output = f"Here are the steps:\n```json\n{GUIDE_OUTPUT}\n```"
    assert len(_segmenter(output).segment(GUIDE_TEXT)) == 2


def test_the_template_must_have_the_placeholder() -> None:
    with pytest.raises(ValueError, match=r"\{raw_generation\}"):
        _segmenter(prompt_template="Split into steps")
    seg = _segmenter(GUIDE_OUTPUT, prompt_template="Split into steps:\n{raw_generation}")
    assert seg.prompt("abc") == "Split into steps:\nabc"
    assert seg.segment(GUIDE_TEXT) == ["Let me think about this. ", "The key insight is..."]


def test_custom_parser_gets_original_and_response() -> None:
    seen: list[tuple[str, str]] = []

    def my_parser(original: str, llm_response: str) -> list[str]:
        seen.append((original, llm_response))
        return [original]

    assert _segmenter("whatever", parser=my_parser).segment(GUIDE_TEXT) == [GUIDE_TEXT]
    assert seen == [(GUIDE_TEXT, "whatever")]


def test_one_model_call_per_text() -> None:
    backend = get_backend("scripted", outputs=[GUIDE_OUTPUT])
    seg = LLMSegmenter(backend=backend)
    assert seg.segment(GUIDE_TEXT) == seg.pieces(GUIDE_TEXT)
    assert len(seg.spans(GUIDE_TEXT)) == 2
    assert seg.spans("") == []
    assert seg.spans("  \n") == [(0, 3)]


def test_streaming_is_refused_as_replay_only() -> None:
    seg = _segmenter(GUIDE_OUTPUT)
    with pytest.raises(NotImplementedError, match="replay-only"):
        seg.find_boundary("Let me think")
    with pytest.raises(NotImplementedError, match="replay-only"):
        seg.stream().feed("Let me think. More")


def test_spec_needs_the_backend() -> None:
    backend = get_backend("scripted", outputs=[])
    seg = LLMSegmenter(backend=backend)
    assert seg.spec == "llm"
    assert segmenter_from_spec("llm", backend=backend) == seg
    custom = LLMSegmenter(backend=backend, prompt_template="Steps: {raw_generation} + go")
    assert segmenter_from_spec(custom.spec, backend=backend) == custom
    with pytest.raises(SegmenterSpecError, match="backend"):
        segmenter_from_spec("llm")
    with pytest.raises(SegmenterSpecError, match="raw_generation"):
        segmenter_from_spec("llm:no placeholder", backend=backend)
    assert DEFAULT_PROMPT_TEMPLATE.count("{raw_generation}") == 1


def test_composite_with_an_llm_child_unions_the_cuts_and_refuses_streaming() -> None:
    backend = get_backend("scripted", outputs=['["Plan: add. Then", "check.\\nDone"]'])
    seg = segmenter_from_spec("composite:line+llm", backend=backend)
    assert isinstance(seg, CompositeSegmenter)
    text = "Plan: add. Then check.\nDone"
    # line cuts after "\n"; the model cuts before "check."; exact pieces (llm does not trim).
    assert seg.segment(text) == ["Plan: add. Then ", "check.\n", "Done"]
    assert seg.replay_only
    with pytest.raises(NotImplementedError, match="replay-only"):
        seg.find_boundary(text)
    assert CompositeSegmenter((LineSegmenter(), SentenceSegmenter())).replay_only is False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=texts(), steps=st.lists(st.one_of(texts(max_tokens=4), st.text(max_size=5)), max_size=6)
)
def test_any_proposal_gives_a_lossless_partition(text: str, steps: list[str]) -> None:
    words = text.split()
    steps = steps + [" ".join(words[i : i + 2]) for i in range(0, len(words), 2)]
    seg = _segmenter(json.dumps(steps))
    spans = seg.spans(text)
    check_spans(text, spans)
    assert "".join(seg.segment(text)) == text
    cuts = match_steps(text, steps)
    assert cuts == sorted(set(cuts)) and all(0 < cut < len(text) for cut in cuts)
    composite = CompositeSegmenter((LineSegmenter(), seg))
    check_spans(text, composite.spans(text))


def test_real_responses_with_their_own_sentences_as_steps(real_responses: list[dict]) -> None:
    for row in real_responses:
        text = row["response"]
        steps = SentenceSegmenter().segment(text)
        seg = _segmenter(json.dumps(steps))
        pieces = seg.pieces(text)
        assert "".join(pieces) == text
        assert len(pieces) == len(steps)


def test_replay_in_a_segmented_environment(leg_counting: Any) -> None:
    from llenvs.core import SegmentedEnvironment

    response = "Dogs have 4 legs. So 100 legs in all. <answer>100</answer>"
    output = json.dumps(["Dogs have 4 legs.", "So 100 legs in all.", "<answer>100</answer>"])
    env = SegmentedEnvironment(leg_counting, _segmenter(output))
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, response)
    assert len(results) == 3
    assert results[-1].next_state.hidden.segments == (
        "Dogs have 4 legs. ",
        "So 100 legs in all. ",
        "<answer>100</answer>",
    )
    assert results[-1].rewards.as_dict() == {"correctness": 1.0, "format": 1.0}
