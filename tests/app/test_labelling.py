"""Browse's label mode under AppTest: the keys 1 2 3 0 f, first-error mode, notes, the history,
the labeller required, and browsing left as it was while label mode is off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llenvs.traces import (
    SegmentRecord,
    StepLabel,
    TaskRecord,
    Trace,
    append_labels,
    labels_path,
    read_labels,
    read_traces,
    write_traces,
)
from llenvs.ui.browse import LABEL_MODE, BrowseMode, note_key
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import Settings, save_settings
from tests.app.test_big_traces import select
from tests.app.test_pages import open_page, texts

STEPS = ["Two and two. ", "That is 4. ", "Times 3 is 13. ", "So 13. ", "Check: 13. ", "Done. "]


def _trace_of(texts: list[str], task: TaskRecord, **fields: object) -> Trace:
    """A trace whose segments are ``texts``, in turn."""
    segments, offset = [], 0
    for index, text in enumerate(texts):
        segments.append(SegmentRecord(index, offset, offset + len(text), text))
        offset += len(text)
    return Trace(task=task, response="".join(texts), segments=tuple(segments), **fields)


def _trace() -> Trace:
    task = TaskRecord("arith", "test", {}, 0, "(2 + 2) × 3?")
    return _trace_of(STEPS, task, final_rewards={"correctness": 0.0}, success=False)


@pytest.fixture
def trace_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    path = tmp_path / "runs.jsonl"
    write_traces(path, [_trace()])
    return path


@pytest.fixture
def labeller(trace_file: Path) -> str:
    save_settings(trace_file.parent, Settings(labeller="ada"))
    return "ada"


def _trace_id(trace_file: Path) -> str:
    return next(read_traces(trace_file)).trace_id


def _label_mode(trace_file: Path, segment: int = 0):
    at = open_page("browse", file=str(trace_file), trace="1", segment=str(segment))
    at.button_group(key=LABEL_MODE).set_value(BrowseMode.LABEL).run()
    assert not at.exception
    return at


def _segment(at) -> int:
    return int(str(at.query_params["segment"]).strip("[]'"))


def _line(at) -> int:
    return int(str(at.query_params["trace"]).strip("[]'"))


def _latest(trace_file: Path, labeller: str = "ada") -> dict[int, int | None]:
    [steps] = read_labels(trace_file).latest(labeller).values() or [{}]
    return {segment: label.label for segment, label in steps.items()}


def _shown_labels(at) -> list[str]:
    return at.dataframe[1].value["label"].tolist()


def _press(at, key: str):
    at.button(key=f"label-{key}").click().run()
    assert not at.exception
    return at


def test_keys_1_2_3_label_the_step_and_select_the_next_and_0_clears(trace_file, labeller):
    at = _label_mode(trace_file)
    # the keys go through label mode's key queue (every press counts), not button shortcuts,
    # which merge the presses that come during one run
    assert all(not at.button(key=f"label-{key}").proto.shortcut for key in "1230f")
    applied, here = at.session_state["key-queue-applied-label-keys"]
    assert applied == 0 and here.segment == 0
    assert "**Labelling segment 0** of 6" in texts(at)
    _press(at, "3")
    assert _segment(at) == 1 and "**Labelling segment 1** of 6" in texts(at)
    assert _latest(trace_file) == {0: 1}
    _press(at, "1")
    _press(at, "2")
    assert _segment(at) == 3
    assert _latest(trace_file) == {0: 1, 1: -1, 2: 0}
    assert _shown_labels(at)[:4] == ["+1", "-1", "0", ""]
    at.button(key="nav-k").click().run()  # back to step 2 (k, as in browsing)
    assert _segment(at) == 2 and "your label: **0**" in texts(at)
    _press(at, "0")
    assert _segment(at) == 3
    assert _latest(trace_file) == {0: 1, 1: -1}
    assert _shown_labels(at)[:3] == ["+1", "-1", ""]
    changes = read_labels(trace_file).changes(_trace_id(trace_file), 2)
    assert [(c.previous, c.label) for c in changes] == [(None, 0), (0, None)]


def test_f_marks_the_first_error_every_earlier_step_correct_later_ones_untouched(
    trace_file, labeller
):
    trace_id = _trace_id(trace_file)
    append_labels(trace_file, [StepLabel(trace_id, 5, 1, "ada"), StepLabel(trace_id, 0, -1, "ada")])
    at = _label_mode(trace_file, segment=2)
    _press(at, "f")
    assert _latest(trace_file) == {0: 1, 1: 1, 2: -1, 5: 1}
    assert _segment(at) == 3
    assert _shown_labels(at) == ["+1", "+1", "-1", "", "", "+1"]


def test_a_note_is_saved_with_the_label_and_the_history_shows_every_labeller(trace_file, labeller):
    trace_id = _trace_id(trace_file)
    append_labels(trace_file, [StepLabel(trace_id, 2, 1, "bo", note="looks fine")])
    at = _label_mode(trace_file, segment=2)
    assert "bo: none → +1 · note: looks fine" in texts(at)
    at.text_input(key=note_key(trace_id, 2)).input("4 × 3 is 12, not 13").run()
    assert read_labels(trace_file).latest("ada") == {}  # an unlabelled step: the note waits
    _press(at, "1")
    [mine] = read_labels(trace_file).latest("ada")[trace_id].values()
    assert (mine.segment, mine.label, mine.note) == (2, -1, "4 × 3 is 12, not 13")
    at.button(key="nav-k").click().run()
    history = texts(at)
    assert "ada: none → −1 · note: 4 × 3 is 12, not 13" in history
    assert history.index("ada: none → −1") < history.index("bo: none → +1")  # newest first
    # Changing the note of a labelled step saves it with the same label.
    at.text_input(key=note_key(trace_id, 2)).input("12, not 13").run()
    latest = read_labels(trace_file).latest("ada")[trace_id][2]
    assert (latest.label, latest.note, latest.previous) == (-1, "12, not 13", -1)


def test_labelling_needs_a_labeller_set_in_settings(trace_file):
    at = _label_mode(trace_file)
    [warning] = at.warning
    assert "Set your name as labeller in Settings" in warning.value
    assert "Settings: your name as labeller" in [link.proto.label for link in at.get("page_link")]
    assert all(at.button(key=f"label-{key}").disabled for key in "1230f")
    # Once set in Settings, the same page labels, under that name.
    settings = open_page("settings")
    settings.text_input(key="settings-labeller").input("  Ada   L  ").run()
    settings.button(key="settings-save").click().run()
    assert not settings.exception
    at.run()
    assert not at.warning and not at.button(key="label-3").disabled
    _press(at, "3")
    assert _latest(trace_file, "Ada L") == {0: 1}
    # Taken away again (Settings in another tab) after the keys were drawn: a key writes nothing.
    save_settings(trace_file.parent, Settings())
    _press(at, "1")
    assert _latest(trace_file, "Ada L") == {0: 1} and _segment(at) == 1
    assert "No label was saved: set your name as labeller in Settings first." in texts(at)
    assert len(read_labels(trace_file).history) == 1


def test_browsing_is_as_before_while_label_mode_is_off(trace_file, labeller):
    at = open_page("browse", file=str(trace_file), trace="1", segment="1")
    assert at.button_group(key=LABEL_MODE).value == BrowseMode.BROWSE
    assert not [b for b in at.button if b.key and b.key.startswith("label-")]
    assert "Segment 1" in [tab.label for tab in at.tabs]
    at.button(key="nav-j").click().run()
    assert _segment(at) == 2 and "Segment 2" in [tab.label for tab in at.tabs]
    assert not labels_path(trace_file).exists()


def _long_trace(n: int = 40) -> Trace:
    texts = [f"Step {index} says {index * 7}. " for index in range(n)]
    return _trace_of(texts, TaskRecord("arith", "test", {}, 1, "Count by sevens."))


@pytest.fixture
def long_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    path = tmp_path / "long.jsonl"
    write_traces(path, [_long_trace()])
    save_settings(tmp_path, Settings(labeller="ada"))
    return path


def _chart(at) -> str:
    [svg] = [m.value for m in at.markdown if m.value.startswith("<svg")]
    return svg


def test_a_key_updates_the_grid_drawn_and_the_charts_label_marks(long_file):
    at = _label_mode(long_file, segment=10)
    grid = at.dataframe[1].proto.id
    assert "labelled" not in _chart(at)
    _press(at, "3")
    assert _segment(at) == 11
    assert at.dataframe[1].proto.id == grid  # the same grid, its rows updated: not a new one
    rows = at.dataframe[1].value
    assert rows.loc[rows["#"] == 10, "label"].tolist() == ["+1"]
    assert "segment 10: labelled +1 correct" in _chart(at)  # the chart's marks, at once
    _press(at, "1")
    assert at.dataframe[1].proto.id == grid
    assert "segment 11: labelled -1 wrong" in _chart(at)
    # A click on a row selects its segment in a new grid, opened with that row selected.
    shown = at.dataframe[1].value["#"].tolist()
    select(at, at.dataframe[1], {"rows": [2], "columns": [], "cells": []})
    assert _segment(at) == shown[2]
    assert at.dataframe[1].proto.id != grid
    [row] = json.loads(at.dataframe[1].proto.selection_default)["selection"]["rows"]
    assert at.dataframe[1].value["#"].tolist()[row] == shown[2]


def test_labels_another_writer_appends_show_at_the_next_key(long_file):
    trace_id = _trace_id(long_file)
    at = _label_mode(long_file, segment=10)
    # Written outside this session: another labeller, and the same one in another tab.
    append_labels(long_file, [StepLabel(trace_id, 11, 1, "bo"), StepLabel(trace_id, 13, -1, "ada")])
    _press(at, "3")
    rows = at.dataframe[1].value
    assert rows.loc[rows["#"].isin([10, 11, 13]), "label"].tolist() == ["+1", "", "-1"]
    assert "bo: none → +1" in texts(at)  # segment 11's history: every labeller's
    assert "segment 13: labelled -1 wrong" in _chart(at)
    assert _latest(long_file) == {10: 1, 13: -1}


def test_label_mode_is_kept_in_the_url_over_a_reload_and_a_move(trace_file, labeller):
    at = _label_mode(trace_file)
    assert str(at.query_params["mode"]).strip("[]'") == "label"
    _press(at, "3")  # a move keeps the mode in the URL
    assert _segment(at) == 1 and str(at.query_params["mode"]).strip("[]'") == "label"
    reloaded = open_page("browse", file=str(trace_file), trace="1", segment="1", mode="label")
    assert not reloaded.exception
    assert reloaded.button_group(key=LABEL_MODE).value == BrowseMode.LABEL
    assert "**Labelling segment 1** of 6" in texts(reloaded)
    reloaded.button_group(key=LABEL_MODE).set_value(BrowseMode.BROWSE).run()
    assert "mode" not in reloaded.query_params


def test_a_label_queue_in_the_url_is_walked_by_the_keys_across_traces(tmp_path, monkeypatch):
    """Opened from Search's queue: a key labels the step and goes to the queue's next step, in
    another trace; j and k walk the queue; off its end the keys step through the trace."""
    from llenvs.workbench import QUEUE_PARAM
    from llenvs.workbench.search import QueueEntry, queue_folder, write_label_queue

    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    path = tmp_path / "runs.jsonl"
    write_traces(path, [_trace(), _trace()])
    save_settings(tmp_path, Settings(labeller="ada"))
    queue = queue_folder(tmp_path) / "wrong.queue.jsonl"
    write_label_queue(queue, [QueueEntry(str(path), 2, 2), QueueEntry(str(path), 1, 4)])
    params = {"file": str(path), "trace": "2", "segment": "2", "mode": "label"}
    at = open_page("browse", **params, **{QUEUE_PARAM: str(queue)})
    assert not at.exception
    assert "Label queue wrong.queue.jsonl: step 1 of 2; j/k and the keys walk it." in texts(at)
    _press(at, "1")
    assert (_line(at), _segment(at)) == (1, 4)  # the queue's next step
    assert "step 2 of 2" in texts(at)
    at.button(key="nav-k").click().run()  # back along the queue, to the other trace
    assert (_line(at), _segment(at)) == (2, 2)
    at.button(key="nav-j").click().run()
    _press(at, "3")  # the queue's last step: the trace's next segment
    assert (_line(at), _segment(at)) == (1, 5)
    labels = read_labels(path).latest("ada")
    ids = [t.trace_id for t in read_traces(path)]
    assert {t: {s: lab.label for s, lab in steps.items()} for t, steps in labels.items()} == {
        ids[1]: {2: -1},
        ids[0]: {4: 1},
    }
