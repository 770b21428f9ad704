"""Label mode along a label queue: the keys walk the queue's steps, across traces and files.

Search exports the steps it found as a label queue and links each to Browse in label mode with
the queue in the URL (``QUEUE_PARAM``, kept as the page moves). While the selected step is one
of the queue's, ``j``/``k`` and a label key go to the queue's next (or previous) step, in
whatever trace or file it is, and a caption says where in the queue the labeller is; off the
queue, or at its end, they step through the trace's segments as always. A queue outside the
traces folders, or that does not read, is said so once and not walked.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from llenvs.ui.browse._segment_rows import step_among
from llenvs.workbench import QUEUE_PARAM, BrowseLocation
from llenvs.workbench.files import resolve_trace_path
from llenvs.workbench.search import LabelQueueError, QueueEntry, queue_step, read_label_queue

__all__ = ["next_location", "queue_caption", "walked_queue"]


def walked_queue() -> list[QueueEntry] | None:
    """The label queue the URL names, or None (none named, or it does not read: said so)."""
    name = st.query_params.get(QUEUE_PARAM)
    if not name:
        return None
    try:
        return read_label_queue(resolve_trace_path(name))
    except (OSError, LabelQueueError) as error:
        st.warning(f"The label queue {Path(name).name} is not walked: {error}")
        return None


def next_location(
    here: BrowseLocation, stepped: Sequence[int], move: int, queue: Sequence[QueueEntry] | None
) -> BrowseLocation:
    """Where ``move`` (1 next, -1 previous) goes from ``here``.

    Along the queue when ``here`` is on it and the queue goes on; else among the trace's
    ``stepped`` segments.
    """
    if queue and here.file is not None and here.line is not None:
        _, entry = queue_step(queue, here.file, here.line, here.segment, move)
        if entry is not None:
            return BrowseLocation(entry.file, entry.trace, entry.step)
    return BrowseLocation(here.file, here.line, step_among(stepped, here.segment, move))


def queue_caption(here: BrowseLocation, queue: Sequence[QueueEntry]) -> str:
    """Where in the queue ``here`` is, in words (or that it is not on it)."""
    name = Path(str(st.query_params.get(QUEUE_PARAM, ""))).name
    if here.file is None or here.line is None:
        return f"Label queue {name}: {len(queue)} steps."
    place, _ = queue_step(queue, here.file, here.line, here.segment, 0)
    if place is None:
        return f"Label queue {name}: this step is not on it; j/k step through the trace."
    return f"Label queue {name}: step {place + 1} of {len(queue)}; j/k and the keys walk it."
