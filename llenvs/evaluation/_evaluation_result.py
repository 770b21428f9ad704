"""``EvaluationResult``: what ``run_segmented_evaluation`` returns: one trace per task.

Example:
    >>> from llenvs.traces import TaskRecord, Trace
    >>> ok = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(), success=True)
    >>> bad = Trace(task=TaskRecord("e", "a", {}, 1, "q"), response="", segments=(),
    ...             success=False, error="BackendError: down")
    >>> result = EvaluationResult((ok, bad))
    >>> result.success_rate, result.errors
    (0.5, {1: 'BackendError: down'})

"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from llenvs.evaluation.episodes import TrajectoryResult
from llenvs.traces.files import write_traces
from llenvs.traces.records import Trace

__all__ = ["EvaluationResult"]


@dataclass(frozen=True)
class EvaluationResult:
    """The traces of an evaluation, one per task in task order, with the live results.

    Example:
        >>> EvaluationResult(()).success_rate
        0.0

    """

    traces: tuple[Trace, ...]
    """One trace per task, in the order of the tasks (resumed tasks included)."""
    results: Mapping[int, TrajectoryResult] = field(default_factory=dict)
    """The trajectories run by this call, by task index (resumed tasks are only traces)."""
    resumed: int = 0
    """Tasks taken finished from the results file instead of being run again."""
    log_path: Path | None = None
    """The JSONL event log of the run, when the ``file`` target was on."""

    @property
    def num_tasks(self) -> int:
        """Number of tasks (one trace each).

        Example:
            >>> EvaluationResult(()).num_tasks
            0

        """
        return len(self.traces)

    @property
    def success_rate(self) -> float:
        """Share of tasks whose trajectory succeeded (an errored one did not); 0.0 for none.

        Example:
            >>> EvaluationResult(()).success_rate
            0.0

        """
        if not self.traces:
            return 0.0
        return sum(bool(t.success) for t in self.traces) / len(self.traces)

    @property
    def errors(self) -> dict[int, str]:
        """The backend failure of each errored trajectory, by task index.

        Example:
            >>> EvaluationResult(()).errors
            {}

        """
        return {t.task.task_index: t.error for t in self.traces if t.error is not None}

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the traces to a JSONL trace file, atomically; return its path.

        Example:
            >>> import tempfile, pathlib
            >>> from llenvs.traces import read_traces
            >>> out = EvaluationResult(()).save(pathlib.Path(tempfile.mkdtemp()) / "r.jsonl")
            >>> list(read_traces(out))
            []

        """
        write_traces(path, self.traces)
        return Path(path)
