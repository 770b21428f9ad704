"""The aligned table Browse's branch comparison and Compare runs draw (``aligned_view``)."""

from __future__ import annotations

import sys
from dataclasses import replace

import pandas as pd
import pytest

from llenvs.core import Feedback, Force, Intervention, Resample
from llenvs.traces import BranchRecord, Trace
from llenvs.workbench import LEXICAL, AlignedView, StepMark, aligned_view, outcome_table
from tests.helpers import leg_counting_trace

NAMES = ("parent", "branch")
PARENT = "Count the legs. Deer have 4 legs. So 12 deer have 48. <answer>48</answer>"


def _branch_view(response: str, kept: int, intervention: Intervention) -> AlignedView:
    """``PARENT`` beside its branch that kept ``kept`` segments and wrote ``response``."""
    parent = leg_counting_trace(PARENT)
    record = BranchRecord(parent.trace_id, kept, intervention)
    return aligned_view(parent, replace(leg_counting_trace(response), parent=record), NAMES)


def _with_prm(trace: Trace, scores: list[float]) -> Trace:
    segments = tuple(
        replace(s, prm_scores={"prm": x, "other": x + 0.1})
        for s, x in zip(trace.segments, scores, strict=True)
    )
    return replace(trace, segments=segments)


def _rows(view, *columns):
    return view.rows[list(columns)].values.tolist()


def test_a_forced_branch_folds_what_it_kept_and_marks_the_intervention_then_the_first_difference():
    view = _branch_view(
        "Count the legs. Deer have four legs. So 12 deer have 48. <answer>48</answer>",
        1,
        Force("Deer have four legs. "),
    )
    assert _rows(view, "op", "note", "parent #", "branch #") == [
        ["equal", "kept", "0", "0"],
        ["changed", "intervention", "1", "1"],
        ["equal", "", "2", "2"],
    ]
    assert view.rows["parent"][0] == "(1 segment kept, the same in both)"
    assert view.rows["branch"][1] == "Deer have {+four+} legs. "
    assert view.rows["parent"][1] == "Deer have [-4-] legs. "
    assert view.text_columns == ("parent", "branch")


def test_after_the_intervention_the_first_step_that_parts_is_the_first_difference():
    view = _branch_view(
        "Count the legs. Deer have four legs. So 100 in all. <answer>100</answer>",
        1,
        Force("Deer have four legs. "),
    )
    notes = view.rows["note"].tolist()
    assert notes[:2] == ["kept", "intervention"]
    assert notes.count("first difference") == 1
    first = view.rows[view.rows["note"] == "first difference"].iloc[0]
    assert first["parent #"] == "2" or first["branch #"] == "2"  # the model's own next step


def test_a_resample_whose_first_segment_is_unlike_marks_both_the_removed_and_the_inserted():
    view = _branch_view(
        "Count the legs. Every animal here walks on legs? So 12 deer have 48. <answer>48</answer>",
        1,
        Resample(),
    )
    acted = view.rows[view.rows["note"] == StepMark.INTERVENTION.value]
    assert acted["op"].tolist() == ["removed", "inserted"]
    assert acted[["parent #", "branch #"]].values.tolist() == [["1", ""], ["", "1"]]
    assert "first difference" not in view.rows["note"].tolist()  # the rest is the same


def test_a_feedback_turn_has_its_own_row_where_it_came_and_no_intervention_mark():
    view = _branch_view(
        "Count the legs. Deer have 4 legs. Recount: 48. <answer>48</answer>",
        2,
        Feedback("Recount the deer."),
    )
    assert _rows(view, "op", "note", "branch #", "branch")[:2] == [
        ["equal", "kept", "0–1", ""],
        ["", "feedback", "after 1", "user: Recount the deer."],
    ]
    assert "intervention" not in view.rows["note"].tolist()
    assert view.rows["note"].tolist()[2] == "first difference"


def test_a_branch_that_says_its_kept_prefix_again_keeps_the_prefix_paired_one_to_one():
    """The texts alone would pair the parent's opening with the branch's repeat of it (the
    longer equal run), and call the kept segments inserted."""
    repeated = PARENT.replace("So 12", "Count the legs. Deer have 4 legs. So 12")
    view = _branch_view(repeated, 2, Feedback("Again."))
    assert _rows(view, "op", "note", "parent #", "branch #") == [
        ["equal", "kept", "0–1", "0–1"],
        ["", "feedback", "", "after 1"],
        ["inserted", "first difference", "", "2"],
        ["inserted", "", "", "3"],
        ["equal", "", "2", "4"],
    ]
    assert view.diff.first_difference.b == 2


def test_a_feedback_before_any_segment_comes_first():
    view = _branch_view(PARENT, 0, Feedback("Go on."))
    assert _rows(view, "note", "branch #")[0] == ["feedback", "before 0"]
    assert view.rows["op"].tolist()[1:] == ["equal"] * 3  # its three segments, each shown


def test_a_change_of_whitespace_alone_is_said_and_shown_and_is_not_the_first_difference():
    view = _branch_view(
        "Count the legs. Deer  have 4 legs. So 12 deer have 52. <answer>52</answer>",
        0,
        Force("Count the legs. "),
    )
    rows = view.rows.set_index("parent #")
    assert rows.loc["1", "note"] == "only whitespace"
    assert (rows.loc["1", "parent"], rows.loc["1", "branch"]) == (
        "Deer·have·4·legs.·",
        "Deer{+·+}·have·4·legs.·",
    )
    assert rows.loc["2", "note"] == "first difference"
    assert view.rows["note"].tolist().count("first difference") == 1


