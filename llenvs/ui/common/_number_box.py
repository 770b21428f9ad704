"""A number box: its range in its label, and what it clamps or refuses said under it.

Every number the workbench takes is typed in one of these. A text box, not Streamlit's number
input: a browser's number input sends nothing outside its range (past 2**53 when it has none),
so the page would act on the last number it got while the box showed another. Here the page
reads what the box holds (``read_number``): a number in range is used; one outside is clamped
(a caption says to what) or refused (an error names the range), and the caller acts on
``NumberEntry.value`` only, so an action whose box refuses is off and a plan's caption states
the number used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypedDict, Unpack, overload

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from llenvs.core import Bound
from llenvs.workbench import (
    FloatBound,
    NumberEntry,
    OutOfRange,
    allowed,
    read_number,
)

__all__ = ["FloatBound", "NumberEntry", "OutOfRange", "box_label", "number_box", "read_number"]


def box_label(label: str, bound: Bound | FloatBound) -> str:
    """The label a box shows: its name and its range.

    Example:
        >>> box_label("samples", Bound("samples", 1, 16))
        'samples · 1..16'

    """
    return f"{label} · {allowed(bound)}"


class _BoxOptions(TypedDict, total=False):
    """``number_box``'s keyword options, declared once for both of its typed forms."""

    where: DeltaGenerator | None
    out_of_range: OutOfRange
    help: str | None
    disabled: bool
    on_change: Callable[[], None] | None
    label_visibility: Literal["visible", "hidden", "collapsed"]


@overload
def number_box(
    label: str, bound: Bound, default: int, key: str, **options: Unpack[_BoxOptions]
) -> NumberEntry[int]: ...


@overload
def number_box(
    label: str, bound: FloatBound, default: float, key: str, **options: Unpack[_BoxOptions]
) -> NumberEntry[float]: ...


def number_box(
    label: str,
    bound: Bound | FloatBound,
    default: float,
    key: str,
    *,
    where: DeltaGenerator | None = None,
    out_of_range: OutOfRange = OutOfRange.REFUSE,
    help: str | None = None,
    disabled: bool = False,
    on_change: Callable[[], None] | None = None,
    label_visibility: Literal["visible", "hidden", "collapsed"] = "visible",
) -> NumberEntry[int] | NumberEntry[float]:
    """Draw a box for a number in ``bound`` (in ``where``, a column; else the page) and read it.

    The box opens on ``default``; under it, a caption says how an out-of-range number was
    clamped, or an error why the text is refused. ``label`` names the number in the messages;
    the range is added to it (and to ``help``, read when the label is hidden).
    """
    place = st.container() if where is None else where
    text = place.text_input(
        box_label(label, bound),
        value=_spelled(default),
        key=key,
        help=f"{help} ({allowed(bound)})" if help else f"{label}: {allowed(bound)}",
        disabled=disabled,
        on_change=on_change,
        label_visibility=label_visibility,
    )
    entry = read_number(text, bound, out_of_range, label)
    if entry.problem is not None:
        place.error(entry.problem, icon=":material/error:")
    elif entry.note is not None:
        place.caption(entry.note)
    return entry


def _spelled(default: float) -> str:
    """A default as its box shows it (``0.7``, ``64``)."""
    return str(default) if isinstance(default, int) else f"{default:g}"
