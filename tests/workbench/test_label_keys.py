"""Label mode's pieces that need no page: what each key writes, the history in words, the row
colours and the chart marks of labels, and the labeller's setting."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from llenvs.analysis import StepAnalysis
from llenvs.traces import StepLabel, append_labels, read_labels
from llenvs.workbench.browse import (
    LabelKey,
    describe_history,
    label_colour,
    label_values,
    styled_segments,
    value_rows,
)
from llenvs.workbench.charts import LABEL_MARKS, layer_names, segment_figure, step_values_figure
from llenvs.workbench.models import Settings, load_settings, save_settings
from tests.chart_specs import colour_of, layer


def test_each_key_labels_the_selected_step():
    written = {
        key.value: [(label.segment, label.label) for label in key.labels("t", 2, 5, "ada")]
        for key in (LabelKey.WRONG, LabelKey.NEUTRAL, LabelKey.CORRECT)
    }
    assert written == {"1": [(2, -1)], "2": [(2, 0)], "3": [(2, 1)]}
    held = {2: StepLabel("t", 2, 1, "ada")}
    [cleared] = LabelKey.CLEAR.labels("t", 2, 5, "ada", current=held)
    assert cleared.cleared and cleared.segment == 2


def test_first_error_labels_earlier_steps_correct_and_leaves_later_ones():
    held = {
        0: StepLabel("t", 0, 1, "ada", note="fine"),
        1: StepLabel("t", 1, -1, "ada"),
        4: StepLabel("t", 4, 0, "ada"),
    }
    written = LabelKey.FIRST_ERROR.labels("t", 3, 5, "ada", note="wrong sign", current=held)
    assert [(label.segment, label.label, label.note) for label in written] == [
        (1, 1, ""),  # was -1: now +1; step 0 was +1 already (its note stays)
        (2, 1, ""),
        (3, -1, "wrong sign"),
    ]


def test_a_key_that_changes_nothing_writes_nothing_but_a_new_note_is_a_change():
    held = {1: StepLabel("t", 1, 1, "ada", note="ok")}
    assert LabelKey.CORRECT.labels("t", 1, 3, "ada", note="ok", current=held) == ()
    [renoted] = LabelKey.CORRECT.labels("t", 1, 3, "ada", note="ok, checked", current=held)
    assert renoted.note == "ok, checked"
    assert LabelKey.CLEAR.labels("t", 0, 3, "ada", current=held) == ()


def test_a_key_outside_the_trace_is_refused():
    with pytest.raises(ValueError, match="segment 3 is not in a trace of 3 segments"):
        LabelKey.CORRECT.labels("t", 3, 3, "ada")


def test_the_history_says_who_changed_what_when_newest_first(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada", time="2026-01-01T10:00:00+00:00")])
    append_labels(trace_file, [StepLabel("t", 0, -1, "bo", time="2026-01-01T11:00:00+00:00")])
    append_labels(
        trace_file,
        [StepLabel("t", 0, -1, "ada", note="2 + 2\nis 4", time="2026-01-01T12:00:00+00:00")],
    )
    append_labels(trace_file, [StepLabel("t", 0, None, "bo", time="2026-01-01T13:00:00+00:00")])
    lines = describe_history(read_labels(trace_file).changes("t", 0)).splitlines()
    assert lines == [
        "2026-01-01 13:00:00 · bo: −1 → none (cleared)",
        "2026-01-01 12:00:00 · ada: +1 → −1 · note: 2 + 2↵is 4",
        "2026-01-01 11:00:00 · bo: none → −1",
        "2026-01-01 10:00:00 · ada: none → +1",
    ]


def _table(labels: list[str]) -> pd.DataFrame:
    count = len(labels)
    return pd.DataFrame(
        {
            "#": range(count),
            "text": ["a"] * count,
            "reward": [math.nan] * count,
            "cumulative": [0.0] * count,
            "PRM": [0.5] * count,
            "label": labels,
            "flags": [""] * count,
            "tags": ["plan_generation"] * count,
        }
    )


def test_labelled_rows_are_tinted_and_the_score_and_tag_colours_stay():
    table = _table(["-1", "", "+1", "0"])
    styles = styled_segments(table, 1)._compute().ctx
    column = {name: number for number, name in enumerate(table.columns)}

    def background(row: int, name: str) -> str:
        found = [
            value for prop, value in styles.get((row, column[name]), []) if "background" in prop
        ]
        return found[-1] if found else ""

    assert background(0, "label") == "rgba(220, 60, 60, 0.5)"
    assert background(0, "text") == "rgba(220, 60, 60, 0.2)"
    assert background(2, "#") == "rgba(60, 180, 60, 0.2)"
    assert background(3, "label") == "rgba(150, 150, 150, 0.5)"
    assert background(1, "text") == ""  # unlabelled: no tint
    for row in range(4):  # the PRM score's colour and the tag's colour are untouched
        assert background(row, "PRM") == "rgba(220, 190, 60, 0.45)"
        assert background(row, "tags").startswith("rgba(31, 119, 180")
    assert label_colour("") == ""


def test_the_segment_chart_marks_the_labelled_segments():
    table = _table(["-1", "", "+1", "0"])
    assert label_values(table) == {0: -1, 2: 1, 3: 0}
    marks = layer(segment_figure(table, 1), LABEL_MARKS)
    assert [m["segment"] for m in marks["data"]["values"]] == [0, 2, 3]
    assert [colour_of(marks["encoding"], m["label"]) for m in marks["data"]["values"]] == [
        "rgb(220, 60, 60)",
        "rgb(60, 180, 60)",
        "rgb(150, 150, 150)",
    ]
    assert LABEL_MARKS not in layer_names(segment_figure(_table(["", ""]), 0))


def test_the_step_values_chart_marks_the_labelled_segments():
    rows = value_rows(4, StepAnalysis("t", {}, (), (), None, ()))
    values, importances = step_values_figure(rows, 1, labels={1: -1, 3: 1})
    marks = layer(values, LABEL_MARKS)  # on the values, above
    assert [m["segment"] for m in marks["data"]["values"]] == [1, 3]
    assert LABEL_MARKS not in layer_names(importances)
    assert LABEL_MARKS not in layer_names(step_values_figure(rows, 1)[0])


def test_the_labeller_is_a_setting_saved_with_the_others(tmp_path):
    assert Settings().labeller == ""
    save_settings(tmp_path, Settings(labeller="Ada Lovelace"))
    assert load_settings(tmp_path).labeller == "Ada Lovelace"
    for bad in (" ada", "ada\nbo"):
        with pytest.raises(ValueError, match="labeller must be a name"):
            Settings(labeller=bad)
