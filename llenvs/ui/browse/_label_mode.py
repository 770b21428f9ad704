"""Browse's label mode: label a trace's steps from the keyboard, one after another.

Off by default, so browsing is as without it. Turned on (the ``LABEL_MODE`` switch above the
segment table), the segment moves (``j``/``k``), the segment rows beside their chart, and the
selected step (its text, the label keys, its note and its label history) become one fragment
(``labelling_panel``): a key press reruns only that, not the page, so the label shows and the
next segment is selected at once. To keep that quick (``bench/labelling.py`` measures it): the
rows are a window of ``LABEL_WINDOW``, in a grid kept from key to key and updated in place
(``segment_rows``'s ``key``); the chart is a small SVG picture of the lines with the labels
marked (``outline_svg``), not a Plotly chart, which the browser would draw anew at every key;
the table is built once per trace and only its ``label`` column filled in at each key, and the
label store is parsed once, then only the lines appended (``cached_labels``: a label another
labeller or process appends shows at the next key too). Segments are selected with the keys
and the rows. Keys (``LabelKey``): ``1`` wrong (-1),
``2`` neutral (0), ``3`` correct (+1), ``0`` clear, ``f`` first error here (this step -1, every
earlier one +1). Each appends to the trace file's label store (``append_labels``, under its
lock), with the note typed for the step, then selects the next segment among those the table
shows (``step_among``, as ``j`` does).

Labels are written under the labeller's name set in Settings (``Settings.labeller``); until it
is set the keys are off and a message points there. In label mode the ``label`` column, the row
colours and the chart's marks show that labeller's labels; the history shows every labeller's.
The step values chart and the intervention panel sit outside the fragment: the step values chart
is drawn with the labels again when the page next runs (leaving label mode, another trace), and
the intervention panel is left out in label mode (its segment would not follow the keys).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from enum import Enum

import streamlit as st

from llenvs.traces import StepLabel, Trace, append_labels
from llenvs.ui.browse._queue_walk import next_location, queue_caption, walked_queue
from llenvs.ui.browse._segment_panel import segment_rows_table
from llenvs.ui.browse._segment_rows import chosen_tags, segment_rows
from llenvs.ui.common import go_to, key_queue, read_location, shows_errors, text_block
from llenvs.workbench import MODE_PARAM, BrowseLocation
from llenvs.workbench.browse import LabelKey, describe_history, label_words, tagged_segments
from llenvs.workbench.charts import outline_svg
from llenvs.workbench.files import cached_labels, traces_dir
from llenvs.workbench.models import load_settings

__all__ = [
    "LABEL_MODE",
    "LABEL_PARAM",
    "LABEL_ROWS",
    "NOTE",
    "BrowseMode",
    "label_mode",
    "label_mode_switch",
    "labeller_name",
    "labelling_panel",
    "note_key",
]

LABEL_MODE = "label-mode"
"""The key of the switch between browsing and label mode (browsing by default)."""

LABEL_PARAM = "label"
"""``MODE_PARAM``'s value in label mode."""

NOTE = "label-note"
"""The note input's key, followed by ``-``, the trace id, ``-`` and the segment."""

TEXT_LIMIT = 20_000
"""The most characters of the selected step's text drawn at once (Browse's ``TEXT_LIMIT``)."""

LABEL_WINDOW = 12
"""The most segment rows label mode shows at once (every key redraws them): enough to fill
the table's height."""

LABEL_ROWS = "label-rows"
"""The key label mode's grid is drawn under (``segment_rows``): kept from key to key."""

_PROBLEM = "label-problem"
"""Where a key press leaves what stopped it (no labeller, a write that failed) for the panel."""


class BrowseMode(Enum):
    """What the trace view is for: browsing (the default) or labelling steps."""

    BROWSE = "Browse"
    LABEL = "Label steps"


def label_mode() -> bool:
    """Whether label mode is on: its switch's state, readable before the switch is drawn.

    Example:
        >>> label_mode()  # outside a running app: off
        False

    """
    try:
        if LABEL_MODE not in st.session_state:  # a reload: the URL says
            return st.query_params.get(MODE_PARAM) == LABEL_PARAM
        return st.session_state.get(LABEL_MODE) == BrowseMode.LABEL
    except Exception:  # no session outside a running app
        return False


