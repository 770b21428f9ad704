"""The intervention panel's on-policy check of a forced text, before Generate.

A Force puts text in the model's mouth; how likely the model finds that text says how much a
branch measures the edit's strangeness rather than its content (``llenvs.evaluation.branching``).
Under the Force's text box: the samples to compare with and a button that scores the text in
the background (``OnPolicyJob``, on the job queue, with progress and a Stop). The score is kept
per trace, segment, text, model and samples, shown while the box holds that text, and recorded
on the branch Generate makes (``metadata.on_policy``). A model that cannot score a text (no
prompt log-probabilities) is said so, by name. The click says what it waits for while the model
loads (``llenvs.ui.common``).
"""

from __future__ import annotations

import streamlit as st

from llenvs.core import SAMPLES, Bound
from llenvs.evaluation.branching import DEFAULT_SAMPLES, OnPolicy
from llenvs.traces import Trace
from llenvs.ui.common import (
    current_session,
    job_controls,
    load_backend,
    number_box,
    session_key,
    shows_errors,
)
from llenvs.workbench.jobs import OnPolicyJob, on_policy_key
from llenvs.workbench.models import ModelChoice

__all__ = ["POLL_SECONDS", "on_policy_check"]

POLL_SECONDS = 0.5
"""How often the check redraws its progress while the text is scored."""

_JOB = "iv-op-job"
_SCORES = "iv-op-scores"
_SAID = "iv-op-said"
_SAMPLES = Bound("On-policy samples", 1, SAMPLES.high, "the model's continuations, one batch")


def on_policy_check(
    trace: Trace, segment: int, text: str, choice: ModelChoice | None
) -> OnPolicy | None:
    """Draw the check of ``text`` forced as segment ``segment``; its score once computed."""
    if choice is None or not text:
        return None
    entry = number_box(
        "On-policy samples",
        _SAMPLES,
        DEFAULT_SAMPLES,
        "iv-op-samples",
        help="How many continuations of the model's own, as long as the text, it is placed among",
    )
    samples = entry.value
    key = (
        None
        if samples is None
        else on_policy_key(trace, segment, text, choice.backend_name, samples)
    )
    scores: dict[tuple[object, ...], OnPolicy] = st.session_state.setdefault(_SCORES, {})
    running: tuple[tuple[object, ...], OnPolicyJob] | None = st.session_state.get(_JOB)
    if running is not None:
        st.fragment(_live, run_every=POLL_SECONDS)()
    elif key is not None and key in scores:
        st.caption(f"{scores[key].summary()}; recorded on the branch Generate makes.")
    elif st.button(
        "How on-policy is this text?",
        key="iv-op-run",
        help="Score the text as the model would (teacher-forced, one prefill) and place it "
        "among the model's own continuations from the same place (Thought Branches: an "
        "off-policy edit measures its strangeness too)",
        disabled=key is None,  # the box refuses its number, and says so
    ):
        assert samples is not None and key is not None
        _start(trace, segment, text, choice, samples, key)
    said = st.session_state.get(_SAID)
    if said is not None and said[0] == key:
        st.info(said[1])
    return None if key is None else scores.get(key)


def _start(
    trace: Trace,
    segment: int,
    text: str,
    choice: ModelChoice,
    samples: int,
    key: tuple[object, ...],
) -> None:
    """Load the model (shared) and queue the job; a model that cannot score is said so."""
    st.session_state.pop(_SAID, None)
    with shows_errors("The text was not scored"):
        backend = load_backend(choice, session_key())
        if backend.capabilities.score is None:
            st.session_state[_SAID] = (
                key,
                f"{backend.name} cannot score a text: it gives no prompt log-probabilities "
                "(the transformers backend does, and an OpenAI-compatible server that returns "
                "them, such as vLLM). Generate still works; the branch records no on-policy "
                "score.",
            )
            return
        job = OnPolicyJob(trace, segment, text, backend, samples=samples, session=current_session())
        st.session_state[_JOB] = (key, job)
        st.rerun(scope="fragment")


def _live() -> None:
    """The job's progress and Stop; once it ends, its score (or why there is none)."""
    running: tuple[tuple[object, ...], OnPolicyJob] | None = st.session_state.get(_JOB)
    if running is None:
        return
    key, job = running
    st.caption(
        f"Scoring the text against {job.samples} continuations of the model's own: "
        f"{job.tokens} tokens sampled, {job.clock()}"
    )
    if job_controls(job, "iv-op", "Stopping at the next token; no score is kept."):
        return
    del st.session_state[_JOB]
    if job.result is not None:
        st.session_state[_SCORES][key] = job.result
    elif job.stopped:
        st.session_state[_SAID] = (key, "Stopped: the text was not scored.")
    elif job.error is not None:
        st.session_state[_SAID] = (key, f"The text was not scored: {job.error}")
    st.rerun()
