"""How an evaluation started from the workbench ended, as its headline says it.

A run whose tasks all finished is done; a run stopped early says how many tasks it kept; a run
in which any task errored (an unreachable server, a model that failed every retry) says so
first, with the count and the first error in full, never as "Done".

Example:
    >>> from llenvs.workbench.jobs._evaluation_job import TaskState, TaskStatus
    >>> statuses = {0: TaskStatus(TaskState.SUCCEEDED),
    ...             1: TaskStatus(TaskState.ERROR, error="server down")}
    >>> outcome = run_outcome(statuses, "eval.jsonl", stopped=False)
    >>> outcome.kind is OutcomeKind.ERRORS, outcome.message
    (True, '1 of 2 tasks errored (not run to the end; run again to retry them). The first, task 1: server down')

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from llenvs.workbench._wording import count
from llenvs.workbench.jobs._evaluation_job import TaskState, TaskStatus

__all__ = ["OutcomeKind", "RunOutcome", "run_outcome"]


class OutcomeKind(Enum):
    """How a run ended."""

    DONE = "done"
    """Every task ran to its end (succeeded or failed)."""
    STOPPED = "stopped"
    """Stopped by the user before every task ended; the finished ones are kept."""
    ERRORS = "errors"
    """At least one task errored: the headline is an error."""


@dataclass(frozen=True)
class RunOutcome:
    """The headline of an ended run.

    Example:
        >>> RunOutcome(OutcomeKind.DONE, "Done: 1 task in x.jsonl.").failed
        False

    """

    kind: OutcomeKind
    """How the run ended."""
    message: str
    """What the headline says."""

    @property
    def failed(self) -> bool:
        """True when the headline is an error (shown in the error colour)."""
        return self.kind is OutcomeKind.ERRORS


def run_outcome(statuses: Mapping[int, TaskStatus], file_name: str, *, stopped: bool) -> RunOutcome:
    """The headline of a run whose tasks ended with ``statuses``, kept in ``file_name``.

    Example:
        >>> failed = TaskStatus(TaskState.FAILED)
        >>> run_outcome({0: failed}, "x.jsonl", stopped=False).message
        'Done: 1 task in x.jsonl.'
        >>> run_outcome({0: failed, 1: TaskStatus()}, "x.jsonl", stopped=True)
        ... # doctest: +NORMALIZE_WHITESPACE
        RunOutcome(kind=<OutcomeKind.STOPPED: 'stopped'>,
                   message='Stopped: 1 of 2 tasks kept in x.jsonl; run again to resume.')

    """
    errored = [(task, s) for task, s in statuses.items() if s.state is TaskState.ERROR]
    done = sum(s.state.ended for s in statuses.values())
    total = len(statuses)
    if errored:
        task, first = errored[0]
        cut = " The run was stopped before the other tasks ended." if stopped else ""
        return RunOutcome(
            OutcomeKind.ERRORS,
            f"{len(errored)} of {count(total, 'task')} errored (not run to the end; run again "
            f"to retry them).{cut} The first, task {task}: {first.error or 'no message'}",
        )
    if stopped and done < total:
        return RunOutcome(
            OutcomeKind.STOPPED,
            f"Stopped: {done} of {total} tasks kept in {file_name}; run again to resume.",
        )
    return RunOutcome(OutcomeKind.DONE, f"Done: {count(total, 'task')} in {file_name}.")