def label_mode_switch() -> bool:
    """Draw the switch between browsing and label mode; whether label mode is on.

    A pair of buttons rather than a checkbox: the browser keeps the focus on the control just
    clicked, and keys typed in a checkbox, like in a text box, are not shortcuts.
    """
    if LABEL_MODE not in st.session_state:  # the URL's mode, on a reload or a shared link
        st.session_state[LABEL_MODE] = BrowseMode.LABEL if label_mode() else BrowseMode.BROWSE
    mode = st.segmented_control(
        "Mode",
        list(BrowseMode),
        required=True,
        on_change=_mode_to_url,
        format_func=lambda mode: mode.value,
        key=LABEL_MODE,
        label_visibility="collapsed",
        help="Label steps from the keyboard: 1 wrong (−1), 2 neutral (0), 3 correct (+1), "
        "0 clear, f first error here (this step −1, every earlier one +1); each key selects "
        "the next segment. Labels are saved beside the trace file, under your name from "
        "Settings, never in the trace.",
    )
    return mode == BrowseMode.LABEL


def _mode_to_url() -> None:
    """Keep the switch's mode in the URL (``mode=label``; nothing while browsing)."""
    if st.session_state.get(LABEL_MODE) == BrowseMode.LABEL:
        st.query_params[MODE_PARAM] = LABEL_PARAM
    elif MODE_PARAM in st.query_params:
        del st.query_params[MODE_PARAM]


def labeller_name() -> str:
    """The labeller's name set in Settings; "" when none is (or the settings cannot be read).

    Example:
        >>> import os, tempfile
        >>> from unittest import mock
        >>> with mock.patch.dict(os.environ, {"LLENVS_TRACES_DIR": tempfile.mkdtemp()}):
        ...     labeller_name()
        ''

    """
    try:
        return load_settings(traces_dir()).labeller
    except ValueError:
        return ""


def note_key(trace_id: str, segment: int) -> str:
    """The key of the note input of one step.

    Example:
        >>> note_key("t1", 4)
        'label-note-t1-4'

    """
    return f"{NOTE}-{trace_id}-{segment}"


@st.fragment
def labelling_panel(path: str, line: int, trace: Trace) -> None:
    """Draw label mode for ``trace`` (on ``line`` of ``path``); a key press reruns only this.

    The selected segment is the URL's (``go_to`` puts it there: the page, before calling
    this, and every move here), so a rerun of this fragment alone follows it.
    """
    with shows_errors(f"label mode, line {line}"):
        here = _selected(path, line, trace)
        labeller = labeller_name()
        if not labeller:
            st.warning(
                "Set your name as labeller in Settings to label steps: every label is saved "
                "with it.",
                icon=":material/badge:",
            )
            st.page_link(
                "pages/settings.py",
                label="Settings: your name as labeller",
                icon=":material/settings:",
            )
        problem = st.session_state.pop(_PROBLEM, None)
        if problem:
            st.error(problem, icon=":material/error:")
        stepped = _stepped(trace)
        keys = "jk" + "".join(key.value for key in LabelKey)
        key_queue("label-keys", keys, here, functools.partial(_label_key, trace, stepped))
        _moves(here, stepped)
        table = segment_rows_table(path, line, trace, labeller or None)
        left, right = st.columns([3, 2])
        with left:
            window = segment_rows(trace, table, here, LABEL_WINDOW, key=LABEL_ROWS)
        with right:  # redrawn at every key: a picture, selected with the keys and the rows
            st.markdown(outline_svg(table, here.segment, window), unsafe_allow_html=True)
        if trace.segments:
            _selected_step(path, trace, here, labeller, stepped)
        else:
            st.info("This trace has no segments: there is no step to label.")


def _selected(path: str, line: int, trace: Trace) -> BrowseLocation:
    """The selected segment of ``trace``: the URL's, within the trace."""
    wanted = read_location().segment
    return BrowseLocation(path, line, min(wanted, max(len(trace.segments) - 1, 0)))


def _stepped(trace: Trace) -> Sequence[int]:
    """The segments the keys step among: those the table shows (all, or the tag filter's)."""
    return tagged_segments(trace, chosen_tags(trace.trace_id))


def _moves(here: BrowseLocation, stepped: Sequence[int]) -> None:
    """Previous and next segment (``k``, ``j``), as Browse's navigation has them."""
    queue = walked_queue()
    if queue is not None:
        st.caption(queue_caption(here, queue))
    back, on, about = st.columns([1, 1, 3], vertical_alignment="center")
    for column, label, shortcut, step in ((back, "◀ segment", "k", -1), (on, "segment ▶", "j", 1)):
        column.button(
            label,
            key=f"nav-{shortcut}",
            on_click=go_to,
            args=(next_location(here, stepped, step, queue),),
            help=f"shortcut: {shortcut}",
            width="stretch",
        )
    about.caption(
        "Keys: 1 −1 wrong · 2 0 neutral · 3 +1 correct · 0 clear · f first error here "
        "(earlier steps +1) · j/k next/previous segment"
    )


