"""Pairing two runs task by task: by task identity, never by index alone, saying what was left.

Two trace files of "the same tasks" can number them differently (an imported file numbers its
rows; two evaluations may start at different tasks), so a task of one run is paired with the
task of the other that has the same identity: the same environment and the same question (the
hash of the prompt, ``TaskIdentity``). Two traces with the same index and different questions
are not a pair. What could not be paired is counted by reason: in one run only (and, of those,
how many sit at an index the other run gives another question), or shared but without a
verdict in one of the runs.

Example:
    >>> from llenvs.traces.task_identity import TaskIdentity
    >>> four, three = TaskIdentity.of("products", "4 * 3?"), TaskIdentity.of("products", "3 * 3?")
    >>> a = [RunTask(four, 0, True)]
    >>> b = [RunTask(three, 0, False)]
    >>> pairing = pair_runs(a, b)
    >>> pairing.paired, pairing.index_clashes
    (0, 1)
    >>> pairing.describe("a", "b")
    'no task paired: 1 task only in a, 1 only in b (1 at an index b gives another question)'

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass

from llenvs.traces.task_identity import TaskIdentity

__all__ = ["RunPairing", "RunTask", "most_shared", "pair_runs"]


@dataclass(frozen=True)
class RunTask:
    """One task of a run, as pairing sees it: its identity, its index there, its verdict.

    Example:
        >>> RunTask(TaskIdentity.of("e", "q"), 3, None).success is None
        True

    """

    identity: TaskIdentity
    """The task's environment and prompt hash."""
    task_index: int
    """Its index in this run's file (shown, never matched on alone)."""
    success: bool | None
    """The run's verdict on it; None when there is none."""


@dataclass(frozen=True)
class RunPairing:
    """Two runs' tasks paired by identity, and how many could not be paired, by reason.

    Example:
        >>> t = RunTask(TaskIdentity.of("e", "q"), 0, True)
        >>> pair_runs([t], [t]).pairs == ((t, t),)
        True

    """

    pairs: tuple[tuple[RunTask, RunTask], ...]
    """The tasks both runs hold with a verdict: (the first run's, the second's), in order."""
    only_first: int
    """Tasks of the first run the second does not hold."""
    only_second: int
    """Tasks of the second run the first does not hold."""
    index_clashes: int
    """Of the first run's unpaired tasks, those at an index where the second has another
    question (the same environment): an index pairing would have paired them wrongly."""
    no_verdict: int
    """Tasks both runs hold, without a verdict in one of them (or both)."""

    @property
    def paired(self) -> int:
        """How many tasks were paired.

        Example:
            >>> pair_runs([], []).paired
            0

        """
        return len(self.pairs)

    def describe(self, first: str, second: str) -> str:
        """What was paired and why the rest was not, in words (``first``, ``second``: names).

        Example:
            >>> t = RunTask(TaskIdentity.of("e", "q"), 0, True)
            >>> pair_runs([t], [t]).describe("a", "b")
            '1 task paired by question; every task is in both runs'

        """
        head = f"{_tasks(self.paired)} paired by question" if self.pairs else "no task paired"
        why = []
        if self.only_first or self.only_second:
            clash = (
                f" ({self.index_clashes} at an index {second} gives another question)"
                if self.index_clashes
                else ""
            )
            why.append(
                f"{_tasks(self.only_first)} only in {first}, {self.only_second} only in "
                f"{second}{clash}"
            )
        if self.no_verdict:
            why.append(f"{_tasks(self.no_verdict)} in both without a verdict in one")
        return f"{head}: {'; '.join(why)}" if why else f"{head}; every task is in both runs"


def pair_runs(first: Iterable[RunTask], second: Iterable[RunTask]) -> RunPairing:
    """Pair the tasks of two runs by identity (a task a run holds twice counts once, first).

    Example:
        >>> same = TaskIdentity.of("e", "q")
        >>> p = pair_runs([RunTask(same, 0, True)], [RunTask(same, 9, None)])
        >>> p.paired, p.no_verdict
        (0, 1)

    """
    ones, twos = _by_identity(first), _by_identity(second)
    pairs, no_verdict = [], 0
    for identity, one in ones.items():
        two = twos.get(identity)
        if two is None:
            continue
        if one.success is None or two.success is None:
            no_verdict += 1
        else:
            pairs.append((one, two))
    indices = {(t.identity.environment, t.task_index) for t in twos.values()}
    unpaired = [t for i, t in ones.items() if i not in twos]
    return RunPairing(
        pairs=tuple(pairs),
        only_first=len(unpaired),
        only_second=sum(1 for i in twos if i not in ones),
        index_clashes=sum(1 for t in unpaired if (t.identity.environment, t.task_index) in indices),
        no_verdict=no_verdict,
    )


def most_shared(runs: Mapping[str, Set[TaskIdentity]]) -> tuple[str, str] | None:
    """The two runs (by name) that share the most tasks by identity; None when no two share one.

    Of pairs sharing as many, the first in ``runs``' order wins (the earlier run first), so a
    folder's trace files, listed before its experiments, are preferred among equals.

    Example:
        >>> q = [TaskIdentity.of("products", f"{n} * 3?") for n in range(4)]
        >>> most_shared({"a": {q[0]}, "b": {q[1], q[2]}, "c": {q[1], q[2], q[3]}})
        ('b', 'c')
        >>> most_shared({"a": {q[0]}, "b": {q[1]}}) is None
        True

    """
    names = list(runs)
    best, most = None, 0
    for at, first in enumerate(names):
        for second in names[at + 1 :]:
            shared = len(runs[first] & runs[second])
            if shared > most:
                best, most = (first, second), shared
    return best


def _by_identity(tasks: Iterable[RunTask]) -> dict[TaskIdentity, RunTask]:
    found: dict[TaskIdentity, RunTask] = {}
    for task in tasks:
        found.setdefault(task.identity, task)
    return found


def _tasks(count: int) -> str:
    return f"{count} task" if count == 1 else f"{count} tasks"
