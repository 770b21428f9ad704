"""What step search knows of a step besides its text: the numbers ``--where`` filters on.

A step's facts come from three places: its trace (environment, model, verdict, the step's own
rewards and PRM scores, an imported study's function tags), the label store beside the file
(the latest label any labeller gave it) and the analysis sidecar (the step value before it,
its importance and its chance of having moved the value: our own rollouts where stored, else a
study's published values). ``file_facts`` reads all three for every trace of a file in one pass.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("leg_counting", "a", {}, 0, "q"), response="A. B.",
    ...           segments=(SegmentRecord(0, 0, 3, "A. ", rewards={"prm": 0.9, "format": 1.0},
    ...                                   prm_scores={"prm": 0.9}),
    ...                     SegmentRecord(1, 3, 5, "B.")), success=True)
    >>> first, second = trace_facts(t)
    >>> first.environment, first.success, first.reward, first.prm, second.reward
    ('leg_counting', True, 1.0, 0.9, None)

"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from llenvs.analysis import (
    StepAnalysis,
    analysis_path,
    published_step_analysis,
    stored_step_analysis,
)
from llenvs.analysis.sidecar import (
    FUNCTION_TAGS,
    AnalysisKind,
    PublishedValues,
    published_by_trace,
    stored_keys,
)
from llenvs.traces import Trace
from llenvs.traces.files import TraceReader
from llenvs.traces.labels import StepLabel, labels_path, read_labels

__all__ = [
    "FACT_FIELDS",
    "StepFacts",
    "facts_of",
    "facts_signature",
    "file_facts",
    "trace_facts",
]


@dataclass(frozen=True)
class StepFacts:
    """A step's numbers and names, each None where nothing is stored.

    Example:
        >>> StepFacts("e", "m").label is None
        True

    """

    environment: str
    """The trace's environment (``task.environment``)."""
    model: str
    """The model that wrote the trace, as recorded ("" when none is)."""
    success: bool | None = None
    """The trace's verdict (its final reward: every OUTCOME reward >= 1)."""
    reward: float | None = None
    """The sum of the step's rewards that are not PRM scores (None: it has none)."""
    prm: float | None = None
    """The lowest of the step's PRM scores, as the app shows it."""
    label: int | None = None
    """The step's latest human label (-1 wrong, 0 neutral, 1 correct), by any labeller."""
    labeller: str | None = None
    """Who gave ``label``."""
    tags: str = ""
    """The step's function tags (an imported study's), joined by ", "."""
    value: float | None = None
    """The step value before the step (``v_i``)."""
    importance: float | None = None
    """The step's importance (``v_{i+1} - v_i``)."""
    moved: float | None = None
    """The step's chance of having moved the value (called moved above 1/2)."""


FACT_FIELDS: Mapping[str, type] = {
    "environment": str,
    "model": str,
    "success": bool,
    "reward": float,
    "prm": float,
    "label": int,
    "labeller": str,
    "tags": str,
    "value": float,
    "importance": float,
    "moved": float,
}
"""Every fact by name, with its kind: what ``--where`` may name, in the index's column order."""


def trace_facts(
    trace: Trace,
    labels: Mapping[int, StepLabel] | None = None,
    analysis: StepAnalysis | None = None,
) -> list[StepFacts]:
    """The facts of each segment of ``trace``, with its ``labels`` and ``analysis`` where given."""
    spec = trace.run.spec.model
    model = spec.recorded_name if spec is not None else str(trace.run.unknown.get("model", ""))
    values = {v.boundary: v.value for v in analysis.values} if analysis else {}
    importances = {s.step: s.importance for s in analysis.importances} if analysis else {}
    moved = analysis.moved if analysis and analysis.importances else {}
    found = []
    for segment in trace.segments:
        own = [v for name, v in segment.rewards.items() if name not in segment.prm_scores]
        scores = list(segment.prm_scores.values())
        label = (labels or {}).get(segment.index)
        tags = segment.annotations.get(FUNCTION_TAGS)
        found.append(
            StepFacts(
                environment=trace.task.environment,
                model=model,
                success=trace.success,
                reward=float(sum(own)) if own else None,
                prm=min(scores) if scores else None,
                label=None if label is None else label.label,
                labeller=None if label is None else label.labeller,
                tags=", ".join(str(t) for t in tags) if isinstance(tags, list | tuple) else "",
                value=values.get(segment.index),
                importance=importances.get(segment.index),
                moved=moved.get(segment.index),
            )
        )
    return found


def file_facts(path: str | os.PathLike[str]) -> Iterator[tuple[int, Trace, list[StepFacts]]]:
    """Each trace of ``path`` with its line (as ``--trace`` counts) and its steps' facts.

    Bad lines are skipped with the reader's one warning.
    """
    latest = _latest_labels(path)
    store = analysis_path(path)
    published = published_by_trace(store) if store.exists() else {}
    for line, trace in TraceReader(path).numbered():
        analysis = _analysis(trace, store, published) if store.exists() else None
        yield line, trace, trace_facts(trace, latest.get(trace.trace_id), analysis)


def facts_of(path: str | os.PathLike[str], trace: Trace) -> list[StepFacts]:
    """The facts of ``trace``'s steps, a trace of ``path``: its labels and analysis stored there.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A."),))
        >>> [(f.label, f.value) for f in facts_of("/no/such.jsonl", t)]
        [(None, None)]

    """
    store = analysis_path(path)
    analysis = None
    if store.exists():
        analysis = _analysis(trace, store, published_by_trace(store))
    return trace_facts(trace, _latest_labels(path).get(trace.trace_id), analysis)


def facts_signature(path: str | os.PathLike[str]) -> str:
    """What the facts of ``path`` depend on besides its own bytes: its label and analysis files.

    Example:
        >>> facts_signature("/no/such.jsonl")
        '-|-'

    """
    return "|".join(_signature(p) for p in (labels_path(path), analysis_path(path)))


def _signature(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return "-"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _latest_labels(path: str | os.PathLike[str]) -> dict[str, dict[int, StepLabel]]:
    """``trace_id -> segment -> label``: the latest line on each step, by any labeller."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Browse and the labels command name bad label lines
        history = read_labels(path).history
    found: dict[str, dict[int, StepLabel]] = {}
    for label in history:
        found.setdefault(label.trace_id, {})[label.segment] = label
    return {
        trace_id: {segment: label for segment, label in steps.items() if not label.cleared}
        for trace_id, steps in found.items()
    }


def _analysis(
    trace: Trace, store: Path, published: Mapping[str, list[PublishedValues]]
) -> StepAnalysis | None:
    """Our own rollouts' analysis (the latest key) where stored, else a study's published one."""
    try:
        keys = stored_keys(store, trace.trace_id, AnalysisKind.ROLLOUTS)
        if keys:
            return stored_step_analysis(trace, store, keys[-1])
        studies = published.get(trace.trace_id)
        return published_step_analysis(trace, studies[-1]) if studies else None
    except Exception:
        return None
