"""An intervention running in the background: its new segments as they come, and a Stop.

The workbench starts one ``InterventionJob`` per click. It runs the library's ``intervene`` in
a thread of its own, so the page stays live while the model generates: every widget click
reruns the page, which must not cut a generation short. The page reads the segments generated
so far (``segments``) and asks the job to stop (``stop``): the runner then ends the branch
between two segments and ``intervene`` keeps it, marked truncated, in the sidecar. A failure is
kept (``error``) for the page to show; ``intervene`` wrote nothing for it.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.evaluation import BranchRequest
    >>> from llenvs.traces import write_traces
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = write_traces(path, [parent])
    >>> job = InterventionJob(path, BranchRequest(parent, 1, COMPLETE),
    ...                       get_backend("scripted", outputs=["So 100. <answer>100</answer>"]))
    >>> job.wait(60)
    True
    >>> [child.success for child in job.children], job.error, len(job.segments())
    ([True], None, 1)

"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from llenvs.analysis.instruments import default_similarity
from llenvs.core import ModelBackend, RunControl, RunEvent, Substitute
from llenvs.evaluation import BranchRequest, StepTaken, intervene
from llenvs.evaluation.branching import OnPolicy
from llenvs.traces import SegmentFlag, SegmentRecord, Trace, branches_path
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["SUBSTITUTE_ON_POLICY", "InterventionJob"]

SUBSTITUTE_ON_POLICY = 8
"""Continuations a substitute's chosen text and its target are each placed among."""


class InterventionJob(BackgroundJob):
    """``intervene(path, request, backend, ...)`` in a background thread.

    Arguments are ``intervene``'s (a ``Resample`` carries its own sampling; ``on_policy`` is
    its ``on_policy_score``); the thread starts at once. A ``Substitute`` is searched for in
    the thread too, its tries measured with MiniLM (else the lexical similarity, named), its
    chosen text and target each placed among ``SUBSTITUTE_ON_POLICY`` continuations of the
    model's own where the model can score a text. ``stop`` ends every branch
    after the segment being generated; what was made is kept, marked truncated.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        request: BranchRequest,
        backend: ModelBackend,
        *,
        prm: str | None = None,
        prm_options: Mapping[str, Any] | None = None,
        session: str = "",
        on_policy: OnPolicy | None = None,
    ) -> None:
        super().__init__(name="llenvs-intervene", start=False, session=session, model=backend)
        self.request = request
        """The parent, the branch point and the intervention."""
        self.trace = request.parent
        """The parent."""
        self.sidecar = branches_path(path)
        """Where the branches go."""
        self.samples = request.samples
        """How many branches are being made."""
        self.first_segment: float | None = None
        """When the first new segment arrived, or None yet."""
        self.children: list[Trace] = []
        """The branches written, once finished without error (on error nothing was)."""
        self.on_policy = on_policy
        """The forced text's on-policy score, recorded on the branch (None: not scored)."""
        self._call = (path, backend, prm, dict(prm_options or {}))
        self._segments: list[tuple[int, SegmentRecord]] = []
        self._lock = threading.Lock()
        self.start()

    def segments(self) -> list[tuple[int, SegmentRecord]]:
        """``(sample, segment)`` for every new segment so far (forced or generated)."""
        with self._lock:
            return list(self._segments)

    def _observe(self, event: RunEvent) -> None:
        """Keep each new segment as it comes (``StepTaken``: its sample and its record)."""
        if not isinstance(event, StepTaken):
            return
        with self._lock:
            self._segments.append((event.trajectory, event.segment))
            if self.first_segment is None and SegmentFlag.GENERATED in event.flags:
                self.first_segment = time.perf_counter()

    def work(self) -> None:
        """Branch, appending to the sidecar; the segments are seen as they come."""
        path, backend, prm, prm_options = self._call
        self.children = intervene(
            path,
            self.request,
            backend,
            prm=prm,
            prm_options=prm_options,
            control=RunControl(self._observe, self.stop_token),
            on_policy_score=self.on_policy,
            **_substitute_options(self.request, backend),
        )


def _substitute_options(request: BranchRequest, backend: ModelBackend) -> dict[str, Any]:
    """``intervene``'s options for a substitute (none for any other intervention)."""
    if not isinstance(request.intervention, Substitute):
        return {}
    scores = backend.capabilities.score is not None
    return {
        "similarity": default_similarity(),
        "on_policy_samples": SUBSTITUTE_ON_POLICY if scores else 0,
    }
