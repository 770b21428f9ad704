"""A job's Stop, a Stop for all of this browser session's jobs, and how the job ended.

``job_controls`` draws both Stops for every panel that runs a job. A panel shows its job's times
with ``BackgroundJob.clock`` (time queued apart from time run). When this session has more than
the one job on screen, or that job still waits for a worker, a button stops all of them: queued
ones are taken out without running (``JobDropped``), running ones end at their next step. Once
the job has ended, the panel keeps its outcome in the session (its error, or what it made) and
shows it with ``show_outcome`` until the next run; a panel of one trace keeps it with the
trace's id and reads it back with ``trace_outcome``.

Example:
    >>> trace_outcome("no-such-key", "t") is None  # outside a running app, nothing is kept
    True

"""

from __future__ import annotations

import streamlit as st

from llenvs.ui.common._page_guard import shows_errors
from llenvs.workbench.jobs import BackgroundJob, shared_queue, stop_session

__all__ = ["job_controls", "session_jobs", "show_outcome", "trace_outcome"]


def session_jobs(job: BackgroundJob, key: str) -> None:
    """A Stop for every job of ``job``'s session, when it has several or ``job`` waits.

    ``key`` is the button's widget key (one per panel).
    """
    queue = shared_queue()
    alive = queue.running(job.session) + queue.waiting(job.session)
    if not job.waiting and alive <= 1:
        return
    if st.button(
        f"Stop all of this session's jobs ({alive})",
        key=key,
        icon=":material/cancel:",
        help="Queued jobs are taken out without running; running ones stop at their next step.",
    ):
        stopped = stop_session(job.session)
        st.caption(f"Stopped {stopped} {'job' if stopped == 1 else 'jobs'} of this session.")


def job_controls(job: BackgroundJob, key: str, stopping: str) -> bool:
    """The Stop of ``job`` (and of its session's jobs, ``session_jobs``) while it runs.

    Returns True while the job runs (the panel draws itself again later), False once it has
    ended: the panel then keeps its outcome. ``key`` prefixes the buttons' widget keys;
    ``stopping`` says what a Stop keeps, shown once it is pressed.
    """
    session_jobs(job, f"{key}-stop-session")
    if not job.running:
        return False
    if job.stop_requested or st.button("Stop", key=f"{key}-stop", icon=":material/stop:"):
        job.stop()
        st.caption(stopping)
    return True


def show_outcome(outcome: object, failure: str, kept: str = "") -> None:
    """How a panel's last job ended: its error, or what it made; nothing for None.

    An exception shows as an error whose message starts with ``failure`` (what was not done),
    after a caption ``kept`` (what the error left), when given; any other outcome shows as a
    success.
    """
    if isinstance(outcome, Exception):
        if kept:
            st.caption(kept)
        with shows_errors(failure):
            raise outcome
    elif outcome is not None:
        st.success(outcome)


def trace_outcome(key: str, trace_id: str) -> object:
    """The outcome kept under ``key`` when it is of trace ``trace_id``, else None.

    The session keeps it as ``(trace id, outcome)``: a panel shows it only beside that trace.
    """
    shown, outcome = st.session_state.get(key, (None, None))
    return outcome if shown == trace_id else None
