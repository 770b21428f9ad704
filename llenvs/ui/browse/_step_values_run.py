"""A step values run in the background: the model it loads, its start, its progress, its end.

The Browse page's step values panel plans a run; here it starts (``StepValuesJob``, on the
model the panel chose, loaded once and shared), shows its progress (rollouts as they finish,
tokens as they are generated) with a Stop that ends the run at the model's next token, and says
how it ended: what it stored, or why not. Each finished round is stored as it comes, so a
stopped or failed run keeps its rollouts and the next run resumes from them. A finished run
leaves the panel its result to show (``SHOWN_KEY``) and the model's speed (``SPEEDS_KEY``).
"""

from __future__ import annotations

import streamlit as st

from llenvs.analysis import AnalysisParams, Schedule, SpeedSource
from llenvs.core import ModelBackend
from llenvs.traces import Trace
from llenvs.ui.common import (
    current_session,
    job_controls,
    load_backend,
    session_key,
    show_outcome,
    shows_errors,
    trace_outcome,
)
from llenvs.workbench import count
from llenvs.workbench.jobs import StepValuesJob
from llenvs.workbench.models import ModelChoice

__all__ = [
    "JOB_KEY",
    "SHOWN_KEY",
    "SPEEDS_KEY",
    "last_outcome",
    "load_model",
    "model_name",
    "run_progress",
    "start_run",
]

JOB_KEY = "sv-job"
"""The key of the run going on (a ``StepValuesJob``), absent when none is."""

SHOWN_KEY = "sv-shown"
"""The key of the stored result to show, by trace id: the one the last run on it made."""

SPEEDS_KEY = "sv-speeds"
"""The key of each model's speed, by its name: (tokens per second, ``SpeedSource``)."""

_OUTCOME = "sv-outcome"
_NAMES = "sv-names"


def model_name(choice: ModelChoice) -> str:
    """The name the model goes by, as the sidecar keys it.

    Once loaded, the backend's own; before, the one its spec records
    (``ModelSpec.recorded_name``).
    """
    known: dict[ModelChoice, str] = st.session_state.get(_NAMES, {})
    return known.get(choice) or choice.model_spec().recorded_name


def load_model(choice: ModelChoice) -> ModelBackend:
    """The backend of ``choice`` (loaded once, shared), its name remembered."""
    backend = load_backend(choice, session_key())
    st.session_state.setdefault(_NAMES, {})[choice] = backend.name
    return backend


def start_run(
    path: str,
    trace: Trace,
    choice: ModelChoice,
    params: AnalysisParams,
    forced_answer: bool,
    schedule: Schedule | None,
) -> None:
    """Load the model (once, shared) and start the run in the background."""
    with shows_errors("Nothing was run"):
        backend = load_model(choice)
        st.session_state[JOB_KEY] = StepValuesJob(
            path,
            trace,
            backend,
            params,
            forced_answer=forced_answer,
            schedule=schedule,
            session=current_session(),
        )
        st.session_state.pop(_OUTCOME, None)


def run_progress(job: StepValuesJob) -> None:
    """The run's progress and Stop; once it ends, how it ended, and the whole page again."""
    done, planned = job.progress()
    st.progress(
        min(done / planned, 1.0) if planned else 0.0,
        text=f"Trace {job.trace.trace_id[:8]}: {done:,} of at most {planned:,} rollouts "
        f"finished · {job.tokens():,} tokens generated · {count(job.rounds(), 'round')} stored"
        f" · {job.clock()}",
    )
    stopping = "Stopping at the model's next token; the rollouts that finished are kept."
    if job_controls(job, "sv", stopping):
        return
    del st.session_state[JOB_KEY]
    st.session_state.setdefault(SHOWN_KEY, {})[job.trace.trace_id] = job.key
    speed = job.tokens_per_second()
    if speed is not None:
        st.session_state.setdefault(SPEEDS_KEY, {})[job.model] = (speed, SpeedSource.GIVEN)
    st.session_state[_OUTCOME] = (job.trace.trace_id, job.error or _ended(job))
    st.rerun()  # the whole page: the stored results show the new rounds


def _ended(job: StepValuesJob) -> str:
    """How a run that did not fail ended, in words."""
    made, _ = job.generated()
    if job.stopped or job.analysis is None:
        return (
            f"Stopped after {count(job.rounds(), 'round')} in all: {count(made, 'new rollout')} "
            f"kept in {job.store.name}; Run again to resume from them."
        )
    analysis = job.analysis
    return (
        f"{count(len(analysis.rollouts) - analysis.resumed, 'new rollout')} "
        f"({analysis.resumed} read back) in {count(analysis.rounds, 'round')} in all, stored "
        f"in {job.store.name}."
    )


def last_outcome(trace: Trace) -> None:
    """How the last run on ``trace`` ended (until the next one): what it stored, or why not."""
    show_outcome(
        trace_outcome(_OUTCOME, trace.trace_id),
        "The run stopped",
        kept="Every round finished before the error is kept; Run again resumes from them.",
    )
