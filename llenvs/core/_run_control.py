"""``RunControl``: how a run is watched, stopped and retried, as one value every long call takes.

Example:
    >>> from llenvs.core._run_events import Stopped
    >>> seen: list[RunEvent] = []
    >>> control = RunControl(observer=seen.append, stop=StopToken())
    >>> control.emit(Stopped(kept=0)); control.stopped
    False
    >>> control.stop.stop(); control.stopped, [event.kind for event in seen]
    (True, ['stopped'])

"""

from __future__ import annotations

from dataclasses import dataclass, replace

from llenvs.core._retry_policy import RetryPolicy
from llenvs.core._run_events import RunEvent, RunObserver, StopToken

__all__ = ["RunControl"]


@dataclass(frozen=True)
class RunControl:
    """Who watches a run, who can stop it, and how its failing backend calls are tried again.

    ``run_trajectory``, ``run_batch``, ``run_tasks``, ``run_segmented_evaluation``, ``branch``,
    ``intervene``, ``rerun``, ``run_rollouts``, ``analyze_trace`` and ``run_experiment`` all
    take it as ``control=``. What a run makes (a results file, an analysis store) and how it
    logs (``log=``) stay their own arguments.

    Arguments:
        observer: gets the run's events (``llenvs.core``), in order.
        stop: read between segments (or after each token, for the calls that cut generation);
            once stopped the run ends there, keeps what finished and emits ``Stopped``.
        retry: how failing backend calls are retried; None: the call's own default (no retry
            for the runner, branches and experiments; ``RetryPolicy()`` for evaluations and
            rollouts; ``NO_RETRY`` turns retrying off everywhere).

    Example:
        >>> from llenvs.core._retry_policy import NO_RETRY
        >>> RunControl().stopped, RunControl(retry=NO_RETRY).retry.attempts
        (False, 1)

    """

    observer: RunObserver | None = None
    stop: StopToken | None = None
    retry: RetryPolicy | None = None

    @property
    def stopped(self) -> bool:
        """Whether the run was asked to stop."""
        return self.stop is not None and self.stop.stopped

    def emit(self, event: RunEvent) -> None:
        """Tell the observer ``event`` (nothing without one)."""
        if self.observer is not None:
            self.observer(event)

    def watched_by(self, observer: RunObserver | None) -> RunControl:
        """The same control with ``observer`` in place of this one's (a wrapping observer)."""
        return replace(self, observer=observer)

    def retrying(self, default: RetryPolicy | None) -> RetryPolicy | None:
        """The retry policy: this control's, or ``default`` when it has none."""
        return default if self.retry is None else self.retry