def test_two_runs_pair_by_meaning_with_words_named_and_scored():
    a = leg_counting_trace("Count the legs. It is four. So 4. <answer>4</answer>")
    b = leg_counting_trace("Count the legs. Four, it is. So 4. <answer>4</answer>")
    view = aligned_view(a, b)
    row = view.rows[view.rows["op"] == "changed"].iloc[0]
    assert (row["note"], row["paired by"]) == ("first difference", "lexical")
    assert 0.8 <= row["score"] <= 1
    assert view.diff.method == "lexical"
    assert "paired by text, then by meaning (lexical, ≥ 0.8)" in view.caption
    assert "a changed step marks what a lost [-so-] and what b gained {+so+}" in view.caption
    assert "note" in view.rows and view.rows["note"][0] == ""  # not a branch: nothing "kept"


def test_the_page_similarity_is_words_and_no_model_is_loaded():
    a = leg_counting_trace("Count the legs. It is four. So 4. <answer>4</answer>")
    b = leg_counting_trace("Count the legs. Nothing alike here at all. So 4. <answer>4</answer>")
    loaded = set(sys.modules)
    view = aligned_view(a, b)
    assert LEXICAL.name == "lexical" and view.diff.method == "lexical"
    assert not {"torch", "sentence_transformers"} & (set(sys.modules) - loaded)
    assert view.rows["op"].tolist() == ["equal", "removed", "inserted", "equal"]


def test_each_side_shows_its_lowest_prm_and_its_rewards_and_nothing_for_a_missing_side():
    a = _with_prm(
        leg_counting_trace("Count the legs. Cows moo. So 8. <answer>8</answer>"), [0.9, 0.4, 0.7]
    )
    b = _with_prm(leg_counting_trace("Count the legs. So 8. <answer>8</answer>"), [0.8, 0.6])
    view = aligned_view(a, b)
    removed = view.rows[view.rows["op"] == "removed"].iloc[0]
    assert removed["a PRM"] == pytest.approx(0.4) and pd.isna(removed["b PRM"])
    assert (removed["b #"], removed["b"]) == ("", "")
    last = view.rows.iloc[-1]
    assert (last["a PRM"], last["b PRM"]) == (pytest.approx(0.7), pytest.approx(0.6))
    assert last["a reward"] == last["b reward"] == 1.0  # format 1, correctness 0: summed
    assert pd.isna(view.rows.iloc[0]["a reward"])  # the folded row: drawn as MISSING


def test_alike_traces_fold_into_one_row_and_mark_no_difference():
    trace = leg_counting_trace(PARENT)
    view = aligned_view(trace, trace)
    assert _rows(view, "op", "a #", "a") == [["equal", "0–2", "(3 segments, the same in both)"]]
    assert view.diff.first_difference is None
    assert view.caption == "3 equal · paired by text (no step needed meaning: lexical)"


def test_the_two_sides_need_two_names():
    trace = leg_counting_trace(PARENT)
    with pytest.raises(ValueError, match="different names, got 'x' twice"):
        aligned_view(trace, trace, ("x", "x"))


def test_the_outcome_table_names_its_sides():
    trace = leg_counting_trace(PARENT)
    assert outcome_table(trace, trace, ("a", "b")).columns.tolist() == ["", "a", "b", "change"]


def test_labels_and_step_values_stored_beside_each_side_get_columns_of_their_own(tmp_path):
    """A label the parent's step 1 was given and the branch's stored step values show in the
    rows of their own steps; a fact neither side stores gets no column."""
    from llenvs.traces import StepLabel, append_labels, write_traces
    from llenvs.workbench.search import facts_of

    parent = leg_counting_trace(PARENT)
    record = BranchRecord(parent.trace_id, 2, Force("So 12 deer have 46. "))
    branch = replace(leg_counting_trace(PARENT.replace("48", "46")), parent=record)
    path = tmp_path / "runs.jsonl"
    write_traces(path, [parent])
    append_labels(path, [StepLabel(parent.trace_id, 1, -1, "ada")])
    facts = (facts_of(path, parent), facts_of(tmp_path / "branches.jsonl", branch))
    view = aligned_view(parent, branch, NAMES, facts=facts)
    assert "parent label" in view.rows.columns
    assert not {"branch label", "parent value", "branch value"} & set(view.rows.columns)
    by_parent_step = dict(zip(view.rows["parent #"], view.rows["parent label"], strict=True))
    assert by_parent_step["0–1"] is None or pd.isna(by_parent_step["0–1"])  # the folded prefix
    assert by_parent_step["2"] is None or pd.isna(by_parent_step["2"])
    plain = aligned_view(parent, branch, NAMES)
    assert "parent label" not in plain.rows.columns


def test_the_labelled_step_shows_its_label_in_its_own_row(tmp_path):
    from llenvs.traces import StepLabel, append_labels, write_traces
    from llenvs.workbench.search import facts_of

    a = leg_counting_trace("Count the legs. Cows moo. So 8. <answer>8</answer>")
    b = leg_counting_trace("Count the legs. So 8. <answer>8</answer>")
    path = tmp_path / "runs.jsonl"
    write_traces(path, [a])
    append_labels(path, [StepLabel(a.trace_id, 1, -1, "ada")])
    view = aligned_view(a, b, facts=(facts_of(path, a), facts_of(path, b)))
    removed = view.rows[view.rows["op"] == "removed"].iloc[0]
    assert (removed["a #"], removed["a label"]) == ("1", -1)
