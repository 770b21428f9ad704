"""What a branch looks like in Browse: its feedback where it happened, one numbering, the new
branch selected after Generate, the tree's links in the URL, bounds before Generate, a click on
a row's text, and a bad segmenter spec kept to its own column.

Through AppTest with the scripted backend (the ``folder`` of ``test_intervention``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from llenvs.core import Feedback, Force, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation import replay_trace
from llenvs.traces import BranchRecord, read_traces
from llenvs.workbench import aligned_view
from llenvs.workbench.browse import picked_row
from tests.app.test_intervention import RIGHT, _branches, _open, _responses, folder, generate
from tests.app.test_pages import open_page, text_blocks, texts

__all__ = ["folder"]  # the fixture, shared with test_intervention

FEEDBACK = "Recount the deer."


def _feedback_branch(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, "Recount: 48. So 100. <answer>100</answer>"))
    at.radio(key="iv-action").set_value("Feedback").run()
    assert "adds your feedback as a user turn after segment 1" in texts(at)
    at.text_area(key="iv-feedback").input(FEEDBACK).run()
    return generate(at)


def _tree_buttons(at):
    return [b for b in at.button if str(b.key).startswith("iv-tree-")]


def test_the_feedback_shows_in_the_comparison_and_in_the_opened_branch(folder, tmp_path):
    at = _feedback_branch(folder, tmp_path)
    assert not at.exception, at.exception
    aligned = next(d.value for d in at.dataframe if "note" in d.value.columns)
    row = aligned[aligned["note"] == "feedback"]
    assert row["branch"].tolist() == [f"user: {FEEDBACK}"]
    assert row["branch #"].tolist() == ["after 1"]
    assert "intervention" not in aligned["note"].tolist()  # the model's next step is no action
    # one numbering: the panel said "after segment 1"; so do the list and the tree
    picked = at.selectbox(key="iv-compare")
    assert picked.format_func(picked.value).startswith("#0 feedback after segment 1:")
    [button] = _tree_buttons(at)
    assert button.label.startswith("↳ line 1: feedback after segment 1: 'Recount the deer.'")
    # opened from the tree, the branch shows the user turn under segment 1 and in the raw text
    button.click().run()
    assert not at.exception, at.exception
    at.button(key="nav-j").click().run()  # segment 1, the one the feedback follows
    shown = texts(at)
    assert "A branch of trace" in shown and "feedback after segment 1" in shown
    assert "Then a user turn (feedback) after segment 1:" in shown
    codes = text_blocks(at)
    assert FEEDBACK in codes  # the segment tab
    assert any(f"⟦user: {FEEDBACK}⟧" in c for c in codes)  # the raw response


def test_a_tree_link_puts_the_branch_in_the_url(folder, tmp_path):
    at = _feedback_branch(folder, tmp_path)
    [button] = _tree_buttons(at)
    button.click().run()
    assert not at.exception, at.exception
    sidecar = str(folder / "lc.branches.jsonl")
    assert dict(at.query_params) == {"file": sidecar, "trace": "1", "segment": "0"}
    assert any("line 1" in s.value for s in at.subheader)  # and the page shows it


def test_after_generate_the_comparison_shows_the_branch_just_made(folder, tmp_path):
    responses = _responses(tmp_path, RIGHT, RIGHT, RIGHT, RIGHT)
    at = _open(folder, 2, responses)
    at.text_area(key="iv-force-text").input("So 100 in all. <answer>100</answer>").run()
    generate(at)
    first = at.selectbox(key="iv-compare")
    assert first.format_func(first.value).startswith("#0 force segment 2")
    at.radio(key="iv-action").set_value("Resample").run()
    at.text_input(key="iv-samples").input("3").run()
    generate(at)
    assert not at.exception, at.exception
    samples = _branches(folder)[1:]
    picked = at.selectbox(key="iv-compare")
    assert picked.value == samples[-1].trace_id  # the newest, not #0
    labels = list(picked.options)
    assert labels[1:] == [
        f"#{n} resample from segment 2 · seed {s.run.spec.sampling.seed} · answer 100 · succeeded"
        for n, s in enumerate(samples, start=1)
    ]


def test_seventeen_samples_turn_generate_off_with_the_bound_shown(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()
    at.text_input(key="iv-samples").input("17").run()
    assert not at.exception
    assert at.button(key="iv-run").disabled
    assert any("samples must be 1..16 (the resamples" in w.value for w in at.warning)
    at.text_input(key="iv-samples").input("16").run()
    assert not at.button(key="iv-run").disabled


def test_an_empty_feedback_turns_generate_off_and_says_why(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Feedback").run()
    assert at.button(key="iv-run").disabled
    assert any("the feedback needs a text" in w.value for w in at.warning)


def test_a_click_on_a_rows_text_selects_the_row(folder, tmp_path):
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="0")
    table = next(d for d in at.dataframe if "flags" in d.value.columns)
    modes = set(table.proto.selection_mode)
    assert len(modes) == 2  # rows and cells: a click on any cell, the text too, selects
    # the table opens with the selected row; a click on a cell adds the cell: the cell wins
    assert picked_row({"rows": [0], "columns": [], "cells": [(2, "text")]}) == 2


def test_a_bad_spec_blanks_only_its_own_column(app_env):
    at = open_page("compare", file=str(app_env / "imported-real_responses.jsonl"), trace="2")
    at.text_input(key="compare-spec-1").input("sentance").run()
    assert not at.exception
    [error] = at.error
    assert "unknown segmenter 'sentance'" in error.value
    counts = [m for m in at.metric if m.label.startswith("`")]  # one per segmenter
    assert [m.value for m in counts][1] == "—"
    assert all("segment" in m.value for n, m in enumerate(counts) if n != 1)
    aligned = at.dataframe[0].value
    assert list(aligned.columns) == ["text", "steps", "line:\\n\\n"]


@pytest.mark.parametrize(("kind", "text"), [(Force, ""), (Feedback, " ")])
def test_the_library_refuses_what_the_panel_turns_off(kind, text):
    with pytest.raises(ValueError, match="needs a text"):
        kind(text)  # the intervention cannot even be made, so no branch can be asked for


def test_the_first_difference_is_the_first_one_after_the_intervention(folder):
    parent = next(read_traces(folder / "lc.jsonl"))
    texts_ = [s.text for s in parent.segments]
    forced = replay_trace(
        SegmentedEnvironment(
            environment_registry.get(
                name="leg_counting", adapter="reasoning_gym", size=100, seed=42
            ),
            "sentence",
        ),
        0,
        "".join([texts_[0], "Deer have four legs. ", "So 100 in all. <answer>100</answer>"]),
        model="scripted",
    )
    child = replace(
        forced,
        parent=BranchRecord(parent.trace_id, 1, Force("Deer have four legs. ")),
    )
    rows = aligned_view(parent, child, ("parent", "branch")).rows
    assert rows["note"].tolist() == ["kept", "intervention", "first difference", ""]
    assert rows["op"].tolist() == ["equal", "changed", "removed", "inserted"]  # 40 and 100 apart


def test_a_segment_that_differs_only_in_whitespace_says_so(folder, tmp_path):
    """After the forced segment 0, the model writes segment 1 with two spaces where the parent
    has one: that row is not the "first difference"; the next one, which says 48, is."""
    again = "Count the legs. Deer  have 4 legs. So 12 deer have 48. <answer>48</answer>"
    at = _open(folder, 0, _responses(tmp_path, again))
    at.text_area(key="iv-force-text").input("Count the legs. ").run()
    generate(at)
    assert not at.exception, at.exception
    aligned = next(d.value for d in at.dataframe if "note" in d.value.columns)
    rows = aligned.set_index("parent #")
    assert (rows.loc["1", "op"], rows.loc["1", "note"]) == ("changed", "only whitespace")
    assert (rows.loc["1", "parent"], rows.loc["1", "branch"]) == (
        "Deer·have·4·legs.·",
        "Deer{+·+}·have·4·legs.·",
    )  # the whitespace shown, since it is the difference, and the added space marked
    assert rows.loc["2", "note"] == "first difference"
    assert aligned["note"].tolist().count("first difference") == 1
