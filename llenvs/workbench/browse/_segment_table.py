"""The trace view's segment rows: index, text, per-step reward, PRM score, flags, colours.

A long trace is shown a window at a time: ``segment_window`` gives the ``WINDOW`` rows from just
above the selected segment, so the styled table never has more than ``WINDOW`` rows and the
selected one is in view.

A segment's step reward is the sum of its rewards that are not PRM scores (``NaN`` when it has
none; a ``human_label`` reward, which imports wrote before the label store, is not one either).
The last segment of a trace whose steps do not carry its final rewards (an imported trace) gets
them there, as the runner's terminal step does. Its PRM score is the lowest of its
``prm_scores`` (``NaN`` when none); the cumulative reward adds the step rewards up to it.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
    ...           segments=(SegmentRecord(0, 0, 3, "A. ", prm_scores={"p": 0.5},
    ...                                   rewards={"p": 0.5, "fmt": 1.0}),
    ...                     SegmentRecord(1, 3, 5, "B.", rewards={"fmt": 2.0})))
    >>> segment_table(t)[["#", "text", "reward", "cumulative", "PRM"]].values.tolist()
    [[0, 'A.·', 1.0, 1.0, 0.5], [1, 'B.', 2.0, 3.0, nan]]

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

import pandas as pd
from pandas.io.formats.style import Styler

from llenvs.traces import Trace
from llenvs.traces.importers import HUMAN_LABEL
from llenvs.workbench._whitespace import one_line
from llenvs.workbench.browse._function_tags import segment_tags, tag_colour

__all__ = [
    "BEFORE",
    "LABELLED_COLUMNS",
    "LABEL_COLOURS",
    "SELECTION_MODES",
    "WINDOW",
    "label_cell",
    "label_colour",
    "label_values",
    "picked_row",
    "score_colour",
    "segment_table",
    "segment_window",
    "styled_segments",
]

WINDOW = 200
"""The most segment rows the trace view shows at once."""

BEFORE = 4
"""Rows a window shows above the selected segment: it opens mid-view in a 360-pixel table."""

IN_VIEW = 8
"""Rows in view where a 360-pixel table opens (its header and about nine rows)."""

SELECTION_MODES: tuple[Literal["single-row", "single-cell"], ...] = ("single-row", "single-cell")
"""How the table selects: by a row's marker or by a click on any of its cells (its text too)."""


LABEL_COLOURS = {-1: (220, 60, 60), 0: (150, 150, 150), 1: (60, 180, 60)}
"""A step label's colour: red wrong (-1), grey neutral (0), green correct (+1)."""

LABELLED_COLUMNS = ("#", "cumulative", "label", "flags", "text")
"""The cells a labelled row is tinted in: all but the ones with colours of their own (``PRM``,
``reward``: by score; ``tags``: by function tag), which stay as they are."""


def label_colour(label: object, strength: float = 0.2) -> str:
    """A CSS background for a ``label`` cell's text ("+1", "-1", "0"; "" for none).

    ``strength`` is the colour's opacity: the ``label`` cell itself is drawn stronger than the
    rest of its row, so the row reads as tinted and the other colours stay legible.

    Example:
        >>> label_colour("-1"), label_colour("")
        ('background-color: rgba(220, 60, 60, 0.2)', '')
        >>> label_colour("+1", 0.5)
        'background-color: rgba(60, 180, 60, 0.5)'

    """
    value = _label_value(label)
    if value is None:
        return ""
    red, green, blue = LABEL_COLOURS[value]
    return f"background-color: rgba({red}, {green}, {blue}, {strength:g})"


def label_cell(label: int | None) -> str:
    """What a ``label`` cell shows for a step label (-1, 0 or 1; None: unlabelled).

    Example:
        >>> label_cell(1), label_cell(0), label_cell(-1), label_cell(None)
        ('+1', '0', '-1', '')

    """
    if label is None:
        return ""
    return "0" if label == 0 else f"{label:+d}"  # neutral has no sign


