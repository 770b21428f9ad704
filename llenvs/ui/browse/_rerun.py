"""Browse's *Run again*: make the trace shown again from its record, and say if it is the same.

The same check as ``llenvs rerun``: the model, sampling, segmenter and answer opening come from
the trace's run record (a branch: from its parent and intervention), never from the model the
panel below has picked. The outcome stays under the header until another trace is shown.
A trace that cannot be made again here says why (``rerun_problem``) on its button.
"""

from __future__ import annotations

import streamlit as st

from llenvs.core.run_spec import Provider
from llenvs.evaluation.branching import Rerun, recorded_model, rerun
from llenvs.traces import Trace, find_trace
from llenvs.ui.common import load_backend, session_key, shows_errors, trace_outcome
from llenvs.workbench.models import ModelChoice, own_model

__all__ = ["rerun_button", "rerun_problem", "show_rerun"]

_OUTCOME = "rerun-outcome"
"""Session key: ``(trace id, Rerun)`` of the last run again."""


def rerun_problem(trace: Trace) -> str | None:
    """Why the trace cannot be made again here, or None when it can.

    Example:
        >>> from llenvs.core.run_spec import ModelSpec, RunSpec
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> def made_by(run: RunRecord) -> Trace:
        ...     task = TaskRecord("e", "a", {}, 0, "q")
        ...     return Trace(task=task, run=run, response="", segments=())
        >>> rerun_problem(made_by(RunRecord(RunSpec(model=ModelSpec.parse("openai/m")))))
        'its server is not recorded (openai/m without a base URL)'
        >>> rerun_problem(made_by(RunRecord(RunSpec(model=ModelSpec.parse("scripted")))))
        'made by the scripted backend: its responses are not recorded'
        >>> rerun_problem(made_by(RunRecord(unknown={"model": "coin"})))
        "its model 'coin' names no backend"
        >>> rerun_problem(made_by(RunRecord()))  # a given or imported text
        'it records no model (a given or imported text)'

    """
    spec = trace.run.spec.model
    if spec is None:
        if trace.run.model_name is not None:
            return f"its model {trace.run.model_name!r} names no backend"
        return "it records no model (a given or imported text)"
    if spec.provider is Provider.SCRIPTED:
        return "made by the scripted backend: its responses are not recorded"
    if own_model(spec) is None:
        if spec.provider is Provider.OPENAI:
            return f"its server is not recorded ({spec.name} without a base URL)"
        return f"its model folder is not here ({spec.model})"
    return None


def rerun_button(path: str, trace: Trace) -> None:
    """A *Run again* button for ``trace`` and the outcome of its last click.

    The button is off, with the reason as its help, when the trace cannot be made again here.
    """
    problem = rerun_problem(trace)
    clicked = st.button(
        "Run again from its record",
        key=f"rerun-{trace.trace_id}",
        disabled=problem is not None,
        help=problem
        or "Generate this trace again with the model, sampling, segmenter and answer opening "
        "it records, and compare (greedy: it should be identical). Nothing is written.",
    )
    if clicked:
        with shows_errors("Running it again failed"), st.spinner("Generating it again…"):
            st.session_state[_OUTCOME] = (trace.trace_id, _run_again(path, trace))
    result = trace_outcome(_OUTCOME, trace.trace_id)
    if isinstance(result, Rerun):
        show_rerun(result)


def _run_again(path: str, trace: Trace) -> Rerun:
    """The trace made again on its recorded model (shared with the panel's loads)."""
    parent = None if trace.parent is None else find_trace(path, trace.parent.parent_id)
    backend = load_backend(ModelChoice.of_spec(recorded_model(trace)), session_key())
    return rerun(trace, backend, parent=parent)


def show_rerun(result: Rerun) -> None:
    """Identical, or where it differs: the first differing segment, recorded and now."""
    difference = result.difference
    if result.identical:
        st.success(f"Run again from its record: {difference.describe()}.")
        return
    st.warning(f"Run again from its record: {difference.describe()}.")
    for line in result.first_difference_lines():
        st.text(line)