def _selected_step(
    path: str, trace: Trace, here: BrowseLocation, labeller: str, stepped: Sequence[int]
) -> None:
    """The selected step: its text, the label keys, its note, its label history."""
    segment = here.segment
    record = trace.segments[segment]
    labels = cached_labels(path)
    held = labels.latest(labeller).get(trace.trace_id, {}) if labeller else {}
    mine = held.get(segment)
    st.markdown(
        f"**Labelling segment {segment}** of {len(trace.segments)} · your label: "
        f"**{label_words(None if mine is None else mine.label)}**"
    )
    text_block(record.text[:TEXT_LIMIT])
    if len(record.text) > TEXT_LIMIT:
        st.caption(
            f"The first {TEXT_LIMIT:,} of its {len(record.text):,} characters; label mode off "
            "shows all of them."
        )
    columns = st.columns(len(LabelKey))
    for column, key in zip(columns, LabelKey, strict=True):
        column.button(
            key.words,
            key=f"label-{key.value}",
            on_click=_clicked,
            args=(here, trace, key, tuple(stepped)),
            disabled=not labeller,
            help=_KEY_HELP[key],
            width="stretch",
        )
    st.text_input(
        f"Note on segment {segment}",
        value="" if mine is None else mine.note,
        key=note_key(trace.trace_id, segment),
        on_change=_save_note,
        args=(here, trace),
        disabled=not labeller,
        placeholder="Why this label? Saved with the label the next key gives this step",
        help="Type the note, leave the box (Tab), then press a label key: the note is saved "
        "with that label (keys typed in the box are text). Changing the note of a labelled "
        "step saves it with the same label.",
    )
    changes = labels.changes(trace.trace_id, segment)
    if changes:
        st.caption("This step's label history, newest first (every labeller):")
        st.text(describe_history(changes))
    else:
        st.caption("No label on this step yet.")


_KEY_HELP = {
    LabelKey.WRONG: "This step is wrong (−1). Shortcut: 1",
    LabelKey.NEUTRAL: "This step is right but makes no progress (0). Shortcut: 2",
    LabelKey.CORRECT: "This step is correct (+1). Shortcut: 3",
    LabelKey.CLEAR: "Clear your label of this step. Shortcut: 0",
    LabelKey.FIRST_ERROR: "The first error is here: this step −1, every earlier step +1, the "
    "later ones as they are. Shortcut: f",
}


def _label_key(
    trace: Trace, stepped: Sequence[int], key: str, here: BrowseLocation
) -> BrowseLocation:
    """One press of label mode's keys on ``here`` (a move, or a label); where it went."""
    if key in "jk":
        target = next_location(here, stepped, 1 if key == "j" else -1, walked_queue())
        go_to(target)
        return target
    return _press(here, trace, LabelKey(key), stepped)


def _clicked(here: BrowseLocation, trace: Trace, key: LabelKey, stepped: Sequence[int]) -> None:
    """A label key's button, clicked: as its key."""
    _press(here, trace, key, stepped)


def _press(
    here: BrowseLocation, trace: Trace, key: LabelKey, stepped: Sequence[int]
) -> BrowseLocation:
    """A label key: write its labels for the selected step, then select the next segment.

    Returns the segment selected after it (``here`` when nothing was written).
    """
    assert here.file is not None
    labeller = labeller_name()
    if not labeller:
        st.session_state[_PROBLEM] = (
            "No label was saved: set your name as labeller in Settings first."
        )
        return here
    held = cached_labels(here.file).latest(labeller).get(trace.trace_id, {})
    note = _typed_note(trace.trace_id, here.segment, held)
    try:
        written = key.labels(
            trace.trace_id, here.segment, len(trace.segments), labeller, note, held
        )
        append_labels(here.file, written)
    except (OSError, ValueError) as error:
        st.session_state[_PROBLEM] = f"No label was saved: {type(error).__name__}: {error}"
        return here
    target = next_location(here, stepped, 1, walked_queue())
    go_to(target)
    return target


def _save_note(here: BrowseLocation, trace: Trace) -> None:
    """A note changed: save it with the step's label, when the labeller has labelled it."""
    assert here.file is not None
    labeller = labeller_name()
    if not labeller:
        return
    held = cached_labels(here.file).latest(labeller).get(trace.trace_id, {})
    mine = held.get(here.segment)
    note = _typed_note(trace.trace_id, here.segment, held)
    if mine is None or note == mine.note:
        return  # an unlabelled step: the note waits for its label
    try:
        append_labels(
            here.file, [StepLabel(trace.trace_id, here.segment, mine.label, labeller, note)]
        )
    except OSError as error:
        st.session_state[_PROBLEM] = f"The note was not saved: {type(error).__name__}: {error}"


def _typed_note(trace_id: str, segment: int, held: Mapping[int, StepLabel]) -> str:
    """The note typed for a step; its stored note when none was typed."""
    stored = held.get(segment)
    typed = st.session_state.get(note_key(trace_id, segment))
    if typed is None:
        return "" if stored is None else stored.note
    return str(typed).strip()
