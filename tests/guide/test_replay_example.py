"""The guide's "Basic Usage (Replay Mode)" sample, as written, with its values asserted."""

import contextlib
import io
import runpy
from pathlib import Path

import pytest

from llenvs.core import (
    CompositeSegmenter,
    LineSegmenter,
    PatternSegmenter,
    SegmentedEnvironment,
    SentenceSegmenter,
    default_segmenter,
)
from llenvs.core.registry import environment_registry

FULL_RESPONSE = """First, count the animals. There are 2 dogs.
Dogs have 4 legs each. So 2 × 4 = 8. <answer>8</answer>"""


def _guide_replay(response):
    # --- the guide's code, verbatim but for the response ---
    base_env = environment_registry.get(
        name="leg_counting", adapter="reasoning_gym", size=100, seed=42
    )
    env = SegmentedEnvironment(base_env, SentenceSegmenter())
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, response)
    return [(result.terminated, result.rewards.total) for result in results], results


def test_the_guides_text_scores_one_because_its_answer_is_wrong():
    steps, results = _guide_replay(FULL_RESPONSE)
    assert steps == [(False, 0), (False, 0), (False, 0), (True, 1.0)]
    assert results[-1].rewards.as_dict() == {"correctness": 0.0, "format": 1.0}
    assert results[-1].rewards["correctness"].metadata["expected_answer"] == "100"
    assert results[-1].next_state.hidden.segments == (
        "First, count the animals. ",
        "There are 2 dogs.\n",
        "Dogs have 4 legs each. ",
        "So 2 × 4 = 8. <answer>8</answer>",
    )


def test_the_right_answer_scores_two():
    steps, _ = _guide_replay(FULL_RESPONSE.replace("<answer>8</answer>", "<answer>100</answer>"))
    assert steps == [(False, 0), (False, 0), (False, 0), (True, 2.0)]


def test_the_readme_example_runs_and_prints_both():
    example = Path(__file__).resolve().parents[2] / "examples" / "replay.py"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(example), run_name="__main__")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("Step 3")]
    assert lines == ["Step 3: terminal=True, reward=1.0", "Step 3: terminal=True, reward=2.0"]


def test_guide_segmenter_samples():
    assert SentenceSegmenter().segment("First step. Second step! Third?") == [
        "First step.",
        "Second step!",
        "Third?",
    ]
    text = "Add 2 and 3.\nThat is 5.\n\nSo the answer is 5."
    assert LineSegmenter(delimiter="\n").segment(text) == [
        "Add 2 and 3.",
        "That is 5.",
        "So the answer is 5.",
    ]
    assert LineSegmenter(delimiter="\n\n").segment(text) == [
        "Add 2 and 3.\nThat is 5.",
        "So the answer is 5.",
    ]
    assert PatternSegmenter().segment("Step 1: add. Step 2: carry. Therefore 5.") == [
        "Step 1: add.",
        "Step 2: carry.",
        "Therefore 5.",
    ]
    custom = PatternSegmenter(
        patterns=(
            r"(?:^|\s)\d+[.:]\s",  # Numbered steps
            r"(?:^|\s)(?:So|Thus|Hence),?\s",  # Conclusions
        )
    )
    assert custom.segment("We add. So 1 + 1 = 2 here.\n2. Next") == [
        "We add.",
        "So 1 + 1 = 2 here.",
        "2. Next",
    ]
    composite = CompositeSegmenter(segmenters=(LineSegmenter(), SentenceSegmenter()))
    assert composite.segment("Add them. Then\nDone") == ["Add them.", "Then", "Done"]


def test_pattern_segmenter_on_the_aime_sample():
    response = """Step 1: Identify the given information.
Step 2: Set up the equation.
Step 3: Solve for x = 42.
<answer>42</answer>"""
    assert len(PatternSegmenter().segment(response)) == 3


@pytest.mark.parametrize(
    "segmenter",
    [
        SentenceSegmenter(),
        LineSegmenter("\n"),
        LineSegmenter("\n\n"),
        PatternSegmenter(),
        default_segmenter(),
    ],
    ids=lambda s: s.spec,
)
def test_every_real_response_replays_losslessly(real_responses, leg_counting, segmenter):
    env = SegmentedEnvironment(leg_counting, segmenter)
    state, _ = env.reset(options={"task_index": 0})
    for number, row in enumerate(real_responses):
        results = env.replay(state, row["response"])
        hidden = results[-1].next_state.hidden
        assert hidden.accumulated_text == row["response"], number
        assert list(hidden.segments) == segmenter.pieces(row["response"]), number
        assert [r.terminated for r in results] == [False] * (len(results) - 1) + [True]
        assert results[-1].rewards["format"].reward == float("</answer>" in row["response"])
