"""Two traces aligned step by step (``align_traces``): hand-built pairs, a property, real branches.

Every test pairs by meaning with the lexical similarity (word overlap), so none needs a model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.analysis.instruments import (
    BY_TEXT,
    AlignedDiff,
    DiffOp,
    LexicalSimilarity,
    align_traces,
)
from llenvs.core import Force, record_dict
from llenvs.traces import SegmentRecord, TaskRecord, Trace, read_branches, read_traces
from tests.helpers import leg_counting_trace

SAMPLES = Path(__file__).parents[2] / "sample_traces"

LEXICAL = LexicalSimilarity()


def trace(*texts: str, prompt: str = "q", prm: tuple[float, ...] = ()) -> Trace:
    """A trace whose segments are ``texts`` (``prm``: a score per segment, when given)."""
    segments, start = [], 0
    for index, text in enumerate(texts):
        scores = {"prm": prm[index]} if prm else {}
        segments.append(SegmentRecord(index, start, start + len(text), text, prm_scores=scores))
        start += len(text)
    return Trace(
        task=TaskRecord("e", "a", {}, 0, prompt),
        response="".join(texts),
        segments=tuple(segments),
    )


def shape(diff: AlignedDiff) -> list[tuple[str, int | None, int | None]]:
    return [(step.op.value, step.a, step.b) for step in diff.ops]


def test_equal_traces_align_step_for_step_and_never_part():
    a = trace("Sheep have 4 legs. ", "So 24. ", "<answer>24</answer>")
    diff = align_traces(a, a, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("equal", 1, 1), ("equal", 2, 2)]
    assert diff.first_difference is None
    assert diff.method == BY_TEXT
    assert {step.method for step in diff.ops} == {BY_TEXT}
    assert diff.a.answer == diff.b.answer == "24" and diff.same_task


def test_one_changed_step_marks_its_characters_and_where_the_responses_part():
    a = trace("Sheep have 4 legs. ", "Mantises have 4 legs. ", "So 72.")
    b = trace("Sheep have 4 legs. ", "Mantises have 6 legs. ", "So 72.")
    diff = align_traces(a, b, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("changed", 1, 1), ("equal", 2, 2)]
    changed = diff.ops[1]
    assert changed.method == BY_TEXT and changed.score is not None and changed.score > 0.9
    [edit] = changed.edits
    assert (edit.op, edit.a_start, edit.a_end, edit.b_start, edit.b_end) == (
        DiffOp.CHANGED,
        14,
        15,
        14,
        15,
    )
    first = diff.first_difference
    assert first is not None and (first.step, first.op, first.a, first.b) == (
        1,
        DiffOp.CHANGED,
        1,
        1,
    )
    assert first.a_character == first.b_character == len("Sheep have 4 legs. ") + 14
    assert a.response[first.a_character] == "4" and b.response[first.b_character] == "6"
    assert diff.method == BY_TEXT  # a small edit pairs by characters: no similarity asked


def test_an_inserted_step():
    a = trace("One. ", "Three.")
    b = trace("One. ", "Two, and a new thought entirely. ", "Three.")
    diff = align_traces(a, b, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("inserted", None, 1), ("equal", 1, 2)]
    first = diff.first_difference
    assert first is not None and first.op is DiffOp.INSERTED
    assert (first.a, first.b, first.a_character, first.b_character) == (None, 1, 5, 5)
    assert diff.ops[1].a_numbers is None and diff.ops[1].method is None


def test_a_removed_step():
    a = trace("One. ", "Two, and a thought. ", "Three.")
    b = trace("One. ", "Three.")
    diff = align_traces(a, b, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("removed", 1, None), ("equal", 2, 1)]
    assert diff.counts() == {
        DiffOp.EQUAL: 2,
        DiffOp.CHANGED: 0,
        DiffOp.INSERTED: 0,
        DiffOp.REMOVED: 1,
    }


def test_reordered_steps_are_a_removal_and_an_insertion_not_changes():
    a = trace("Cows have 4 legs. ", "Birds have 2 legs. ", "Total.")
    b = trace("Birds have 2 legs. ", "Cows have 4 legs. ", "Total.")
    diff = align_traces(a, b, LEXICAL)
    ops = [step.op for step in diff.ops]
    assert ops.count(DiffOp.EQUAL) == 2 and DiffOp.CHANGED not in ops
    assert ops.count(DiffOp.REMOVED) == ops.count(DiffOp.INSERTED) == 1
    assert diff.ops[-1].op is DiffOp.EQUAL and (diff.ops[-1].a, diff.ops[-1].b) == (2, 2)


def test_a_paraphrase_is_paired_by_meaning_and_the_similarity_is_named():
    a = trace("Start. ", "The answer is twelve, so we stop here. ", "End.")
    b = trace("Start. ", "So we stop here: twelve is the answer. ", "End.")
    diff = align_traces(a, b, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("changed", 1, 1), ("equal", 2, 2)]
    assert diff.ops[1].method == "lexical" and diff.method == "lexical"
    assert diff.ops[1].score == pytest.approx(1.0)


def test_different_texts_stay_a_removal_and_an_insertion():
    a = trace("Start. ", "Sheep have four legs. ", "End.")
    b = trace("Start. ", "Spiders walk on eight. ", "End.")
    diff = align_traces(a, b, LEXICAL)
    assert shape(diff) == [("equal", 0, 0), ("removed", 1, None), ("inserted", None, 1),
                           ("equal", 2, 2)]  # fmt: skip
    assert diff.method == "lexical"  # asked, and found nothing alike enough


def test_the_threshold_decides_what_counts_as_changed():
    a = trace("The answer is twelve. ")
    b = trace("The answer is surely twelve. ")
    assert [s.op for s in align_traces(a, b, LEXICAL).ops] == [DiffOp.CHANGED]
    strict = align_traces(a, b, LEXICAL, threshold=0.99)
    assert [s.op for s in strict.ops] == [DiffOp.REMOVED, DiffOp.INSERTED]
    with pytest.raises(ValueError, match="threshold must be in"):
        align_traces(a, b, LEXICAL, threshold=0)


def test_empty_traces():
    empty = trace()
    assert align_traces(empty, empty, LEXICAL).ops == ()
    one = trace("Only. ")
    into = align_traces(empty, one, LEXICAL)
    assert shape(into) == [("inserted", None, 0)]
    first = into.first_difference
    assert first is not None and (first.a_character, first.b_character) == (0, 0)
    assert shape(align_traces(one, empty, LEXICAL)) == [("removed", 0, None)]


def test_each_sides_numbers_answers_and_task():
    a = trace("Two. ", "<answer>2</answer>", prm=(0.9, 0.4))
    b = trace("Two. ", "<answer>3</answer>", prompt="another")
    diff = align_traces(a, b, LEXICAL)
    assert diff.ops[0].a_numbers is not None and diff.ops[0].a_numbers.prm == 0.9
    assert diff.ops[0].b_numbers is not None and diff.ops[0].b_numbers.prm is None
    assert (diff.a.answer, diff.b.answer, diff.same_task) == ("2", "3", False)


def test_the_json_form_holds_ops_first_difference_and_method():
    a, b = trace("A. ", "B."), trace("A. ", "C. ", "B.")
    written = record_dict(align_traces(a, b, LEXICAL))
    assert list(written)[:3] == ["ops", "first_difference", "method"]
    assert written["ops"][1] == {"op": "inserted", "a": None, "b": 1, "method": None,
                                 "score": None, "a_numbers": None,
                                 "b_numbers": {"prm": None}}  # fmt: skip
    assert written["first_difference"]["op"] == "inserted"


TEXTS = st.sampled_from(["A. ", "B. ", "So 4. ", "So 6. ", "Wait, ", "The answer is 8. ", "\n"])
SEGMENTS = st.lists(TEXTS, max_size=12)


@settings(max_examples=150, deadline=None)
@given(SEGMENTS)
def test_a_trace_aligned_with_itself_is_all_equal(texts):
    a = trace(*texts)
    diff = align_traces(a, a, LEXICAL)
    assert [step.op for step in diff.ops] == [DiffOp.EQUAL] * len(texts)
    assert diff.first_difference is None


@settings(max_examples=300, deadline=None)
@given(SEGMENTS, SEGMENTS)
def test_the_steps_cover_every_segment_of_both_sides_once_in_order(left, right):
    a, b = trace(*left), trace(*right)
    diff = align_traces(a, b, LEXICAL)
    assert [s.a for s in diff.ops if s.a is not None] == list(range(len(left)))
    assert [s.b for s in diff.ops if s.b is not None] == list(range(len(right)))
    for step in diff.ops:
        paired = step.a is not None and step.b is not None
        assert paired == (step.op in (DiffOp.EQUAL, DiffOp.CHANGED))
        if step.op is DiffOp.EQUAL:
            assert step.a is not None and step.b is not None
            assert left[step.a] == right[step.b]
    first = diff.first_difference
    if first is None:
        assert left == right
    else:
        assert a.response[: first.a_character] == b.response[: first.b_character]


def _force_branches() -> list[tuple[str, Trace, Trace]]:
    """Every sample Force branch whose forced text differs from the segment it replaced."""
    found = []
    for path in sorted(SAMPLES.glob("*.branches.jsonl")):
        parents = {t.trace_id: t for t in read_traces(str(path).replace(".branches", ""))}
        for branch in read_branches(str(path).replace(".branches", "")):
            record = branch.parent
            parent = parents.get(record.parent_id) if record is not None else None
            if parent is None or record is None or not isinstance(record.intervention, Force):
                continue
            k = record.segment_index
            if k < len(parent.segments) and parent.segments[k].text != branch.segments[k].text:
                found.append((f"{path.name}:{branch.trace_id[:8]}", parent, branch))
    return found


FORCED = _force_branches()


def test_the_samples_hold_force_branches():
    assert len(FORCED) >= 5


@pytest.mark.parametrize(("name", "parent", "branch"), FORCED, ids=[f[0] for f in FORCED])
def test_a_force_branch_parts_from_its_parent_at_the_branch_point(name, parent, branch):
    k = branch.parent.segment_index
    diff = align_traces(parent, branch, LEXICAL)
    first = diff.first_difference
    assert first is not None and first.step == k
    assert first.a == k  # the forced segment replaced the parent's: changed, or removed
    assert first.b in (k, None)
    kept = parent.segments[k].start
    assert kept <= first.a_character < parent.segments[k].end
    assert parent.response[: first.a_character] == branch.response[: first.b_character]


def test_a_kept_prefix_pairs_one_to_one_where_a_repeat_would_pull_it_elsewhere():
    parent = leg_counting_trace("Add one. Add two. So 4. <answer>4</answer>")
    child = leg_counting_trace("Add one. Add two. Add one. Add two. So 4. <answer>4</answer>")
    loose = [(s.op.value, s.a, s.b) for s in align_traces(parent, child, LEXICAL).ops]
    assert loose[:2] == [("inserted", None, 0), ("inserted", None, 1)]  # the repeat wins
    kept = align_traces(parent, child, LEXICAL, kept=2)
    assert [(s.op.value, s.a, s.b) for s in kept.ops] == [
        ("equal", 0, 0),
        ("equal", 1, 1),
        ("inserted", None, 2),
        ("inserted", None, 3),
        ("equal", 2, 4),
    ]
    assert kept.first_difference is not None
    assert kept.first_difference.b_character == child.segments[2].start == 18
    # a prefix the two do not share is not forced: the whole is aligned
    assert (
        align_traces(parent, child, LEXICAL, kept=4).ops == align_traces(parent, child, LEXICAL).ops
    )
