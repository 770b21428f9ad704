"""The step values panel's "did the removed content come back" toggle.

For stored rollouts of ours, a toggle "Only rollouts where the content did not return": on, the
panel finds, for every rollout from before a step, whether the step's content came back
(``content_returns``: all-MiniLM-L6-v2 where installed, else word overlap, the caption says
which), adds the share of each step's rollouts in which it did to the table (``returned``), and
draws and lists the importance measured only on the rollouts where it did not. What is found is
stored in the analysis sidecar, so reopening the trace reads it back; only rollouts added since
are compared. Published values have no rollouts to compare: the toggle is not offered for them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import streamlit as st

from llenvs.analysis import (
    ContentReturns,
    TextSimilarity,
    content_returns,
    default_similarity,
    stored_step_analysis,
)
from llenvs.analysis.sidecar import PUBLISHED_KEY
from llenvs.traces import Trace
from llenvs.ui.browse._shown_step_values import ShownValues
from llenvs.workbench.browse import with_returns

__all__ = ["ONLY_GONE", "returns_toggle", "similarity"]

ONLY_GONE = "sv-returns"
"""The toggle's key."""


@st.cache_resource(show_spinner=False)
def similarity() -> TextSimilarity:
    """The similarity of this process (MiniLM loads once, on its first comparison)."""
    return default_similarity()


@st.cache_data(max_entries=16, show_spinner="Comparing each rollout with the step it replaced…")
def _returns(store: str, key: str, version: tuple[int, int], _trace: Trace) -> ContentReturns:
    """``content_returns`` of the rollouts stored under ``key`` (stored as found; cached)."""
    del version  # keys the cache: the sidecar as it is now
    analysis = stored_step_analysis(_trace, store, json.loads(key))
    return content_returns(_trace, analysis, similarity=similarity(), store=store)


def returns_toggle(
    store: str, key: str, version: tuple[int, int], trace: Trace, shown: ShownValues
) -> ShownValues:
    """The toggle, under the stored result ``key`` (its JSON) of ``trace``; ``shown`` as drawn.

    Off, ``shown`` as it is; on, its rows with the share returned and the importance where the
    content did not return, and the returns' caption shown.
    """
    if PUBLISHED_KEY in json.loads(key) or not shown.rollouts:
        return shown
    if not st.toggle(
        "Only rollouts where the content did not return",
        key=ONLY_GONE,
        help="A resampled step's content often comes back a few sentences later. On: find, "
        "for every rollout from before a step, whether a run of its sentences is at least 0.8 "
        "alike to the step (all-MiniLM-L6-v2, else word overlap), show the share where it "
        "did, and measure each step's importance only on the rollouts where it did not "
        "(Thought Anchors' counterfactual importance). Stored beside the trace.",
    ):
        return shown
    found = _returns(store, key, version, trace)
    st.caption(
        f"{found.caption()}; the importance is v_i+1 − v_i over the rollouts where it did not "
        f"return (stored in {Path(store).name})"
    )
    return replace(shown, rows=with_returns(shown.rows, found, only_gone=True))
