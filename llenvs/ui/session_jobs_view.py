"""A Stop for all of this browser session's jobs, beside the job a panel shows.

A panel shows its job's times with ``BackgroundJob.clock`` (time queued apart from time run).
When this session has more than the one job on screen, or that job still waits for a worker,
a button stops all of them: queued ones are taken out without running (``JobDropped``),
running ones end at their next step.
"""

from __future__ import annotations

import streamlit as st

from llenvs.workbench.background_job import BackgroundJob, stop_session
from llenvs.workbench.job_queue import shared_queue

__all__ = ["session_jobs"]


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
