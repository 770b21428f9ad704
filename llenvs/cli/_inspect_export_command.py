"""``llenvs export FILE --format inspect -o LOG.eval``: traces as an Inspect AI log.

Each trace goes with what the trace file's sidecars hold of it: its step values (every source
the analysis sidecar holds, as ``llenvs analyze --budget 0 --json`` prints them), its PRM scores
per step, and, with ``--labels LABELLER``, that labeller's step labels and the first wrong step
they settle (a score, ``first_error``). ``write_inspect_log`` writes them with Inspect's writer;
``llenvs import inspect LOG.eval`` gives the traces back unchanged.

Example:
    >>> from llenvs.cli._example_traces import example_traces
    >>> traces = example_traces()
    >>> export_inspect(traces, traces.parent / "t.eval", None, overwrite=False)
    exported 1 trace to ...t.eval (llenvs import inspect gives it back; inspect view opens it)
    0

"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from llenvs.cli._stored_values import stored_value_rows
from llenvs.traces import read_traces
from llenvs.traces.files import analysis_path
from llenvs.traces.importers import write_inspect_log
from llenvs.traces.labels import read_labels, settled_first_error

__all__ = ["export_inspect"]


def export_inspect(source: Path, output: Path, labeller: str | None, *, overwrite: bool) -> int:
    """Write the traces of ``source`` to ``output`` as an Inspect log; print what was done."""
    if output.exists() and not overwrite:
        raise ValueError(f"{output} exists: give --overwrite to replace it")
    traces = list(read_traces(source))
    labels = read_labels(source, {t.trace_id for t in traces}).latest(labeller) if labeller else {}
    store = analysis_path(source)
    extras: dict[str, dict[str, Any]] = {}
    first_errors: dict[str, int] = {}
    for trace in traces:
        extra: dict[str, Any] = {"prm_scores": [dict(s.prm_scores) for s in trace.segments]}
        if os.path.exists(store):
            extra["step_values"] = stored_value_rows(trace, store)
        steps = labels.get(trace.trace_id)
        if steps:
            extra["labels"] = {
                "labeller": labeller,
                "steps": {str(index): label.label for index, label in steps.items()},
            }
            settled = settled_first_error(steps, len(trace.segments))
            if settled is not None:
                first_errors[trace.trace_id] = settled
        extras[trace.trace_id] = extra
    count = write_inspect_log(traces, output, extras=extras, first_errors=first_errors)
    them = "it" if count == 1 else "them"
    whose = f" with the labels of {labeller}" if labeller else ""
    plural = "" if count == 1 else "s"
    print(
        f"exported {count} trace{plural}{whose} to {output} (llenvs import inspect gives {them} "
        "back; inspect view opens it)"
    )
    return 0
