"""A study's published step values of a trace, for the Browse page's step values panel.

Example:
    >>> from llenvs.traces import TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
    >>> published_analyses("/no/such.analysis.jsonl", t.trace_id, (0, 0), t)
    []

"""

from __future__ import annotations

import streamlit as st

from llenvs.analysis import StepAnalysis, published_step_analysis, read_published
from llenvs.traces import Trace

__all__ = ["published_analyses"]


@st.cache_data(max_entries=32, show_spinner=False)
def published_analyses(
    store: str, trace_id: str, version: tuple[int, int], _trace: Trace
) -> list[tuple[StepAnalysis, str]]:
    """Each study's published values of ``_trace``, as an analysis, with a line on its source."""
    del version  # keys the cache: the sidecar as it is now
    found = []
    for published in read_published(store, trace_id):
        trials = sorted({t.trials for t in published.tallies})
        spread = f"{trials[0]}–{trials[-1]}" if len(trials) > 1 else f"{trials[0]}"
        inferred = (
            f"; the counts of {published.inferred} inferred from the published accuracy"
            if published.inferred
            else ""
        )
        source = (
            f"Published values ({published.provenance}): {len(published.tallies)} boundaries, "
            f"{spread} continuations each{inferred}; importances computed here from them"
        )
        found.append((published_step_analysis(_trace, published), source))
    return found