def label_values(table: pd.DataFrame) -> dict[int, int]:
    """``segment -> label`` of a ``segment_table``'s ``label`` column (unlabelled rows left out).

    Example:
        >>> label_values(pd.DataFrame({"#": [0, 1, 2], "label": ["+1", "", "-1"]}))
        {0: 1, 2: -1}

    """
    if "label" not in table.columns:
        return {}
    found = {}
    for segment, label in zip(table["#"].tolist(), table["label"].tolist(), strict=True):
        value = _label_value(label)
        if value is not None:
            found[int(segment)] = value
    return found


def picked_row(selection: Mapping[str, Any]) -> int | None:
    """The row a table selection picks: the row of its selected cell, else its selected row.

    ``selection`` is the dataframe's ``selection`` state (``rows``, ``columns``, ``cells``). The
    table opens with the selected segment's row selected; a click on a cell keeps that row
    selection and adds the cell, so the cell is the newer choice.

    Example:
        >>> picked_row({"rows": [3], "columns": [], "cells": []})
        3
        >>> picked_row({"rows": [0], "columns": [], "cells": [(2, "text")]})
        2
        >>> picked_row({"rows": [], "columns": []}) is None
        True

    """
    cells = list(selection.get("cells") or [])
    if cells:
        return int(cells[0][0])
    rows = list(selection.get("rows") or [])
    return int(rows[0]) if rows else None


def segment_table(trace: Trace, labels: Mapping[int, int] | None = None) -> pd.DataFrame:
    """One row per segment: ``#``, ``text``, step ``reward``, ``cumulative``, ``PRM``, and more.

    The last three columns are ``label``, ``flags`` and ``tags``.

    ``text`` is on one line, trailing spaces shown as ``·`` and newlines as ``↵``; ``label`` is
    the segment's human label in ``labels`` (segment -> -1, 0 or 1, from the label store:
    ``label_column.shown_labels``), empty where it has none; ``tags`` the segment's function
    tags, joined by ", " (empty when an imported study gave it none: ``function_tags``).

    Example:
        >>> list(segment_table(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="",
        ...                          segments=())).columns)
        ['#', 'text', 'reward', 'cumulative', 'PRM', 'label', 'flags', 'tags']
        >>> from llenvs.traces import SegmentRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
        ...           segments=(SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B.")))
        >>> segment_table(t, {1: -1})["label"].tolist()
        ['', '-1']

    """
    rows = []
    total = 0.0
    last = len(trace.segments) - 1
    for segment in trace.segments:
        own = {
            k: v
            for k, v in segment.rewards.items()
            if k not in segment.prm_scores and k != HUMAN_LABEL
        }
        if segment.index == last and not set(trace.final_rewards) & set(segment.rewards):
            own.update(trace.final_rewards)  # an imported trace: its outcome, on its last step
        reward = float(sum(own.values())) if own else math.nan
        total += 0.0 if math.isnan(reward) else reward
        label = (labels or {}).get(segment.index)
        rows.append(
            {
                "#": segment.index,
                "text": _shown(segment.text),
                "reward": reward,
                "cumulative": total,
                "PRM": min(segment.prm_scores.values()) if segment.prm_scores else math.nan,
                "label": label_cell(label),
                "flags": ", ".join(sorted(flag.value for flag in segment.flags)),
                "tags": ", ".join(segment_tags(segment)),
            }
        )
    columns = ["#", "text", "reward", "cumulative", "PRM", "label", "flags", "tags"]
    return pd.DataFrame(rows, columns=columns)


def segment_window(selected: int, total: int, size: int = WINDOW, before: int = BEFORE) -> range:
    """The segment indices the table shows (at most ``size``), among ``total``, at ``selected``.

    All of them when they fit; else a window that starts ``before`` rows above ``selected``,
    so the selected row is in view where the table opens (the table does not scroll to it),
    and ends ``size`` rows later or at the trace's end. Near the start, where the selected row
    is in view with the window at segment 0 (``IN_VIEW``), the window starts there: no
    segment before it is hidden for nothing.

    Example:
        >>> segment_window(5, 12), segment_window(0, 0), segment_window(5, 114, size=12)
        (range(0, 12), range(0, 0), range(0, 12))
        >>> segment_window(9_500, 10_000), segment_window(2, 10_000), segment_window(9_999, 10_000)
        (range(9496, 9696), range(0, 200), range(9995, 10000))
        >>> segment_window(158, 321)
        range(154, 321)

    """
    if size <= 0 or before < 0:
        raise ValueError(f"size must be > 0 and before >= 0, got size={size}, before={before}")
    if total <= size:
        return range(max(total, 0))
    start = 0 if selected < min(IN_VIEW, size) else min(max(selected - before, 0), total - 1)
    return range(start, min(start + size, total))


