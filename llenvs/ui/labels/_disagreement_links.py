"""The steps where a PRM and a labeller (or two labellers) disagree, each a link into Browse.

Each link opens Browse on the trace's file, at the trace's line and the step's segment
(``?file=…&trace=<line>&segment=<index>``, as ``browse_location`` reads it). Long lists are
shown ``PAGE`` at a time.

Example:
    >>> from llenvs.rewards.agreement._step_disagreement import StepDisagreement
    >>> d = StepDisagreement("t1", 3, -1, 0.5)
    >>> link_label(d, 7, "processbench", "arithmetic")
    'line 7, segment 3: processbench −1, arithmetic 0.500'
    >>> browse_params("runs.jsonl", 7, d)
    {'file': 'runs.jsonl', 'trace': '7', 'segment': '3'}

"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import streamlit as st

from llenvs.core import Bound
from llenvs.rewards.agreement import StepDisagreement
from llenvs.ui.common import OutOfRange, number_box
from llenvs.workbench import BrowseLocation, count

__all__ = ["PAGE", "browse_params", "disagreement_links", "link_label"]

PAGE = 20
"""How many disagreements are listed at a time."""

BROWSE = "pages/browse.py"


def link_label(found: StepDisagreement, line: int | None, first: str, second: str) -> str:
    """What a disagreement's link says: where it is, and what each side said.

    Example:
        >>> link_label(StepDisagreement("t", 0, 1, -1), None, "ada", "bo")
        'trace t, segment 0: ada +1, bo −1'

    """
    where = f"line {line}" if line is not None else f"trace {found.trace_id}"
    other = found.other
    said = f"{other:.3f}" if isinstance(other, float) else _label(int(other))
    return f"{where}, segment {found.segment}: {first} {_label(found.label)}, {second} {said}"


def browse_params(path: str, line: int, found: StepDisagreement) -> dict[str, str]:
    """The query parameters that open Browse at the disagreement's step.

    Example:
        >>> browse_params("a.jsonl", 1, StepDisagreement("t", 0, 1, 0.2))["segment"]
        '0'

    """
    return BrowseLocation(path, line, found.segment).to_params()


def disagreement_links(
    found: Sequence[StepDisagreement],
    path: str,
    lines: Mapping[str, int],
    first: str,
    second: str,
    key: str,
) -> None:
    """Draw the disagreements, each a link to its step in Browse, ``PAGE`` at a time.

    ``lines`` gives each trace's line in ``path``; ``key`` names the page chooser.
    """
    if not found:
        st.caption("They agree on every step they both judge.")
        return
    pages = math.ceil(len(found) / PAGE)
    page: int | None = 1
    if pages > 1:
        page = number_box(
            f"Disagreements {count(len(found), 'step')}, {PAGE} a page: page",
            Bound("page", 1, pages),
            1,
            key,
            out_of_range=OutOfRange.CLAMP,  # past the last page: the last page, said
        ).value
    if page is None:  # not a number: the box says so, and no page is shown
        return
    shown = found[(page - 1) * PAGE : page * PAGE]
    for step in shown:
        line = lines.get(step.trace_id)
        label = link_label(step, line, first, second)
        if line is None:  # not in the file: nothing to open
            st.text(label)
            continue
        st.page_link(
            BROWSE,
            label=label,
            icon=":material/search:",
            query_params=browse_params(path, line, step),
        )


def _label(label: int) -> str:
    return {-1: "−1", 0: "0", 1: "+1"}.get(label, str(label))
