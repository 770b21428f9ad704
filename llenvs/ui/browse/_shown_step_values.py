"""What the step values panel draws of one stored result, computed once per trace and sidecar.

A stored result is a study's published values (``PublishedValues``) or our rollouts under one
key. Reading it back and summing it up (the importances' bootstrap, each step's chance of having
moved, the top steps of the caption) takes about a second on a 300-step trace, so it is done
once per trace, key and version of the sidecar (``shown_values``, cached), and a move to
another segment only redraws. ``result_keys`` lists a trace's stored results (cached the same
way): the published ones first, then ours, oldest first.

Example:
    >>> from llenvs.traces import TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
    >>> result_keys("/no/such.analysis.jsonl", t.trace_id, (0, 0))
    []

"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from llenvs.analysis import (
    MOVE_DELTA,
    StepAnalysis,
    published_step_analysis,
    read_published,
    stored_forced_answers,
    stored_keys,
    stored_step_analysis,
)
from llenvs.analysis.sidecar import PUBLISHED_KEY
from llenvs.traces import Trace
from llenvs.workbench import count, describe_key
from llenvs.workbench.browse import published_source, value_rows

__all__ = ["ShownValues", "result_keys", "shown_values"]


@dataclass(frozen=True)
class ShownValues:
    """One stored result of a trace, ready to draw.

    Example:
        >>> ShownValues(pd.DataFrame(), "c").measures
        {}

    """

    rows: pd.DataFrame
    """``value_rows`` of the result: one row per boundary, the end last."""
    caption: str
    """Where the values come from and what they say (the steps called moved by δ, with the
    expected wrong calls, and the top steps), in one line."""
    measures: Mapping[str, tuple[float | None, ...]] = field(default_factory=dict)
    """The study's own importance measures by name, one entry per segment (none for ours)."""
    rollouts: int = 0
    """Our rollouts read back (0 for published values)."""
    failed: tuple[str, ...] = ()
    """The errors of the rollouts that failed (not counted), in order."""
    first_drop: str = ""
    """For a failed trace, where it went wrong (``StepAnalysis.first_drop``), in words."""


@st.cache_data(max_entries=32, show_spinner=False)
def result_keys(store: str, trace_id: str, version: tuple[int, int]) -> list[dict[str, Any]]:
    """The keys of the results ``store`` holds for ``trace_id``: published first, then ours."""
    del version  # keys the cache: the sidecar as it is now
    published = [p.key for p in read_published(store, trace_id)]
    return published + stored_keys(store, trace_id)


@st.cache_data(max_entries=32, show_spinner="Reading the stored step values…")
def shown_values(
    store: str,
    trace_id: str,
    key: str,
    version: tuple[int, int],
    _trace: Trace,
    delta: float = MOVE_DELTA,
) -> ShownValues:
    """The result of ``_trace`` stored under ``key`` (its JSON), ready to draw (cached).

    ``delta`` is the size of a move that matters (``StepAnalysis.delta``): the chance each step
    moved, the shading and the steps called all follow it.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A",
        ...           segments=(SegmentRecord(0, 0, 1, "A"),))
        >>> key = '{"model": "m", "temperature": 0.7, "top_p": 1.0}'
        >>> shown = shown_values("/no/such.analysis.jsonl", t.trace_id, key, (0, 0), t)
        >>> len(shown.rows), shown.caption.startswith("0 rollouts in 0 rounds (m ·")
        (2, True)

    """
    del version  # keys the cache: the sidecar as it is now
    wanted = json.loads(key)
    if PUBLISHED_KEY in wanted:
        for published in read_published(store, trace_id):
            if published.key == wanted:
                analysis = replace(published_step_analysis(_trace, published), delta=delta)
                return ShownValues(
                    value_rows(len(_trace.segments), analysis),
                    f"{published_source(published)} · {analysis.calls_summary()} · "
                    f"{analysis.top_steps(3).headline()}",
                    dict(published.measures),
                    first_drop=_went_wrong(_trace, analysis),
                )
        raise ValueError(f"{Path(store).name} holds no published values under {key} any more")
    analysis = stored_step_analysis(_trace, store, wanted)
    analysis = replace(
        analysis,
        forced_answers=stored_forced_answers(store, trace_id, str(wanted.get("model"))),
        delta=delta,
    )
    headline = f"{analysis.calls_summary()} · {analysis.top_steps(3).headline()}"
    return ShownValues(
        value_rows(len(_trace.segments), analysis),
        f"{count(len(analysis.rollouts), 'rollout')} in {count(analysis.rounds, 'round')} "
        f"({describe_key(wanted)}), stored in {Path(store).name} · {headline}",
        rollouts=len(analysis.rollouts),
        failed=tuple(str(r.error) for r in analysis.rollouts if r.error is not None),
        first_drop=_went_wrong(_trace, analysis),
    )


def _went_wrong(trace: Trace, analysis: StepAnalysis) -> str:
    """Where a failed trace went wrong, from these values; empty for any other trace."""
    if trace.success is not False:
        return ""
    found = analysis.first_drop().reason
    return f"Where it went wrong (the first drop of {analysis.delta:g}): {found}"
