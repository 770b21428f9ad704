"""Two runs of the same tasks: paired task by task, compared by the paired difference in success.

Two models, two segmenters, with and without an intervention: each run gives every task a
verdict, and the question is whether the second run succeeds more often than the first on the
*same* tasks. Pairing by task removes the spread between easy and hard tasks, so the interval
is much narrower than comparing two success rates as if they were independent. The difference
gets a 95% paired-bootstrap interval (tasks resampled with replacement) and McNemar's exact test
on the tasks where the runs disagree.

Example:
    >>> first = [True, True, False, False, False, True]
    >>> second = [True, True, True, True, False, True]
    >>> result = compare_paired(first, second)
    >>> result.tasks, result.only_first, result.only_second, round(result.difference, 3)
    (6, 0, 2, 0.333)
    >>> round(result.p_value, 3)
    0.5

**Pairing** is by task identity, never by index alone, and says what was left.

Two trace files of "the same tasks" can number them differently (an imported file numbers its
rows; two evaluations may start at different tasks), so a task of one run is paired with the
task of the other that has the same identity: the same environment and the same question (the
hash of the prompt, ``TaskIdentity``). Two traces with the same index and different questions
are not a pair. What could not be paired is counted by reason: in one run only (and, of those,
how many sit at an index the other run gives another question), or shared but without a
verdict in one of the runs.

Example:
    >>> from llenvs.traces.records._task_identity import TaskIdentity
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

import math
import random
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from llenvs.analysis.statistics import BOOTSTRAP_RESAMPLES, Interval
from llenvs.traces.records import TaskIdentity

__all__ = [
    "PairedComparison",
    "RunPairing",
    "RunTask",
    "compare_paired",
    "mcnemar_p_value",
    "most_shared",
    "pair_runs",
]


@dataclass(frozen=True)
class PairedComparison:
    """The second run against the first, on the tasks both have a verdict for.

    Example:
        >>> compare_paired([True], [False]).only_first
        1

    """

    tasks: int
    """Tasks with a verdict in both runs."""
    first_successes: int
    """Of those, how many the first run solved."""
    second_successes: int
    """Of those, how many the second run solved."""
    only_first: int
    """Tasks the first run solved and the second did not."""
    only_second: int
    """Tasks the second run solved and the first did not."""
    difference: float
    """Second run's success rate minus the first's."""
    interval: Interval
    """95% paired-bootstrap interval of ``difference``."""
    p_value: float
    """McNemar's exact two-sided p-value (1.0 when the runs never disagree)."""


def mcnemar_p_value(only_first: int, only_second: int) -> float:
    """McNemar's exact test: the two-sided binomial p-value of the discordant pairs.

    Under "neither run is better", each task the runs disagree on goes either way with
    probability 1/2.

    Example:
        >>> mcnemar_p_value(0, 0), mcnemar_p_value(0, 6)
        (1.0, 0.03125)
        >>> mcnemar_p_value(-1, 2)
        Traceback (most recent call last):
        ...
        ValueError: counts must be >= 0, got -1 and 2

    """
    if only_first < 0 or only_second < 0:
        raise ValueError(f"counts must be >= 0, got {only_first} and {only_second}")
    n = only_first + only_second
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, k) for k in range(min(only_first, only_second) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_paired(
    first: Sequence[bool],
    second: Sequence[bool],
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> PairedComparison:
    """Compare two runs' verdicts on the same tasks, in the same order (see the module).

    Example:
        >>> compare_paired([True, False], [True])
        Traceback (most recent call last):
        ...
        ValueError: the runs must give verdicts on the same tasks: 2 and 1 verdicts
        >>> compare_paired([], [])
        Traceback (most recent call last):
        ...
        ValueError: no task has a verdict in both runs

    """
    if len(first) != len(second):
        raise ValueError(
            f"the runs must give verdicts on the same tasks: {len(first)} and {len(second)} "
            "verdicts"
        )
    if len(first) == 0:
        raise ValueError("no task has a verdict in both runs")
    change = [int(b) - int(a) for a, b in zip(first, second, strict=True)]
    rng = random.Random(seed)
    n = len(change)
    means = sorted(sum(rng.choices(change, k=n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * (resamples - 1))], means[math.ceil(0.975 * (resamples - 1))]
    only_first, only_second = change.count(-1), change.count(1)
    return PairedComparison(
        tasks=n,
        first_successes=sum(map(bool, first)),
        second_successes=sum(map(bool, second)),
        only_first=only_first,
        only_second=only_second,
        difference=sum(change) / n,
        interval=Interval(low, high),
        p_value=mcnemar_p_value(only_first, only_second),
    )


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
