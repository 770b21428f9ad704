"""A job's Stop, and a Stop for all of this browser session's jobs, beside the job a panel shows.

``job_controls`` draws both for every panel that runs a job. A panel shows its job's times
with ``BackgroundJob.clock`` (time queued apart from time run). When this session has more than
the one job on screen, or that job still waits for a worker, a button stops all of them: queued
ones are taken out without running (``JobDropped``), running ones end at their next step.
"""

from __future__ import annotations

import streamlit as st

from llenvs.workbench.jobs import BackgroundJob, shared_queue, stop_session

__all__ = ["job_controls", "session_jobs"]


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
