"""``llenvs analyze FILE --trace N --budget 0``: the step values stored for a trace, no model.

Every source the analysis sidecar holds for the trace is printed: a study's published values
(``PublishedValues``: its tallies, with every published measure as a column) and each set of
our own rollouts (one per model and sampling key, with the step importances they give). With
``--json``, one JSON object per boundary and source:
``{"boundary", "value", "low", "high", "rollouts", "source", ...}``.

Example:
    >>> from llenvs.analysis.published_values import PublishedTally, PublishedValues
    >>> from llenvs.analysis.analysis_sidecar import append_published
    >>> from llenvs.traces import TaskRecord, Trace
    >>> import tempfile, os
    >>> store = os.path.join(tempfile.mkdtemp(), "t.analysis.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
    >>> append_published(store, t.trace_id, PublishedValues(
    ...     "s", "S, imported", "m", (PublishedTally(0, 3, 4, inferred=True),),
    ...     {"kl": (0.5,)}, {}))
    >>> [row] = stored_value_rows(t, store)
    >>> row["value"], round(row["low"], 3), row["rollouts"], row["source"], row["kl"]
    (0.75, 0.301, 4, 'S, imported', 0.5)

"""

from __future__ import annotations

import json
import os
from typing import Any

from llenvs.analysis.analysis_sidecar import read_published, stored_keys
from llenvs.analysis.boundary_value import BoundaryValue
from llenvs.analysis.stored_step_analysis import stored_step_analysis
from llenvs.traces.trace import Trace

__all__ = ["print_stored_values", "stored_value_rows"]


def stored_value_rows(trace: Trace, store: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """One row per boundary and source: published values first, then our rollouts by key."""
    rows: list[dict[str, Any]] = []
    for published in read_published(store, trace.trace_id):
        for value, tally in zip(published.values(), published.tallies, strict=True):
            measures = {
                name: column[value.boundary]
                for name, column in published.measures.items()
                if value.boundary < len(column)
            }
            source = {"source": published.provenance, "inferred": tally.inferred}
            rows.append({**_row(value), **source, **measures})
    for key in stored_keys(store, trace.trace_id):
        analysis = stored_step_analysis(trace, store, key)
        importances = {step.step: step for step in analysis.importances}
        for value in analysis.values:
            row = {**_row(value), "source": f"rollouts of {key.get('model', '?')}", "key": key}
            step = importances.get(value.boundary)
            if step is not None:
                row["importance"] = step.importance
                row["importance_low"] = step.interval.low
                row["importance_high"] = step.interval.high
            rows.append(row)
    return rows


def print_stored_values(trace: Trace, store: str | os.PathLike[str], *, as_json: bool) -> int:
    """Print ``stored_value_rows`` (JSON lines, or a table per source); 0, 1 when none."""
    rows = stored_value_rows(trace, store)
    if not rows:
        print(
            f"no step values stored for trace {trace.trace_id} in {store}: run llenvs analyze "
            "with --budget N to sample some"
        )
        return 1
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False, allow_nan=False))
        return 0
    source = None
    for row in rows:
        if row["source"] != source:
            source = row["source"]
            print(f"{source}:\n{'seg':<4} {'v_i [95% CI]':<22} {'n':>4}")
        value = "—" if row["value"] is None else f"{row['value']:.2f}"
        interval = f"{value} [{row['low']:.2f}, {row['high']:.2f}]"
        print(f"{row['boundary']:<4} {interval:<22} {row['rollouts']:>4}")
    return 0


def _row(value: BoundaryValue) -> dict[str, Any]:
    return {
        "boundary": value.boundary,
        "value": value.value,
        "low": value.interval.low,
        "high": value.interval.high,
        "rollouts": value.trials,
    }