def score_colour(value: object) -> str:
    """A CSS background for a score in [0, 1]: red at 0, amber at 0.5, green at 1.

    Example:
        >>> score_colour(0.0), score_colour(float("nan"))
        ('background-color: rgba(220, 60, 60, 0.45)', '')

    """
    if not isinstance(value, int | float) or math.isnan(value):
        return ""
    x = min(max(float(value), 0.0), 1.0)
    if x < 0.5:
        red, green, blue = 220, int(60 + (190 - 60) * x * 2), 60
    else:
        red, green, blue = int(220 - (220 - 60) * (x - 0.5) * 2), int(190 - 10 * (x - 0.5) * 2), 60
    return f"background-color: rgba({red}, {green}, {blue}, 0.45)"


def styled_segments(table: pd.DataFrame, selected: int | None) -> Styler:
    """``table`` coloured by PRM score and reward, the ``selected`` row's index cell marked.

    The ``tags`` column, when there is one, is coloured by each row's first tag (``tag_colour``);
    a labelled row is tinted by its label (``label_colour``: the ``label`` cell strongly, the
    other ``LABELLED_COLUMNS`` lightly), leaving the score and tag colours as they are.

    Example:
        >>> t = pd.DataFrame({"#": [0], "text": ["a"], "reward": [1.0], "cumulative": [1.0],
        ...                   "PRM": [0.0], "label": [""], "flags": [""]})
        >>> "rgba(220, 60, 60" in styled_segments(t, 0).to_html()
        True
        >>> "rgba(60, 180, 60, 0.5)" in styled_segments(t.assign(label=["+1"]), 0).to_html()
        True

    """
    # Shown as text: Streamlit draws a missing number as "None" whatever the Styler's na_rep.
    rewards, scores = table["reward"].tolist(), table["PRM"].tolist()
    shown = table.assign(
        reward=[_number(v, "{:.3g}") for v in rewards], PRM=[_number(v, "{:.3f}") for v in scores]
    )
    style = shown.style.apply(lambda _: [score_colour(v) for v in scores], subset=["PRM"]).apply(
        lambda _: [
            "" if math.isnan(v) else score_colour(1.0 if v > 0 else 0.0 if v < 0 else 0.5)
            for v in rewards
        ],
        subset=["reward"],
    )
    if "tags" in table.columns:
        style = style.map(tag_colour, subset=["tags"])
    if "label" in table.columns and table["label"].astype(bool).any():
        labels = table["label"].tolist()
        tinted = [column for column in LABELLED_COLUMNS if column in table.columns]
        style = style.apply(
            lambda column: [
                label_colour(label, 0.5 if column.name == "label" else 0.2) for label in labels
            ],
            subset=tinted,
        )
    style = style.format({"cumulative": "{:.3g}"})
    if selected is not None and selected in table.index:
        style = style.set_properties(
            subset=pd.IndexSlice[[selected], ["#"]], **{"font-weight": "bold", "color": "#1565c0"}
        )
    return style


def _label_value(label: object) -> int | None:
    """The label a ``label`` cell shows ("+1" -> 1), None for an empty cell."""
    text = str(label).strip()
    if not text:
        return None
    value = int(text)
    if value not in LABEL_COLOURS:
        raise ValueError(f"a step label must be -1, 0 or 1, got {label!r}")
    return value


def _number(value: float, form: str) -> str:
    return "–" if math.isnan(value) else form.format(value)


def _shown(text: str) -> str:
    stripped = text.rstrip(" ")
    return one_line(stripped + "·" * (len(text) - len(stripped)), 400)
