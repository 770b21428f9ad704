"""Beside the step matrix: the same question asked inside the model (attention suppression).

Under "Which step led to which", a button reads the trace inside a local model (the trace's own
when it is the embedded model or a transformers folder here, else the embedded SmolLM2, said
so): every step masked in turn, in the background with progress and Stop
(``SuppressionJob``). Once read, the KL heatmap is drawn beside the black-box one, the receiver
heads listed with the steps they point at (each step a button that selects it), and a line says
where the two agree, beside the rival that explains the KL by distance alone
(``instrument_agreement``). Results are kept for the session, by trace and model.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from llenvs.analysis.instruments import (
    MIN_SCORES,
    NEAR,
    StepMatrix,
    Suppression,
    instrument_agreement,
)
from llenvs.core.run_spec import Provider
from llenvs.traces import Trace
from llenvs.ui.common import current_session, go_to, job_controls, load_backend, shows_errors
from llenvs.workbench import MISSING, BrowseLocation
from llenvs.workbench.charts import suppression_figure
from llenvs.workbench.jobs import SuppressionJob
from llenvs.workbench.models import ModelChoice, ModelKind, own_model

__all__ = ["suppression_beside"]

_RESULTS = "sv-suppression"
_JOB = "sv-suppression-job"
POLL_SECONDS = 0.5
"""How often the progress is redrawn while the model reads the trace."""


def suppression_beside(trace: Trace, matrix: StepMatrix, here: BrowseLocation) -> None:
    """The white-box half: a button, the job's progress, or the heatmap and its heads."""
    choice, note = _local_model(trace)
    results: dict[tuple[str, ModelChoice], Suppression] = st.session_state.setdefault(_RESULTS, {})
    found = results.get((trace.trace_id, choice))
    if found is not None:
        _show(found, matrix, here)
        return
    job: SuppressionJob | None = st.session_state.get(_JOB)
    if job is not None and job.trace.trace_id == trace.trace_id:
        st.fragment(_progress, run_every=POLL_SECONDS)(job, choice)
        return
    st.caption(note)
    if st.button(
        "Read it inside the model (attention suppression)",
        key="sv-suppress",
        help="For each step i, the trace is run with every head kept from attending to step "
        "i's tokens; cell (i, j) is the mean KL divergence of step j's next-token "
        "distributions from the unmasked run. A change in the model's reading, not an effect "
        "on the answer.",
    ):
        with shows_errors("The model could not be loaded"):
            backend = load_backend(choice)
            st.session_state[_JOB] = SuppressionJob(trace, backend, session=current_session())
            st.rerun()


def _progress(job: SuppressionJob, choice: ModelChoice) -> None:
    st.caption(
        f"Masking step by step on {job.backend.name}: {job.done} of {job.total} steps read, "
        f"{job.clock()}"
    )
    if job_controls(job, "sv-suppression", "Stopping after this batch; nothing is kept."):
        return
    del st.session_state[_JOB]
    if job.result is not None:
        st.session_state[_RESULTS][(job.trace.trace_id, choice)] = job.result
    elif job.error is not None:
        st.session_state["sv-suppression-error"] = str(job.error)
    st.rerun()


def _show(found: Suppression, matrix: StepMatrix, here: BrowseLocation) -> None:
    st.plotly_chart(suppression_figure(found, here.segment), key=f"sv-kl-chart-{here.line}")
    st.caption(instrument_agreement(matrix.rows(), found.kl).caption())
    if not found.receiver_heads:
        st.caption(
            f"No receiver heads: a head's spread is scored over the steps at least {NEAR} "
            f"before the end, at least {MIN_SCORES} of them, so a trace needs "
            f"{MIN_SCORES + NEAR} steps (this one has {found.steps})."
        )
        return
    st.caption(
        "Receiver heads: the heads whose attention from later steps falls on a few steps "
        "(largest kurtosis first), and the steps they point at."
    )
    rows = [
        {
            "layer": head.layer,
            "head": head.head,
            "kurtosis": round(head.kurtosis, 2),
            "steps": ", ".join(str(step) for step in head.steps),
        }
        for head in found.receiver_heads
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder=MISSING)
    pointed = sorted({step for head in found.receiver_heads for step in head.steps})
    row = st.container(horizontal=True, vertical_alignment="center", gap="small")
    row.caption("Steps they point at:")
    for step in pointed:
        row.button(
            f"step {step}",
            key=f"sv-receiver-{here.line}-{step}",
            on_click=go_to,
            args=(BrowseLocation(here.file, here.line, step),),
        )


def _local_model(trace: Trace) -> tuple[ModelChoice, str]:
    """The model that reads the trace, and a line saying whose reading it is."""
    own = own_model(trace.run.spec.model)
    if own is not None and own.provider is Provider.EMBEDDED:
        return ModelChoice(ModelKind.EMBEDDED), "Read by the trace's own model (the embedded one)."
    if own is not None and own.provider is Provider.TRANSFORMERS:
        return ModelChoice(
            ModelKind.FOLDER, own.model
        ), f"Read by the trace's own model ({own.model})."
    name = trace.run.model_name or "not recorded"
    return ModelChoice(ModelKind.EMBEDDED), (
        f"The trace's model ({name}) is not loaded here: the embedded SmolLM2 reads it, so the "
        "heatmap is SmolLM2's reading of another model's text."
    )
