r"""Step values of a trace under several segmenters, computed in the background with a Stop.

``SegmenterValuesJob`` runs ``compare_segmenters`` on a worker (``BackgroundJob``): each
segmenter's cut of the trace is analysed in turn, its rollouts stored in the trace file's
analysis sidecar as they come, and the comparison stored there once every cut is done. The
page reads which cut is being analysed and how far (``progress``) and asks it to stop
(``stop``): the calls in progress end at the backend's next token, the finished rounds are
kept, and the next run resumes from them.

Example:
    >>> import tempfile, pathlib
    >>> trace = leg_counting_trace("Count. So 8.\n\nSo 9. <answer>8</answer>")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> backend = get_backend("scripted", outputs=["So 100. <answer>100</answer>"])
    >>> job = SegmenterValuesJob(path, trace, ["sentence", "line:\\n\\n"], backend,
    ...                          AnalysisParams(budget=4))
    >>> job.wait(60), job.error, [v.spec for v in job.comparison.segmenters]
    (True, None, ['sentence', 'line:\\n\\n'])

"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

from llenvs.analysis import (
    AnalysisParams,
    RolloutsProgress,
    SegmenterComparison,
    analysis_path,
    compare_segmenters,
)
from llenvs.core import ModelBackend, RunControl, RunEvent, TokenGenerated
from llenvs.traces import Trace
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["SegmenterValuesJob"]


class SegmenterValuesJob(BackgroundJob):
    """``compare_segmenters(trace, specs, backend, params, store=<sidecar of path>)``.

    The thread starts at once; ``comparison`` is the result once it ends (marked ``stopped``
    when a stop ended it before every cut was analysed).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        trace: Trace,
        specs: Sequence[str],
        backend: ModelBackend,
        params: AnalysisParams,
        *,
        session: str = "",
    ) -> None:
        super().__init__(name="llenvs-segmenters", start=False, session=session, model=backend)
        self.trace = trace
        """The trace compared."""
        self.specs = tuple(specs)
        """The segmenters, in order."""
        self.params = params
        """Each cut's budget and sampling."""
        self.store = analysis_path(path)
        """The sidecar the rollouts and the comparison go to."""
        self.comparison: SegmenterComparison | None = None
        """What the run found, once it ended."""
        self._backend = backend
        self._cut = 0
        self._rollouts = (0, 0)
        self._tokens = 0
        self._lock = threading.Lock()
        self.start()

    def progress(self) -> tuple[int, int, int, int]:
        """``(cut being analysed, from 1; cuts; its rollouts finished; its rollouts planned)``."""
        with self._lock:
            return self._cut, len(self.specs), *self._rollouts

    def tokens(self) -> int:
        """Tokens generated in this run so far."""
        with self._lock:
            return self._tokens

    def _observe(self, event: RunEvent) -> None:
        with self._lock:
            if isinstance(event, RolloutsProgress):
                if event.done == 0:  # a new cut's analysis starts
                    self._cut += 1
                self._rollouts = (event.done, event.planned)
            elif isinstance(event, TokenGenerated):
                self._tokens += 1

    def work(self) -> None:
        """Analyse every cut; a stop ends it at the next token, what finished kept."""
        self.comparison = compare_segmenters(
            self.trace,
            self.specs,
            self._backend,
            self.params,
            store=self.store,
            control=RunControl(self._observe, self.stop_token),
        )
