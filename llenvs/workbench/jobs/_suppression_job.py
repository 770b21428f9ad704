"""Attention suppression and receiver heads of a trace, computed in the background with a Stop.

Browse's "Which step led to which" shows the black-box matrix beside the model's own reading of
the trace (``llenvs.analysis.instruments.attention_suppression``): one forward pass per step
with that step masked, a batch at a time, and one with attentions kept. ``SuppressionJob``
runs it on the job queue; ``done`` and ``total`` count the masked steps so far, and a Stop ends
it between two batches (a stopped job keeps nothing). A trace longer than ``MAX_TOKENS``
tokens is refused before anything runs: every pass reads the whole trace.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...           segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> job = SuppressionJob(t, get_backend("scripted", outputs=["x"]))
    >>> job.wait(10), job.result, type(job.error).__name__
    (True, None, 'AttentionError')

"""

from __future__ import annotations

from llenvs.analysis.instruments import AttentionError, Suppression, attention_suppression
from llenvs.core import ModelBackend
from llenvs.traces import Trace
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["MAX_TOKENS", "SuppressionJob"]

MAX_TOKENS = 4096
"""The longest response (in the model's tokens) the workbench masks step by
step: each of its steps is one forward pass over all of them."""


class SuppressionJob(BackgroundJob):
    """``attention_suppression(trace, backend)`` in the background; ``result`` once done."""

    def __init__(self, trace: Trace, backend: ModelBackend, *, session: str = "") -> None:
        super().__init__(name="llenvs-suppression", start=False, session=session, model=backend)
        self.trace = trace
        """The trace read."""
        self.backend = backend
        """The model that reads it."""
        self.done = 0
        """Masked steps read so far."""
        self.total = max(0, len(trace.segments) - 1)
        """Masked steps to read."""
        self.result: Suppression | None = None
        """The suppression, once finished (None if stopped or failed)."""
        self.start()

    def work(self) -> None:
        """Refuse a trace too long to mask step by step; else run the suppression."""
        weights = self.backend.capabilities.weights
        if weights is not None:
            tokens = len(weights().tokenizer(self.trace.response)["input_ids"])
            if tokens > MAX_TOKENS:
                raise AttentionError(
                    f"the trace has {tokens:,} tokens: attention suppression reads all of them "
                    f"once per step ({len(self.trace.segments)} steps), so the workbench runs "
                    f"it on traces of at most {MAX_TOKENS:,} tokens (`llenvs analyze "
                    "--suppression` runs any length)"
                )
        self.result = attention_suppression(
            self.trace, self.backend, progress=self._progress, stop=self.stop_token
        )

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
