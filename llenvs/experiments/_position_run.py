"""``PositionRun``: an experiment's branches at one position, as a run Compare runs can pick.

Compare runs compares runs that each hold one trace per task, paired by task identity. An
experiment holds several branches per parent, one per intervened position (and per sample), so
it is offered as one run per position: the branches made at that position, each standing for
its parent's task. Compared with the parents' file, such a run gives the paired difference
before → after at that position, the same numbers as the experiment's summary of those
branches (``summarize(run.branches)``).

Positions are the recipe's: for relative positions, each fraction ``f`` (its branches are those
at segment ``min(n - 1, floor(f * n))`` of a parent of ``n`` segments, the rule the recipe
picked them by; a branch two fractions fall on belongs to both, as it was made once for both);
for every other rule, each intervened segment index. Where the recipe takes more than one
sample per point, each sample is a run of its own ("sample 0", "sample 1", ...): samples are
independent draws at the same point, a run pairs one trace per task, and a run that mixed them
would have to drop or vote on all but one, so its numbers would no longer be the summary's.

Example:
    >>> from llenvs.experiments._branch_outcome import BranchOutcome
    >>> from llenvs.experiments._where import RelativePositions
    >>> def branch(parent, segment, segments):
    ...     return BranchOutcome(parent, 0, segment, segment, segments, 0, 0, f"b{parent}{segment}",
    ...                          False, "8", True, "100")
    >>> outcomes = [branch("a", 1, 4), branch("a", 2, 4), branch("b", 0, 2), branch("b", 1, 2)]
    >>> runs = position_runs("hint", RelativePositions((0.25, 0.5)), 1, outcomes)
    >>> [(run.name, [b.branch_id for b in run.branches]) for run in runs]
    [('hint @ position 0.25', ['ba1', 'bb0']), ('hint @ position 0.5', ['ba2', 'bb1'])]

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from llenvs.analysis import RunTask
from llenvs.experiments._branch_outcome import BranchOutcome
from llenvs.experiments._where import RelativePositions, Where
from llenvs.traces.records import TaskIdentity

__all__ = ["ParentTask", "PositionRun", "RunRow", "RunRows", "position_runs"]

POSITION_SEPARATOR = " @ "
"""Between an experiment's name and its position in a run's name."""


@dataclass(frozen=True)
class ParentTask:
    """A parent trace as a position run needs it: its task and its line in the parents' file.

    Example:
        >>> ParentTask(TaskIdentity.of("e", "q"), 3, 1).task_index
        3

    """

    identity: TaskIdentity
    """The parent's task: its environment and prompt hash."""
    task_index: int
    """Its task index in the parents' file."""
    line: int
    """Its line in the parents' file (from 1)."""


@dataclass(frozen=True)
class RunRow:
    """One branch of a position run: its parent's task, its own verdict, where its trace is.

    Example:
        >>> row = RunRow(TaskIdentity.of("e", "q"), 0, 1, "b", 4, True, 2)
        >>> row.task().success
        True

    """

    identity: TaskIdentity
    """The parent's task (the branch is paired by it)."""
    task_index: int
    """The parent's task index."""
    parent_line: int
    """The parent's line in the parents' file."""
    branch_id: str
    """The branch trace's id."""
    line: int | None
    """The branch trace's line in the branches file (from 1); None where it is not there."""
    success: bool | None
    """The branch's verdict, as the experiment file records it (after)."""
    segment: int
    """The intervened segment of the parent."""

    def task(self) -> RunTask:
        """The branch as pairing sees it: its parent's task, with the branch's verdict."""
        return RunTask(self.identity, self.task_index, self.success)


@dataclass(frozen=True)
class RunRows:
    """A position run's branches joined to their parents, and those that could not be.

    Example:
        >>> RunRows((), 1, 0).describe()
        '1 branch left out: its parent is not in the parents’ file'

    """

    rows: tuple[RunRow, ...]
    """One per branch whose parent was found, in the parents' line order."""
    no_parent: int
    """Branches whose parent trace is not in the parents' file."""
    same_task: int
    """Branches left out because an earlier parent of the run has the same task (a run pairs
    one trace per task, as the parents' file's first line of a task is paired)."""

    def tasks(self) -> list[RunTask]:
        """The rows as pairing sees them (``pair_runs``).

        Example:
            >>> RunRows((), 0, 0).tasks()
            []

        """
        return [row.task() for row in self.rows]

    def describe(self) -> str:
        """What was left out and why, in words ("" when nothing was).

        Example:
            >>> RunRows((), 0, 2).describe()
            '2 branches left out: their parent’s task is an earlier parent’s too'

        """
        parts = []
        if self.no_parent:
            parts.append(
                f"{_branches(self.no_parent)} left out: "
                f"{_its(self.no_parent)} parent is not in the parents’ file"
            )
        if self.same_task:
            parts.append(
                f"{_branches(self.same_task)} left out: "
                f"{_its(self.same_task)} parent’s task is an earlier parent’s too"
            )
        return "; ".join(parts)


@dataclass(frozen=True)
class PositionRun:
    """An experiment's branches at one position (and sample): a run (see the module).

    Example:
        >>> PositionRun("hint", "position 0.5", 1, ()).name
        'hint @ position 0.5, sample 1'

    """

    experiment: str
    """The experiment's name (its file's, without ``.experiment.jsonl``)."""
    position: str
    """The position in words: ``position 0.25`` or ``segment 3``."""
    sample: int | None
    """The sample (from 0) where the recipe takes several per point, else None."""
    branches: tuple[BranchOutcome, ...]
    """The branches made there, in the experiment file's order."""

    @property
    def name(self) -> str:
        """``EXPERIMENT @ position p`` (``, sample s`` where there are several)."""
        sample = "" if self.sample is None else f", sample {self.sample}"
        return f"{self.experiment}{POSITION_SEPARATOR}{self.position}{sample}"

    def rows(self, parents: Mapping[str, ParentTask], lines: Mapping[str, int]) -> RunRows:
        """The branches joined to their parents (by parent id) and to their trace lines.

        ``parents``: the parents' file's traces by trace id; ``lines``: the branches file's
        lines by trace id. Rows come in the parents' line order, and a task keeps the branch of
        its first parent only (as Compare runs pairs the first line of a task).

        Example:
            >>> one = TaskIdentity.of("e", "q")
            >>> b = [BranchOutcome(p, 0, 1, 1, 4, 0, 0, "b" + p, True, "1", False, "2")
            ...      for p in ("x", "y", "z")]
            >>> run = PositionRun("hint", "segment 1", None, tuple(b))
            >>> parents = {"x": ParentTask(one, 0, 2), "y": ParentTask(one, 0, 1)}
            >>> rows = run.rows(parents, {"bx": 7})
            >>> [(r.branch_id, r.line) for r in rows.rows], rows.no_parent, rows.same_task
            ([('by', None)], 1, 1)

        """
        found = [(parents[b.parent_id], b) for b in self.branches if b.parent_id in parents]
        found.sort(key=lambda pair: pair[0].line)
        rows: dict[TaskIdentity, RunRow] = {}
        for parent, branch in found:
            rows.setdefault(
                parent.identity,
                RunRow(
                    parent.identity,
                    parent.task_index,
                    parent.line,
                    branch.branch_id,
                    lines.get(branch.branch_id),
                    branch.success,
                    branch.segment,
                ),
            )
        return RunRows(
            tuple(rows.values()),
            no_parent=len(self.branches) - len(found),
            same_task=len(found) - len(rows),
        )


def position_runs(
    experiment: str, where: Where, samples: int, outcomes: Sequence[BranchOutcome]
) -> list[PositionRun]:
    """The runs of an experiment: one per position, and per sample where ``samples`` > 1.

    ``where`` is the recipe's rule and ``samples`` its samples per point (a sample number
    recorded beyond it counts too). Positions with no branch recorded give no run.

    Example:
        >>> from llenvs.experiments._where import SegmentAt
        >>> b = [BranchOutcome("p", 0, 2, 2, 4, s, s, f"b{s}", True, "1", s == 0, "1")
        ...      for s in (0, 1)]
        >>> [run.name for run in position_runs("x", SegmentAt(2), 2, b)]
        ['x @ segment 2, sample 0', 'x @ segment 2, sample 1']
        >>> position_runs("x", SegmentAt(2), 1, [])
        []

    """
    count = max([samples, *(o.sample + 1 for o in outcomes)])
    sample_numbers: Iterable[int | None] = range(count) if count > 1 else [None]
    runs = []
    for position, inside in _by_position(where, outcomes):
        for sample in sample_numbers:
            chosen = tuple(o for o in inside if sample is None or o.sample == sample)
            if chosen:
                runs.append(PositionRun(experiment, position, sample, chosen))
    return runs


def _by_position(
    where: Where, outcomes: Sequence[BranchOutcome]
) -> list[tuple[str, list[BranchOutcome]]]:
    """The branches at each of the recipe's positions, in the recipe's (or segment) order."""
    if isinstance(where, RelativePositions):
        return [
            (f"position {fraction:g}", [o for o in outcomes if _at_fraction(o, fraction)])
            for fraction in where.fractions
        ]
    segments = sorted({o.segment for o in outcomes})
    return [(f"segment {s}", [o for o in outcomes if o.segment == s]) for s in segments]


def _at_fraction(outcome: BranchOutcome, fraction: float) -> bool:
    """Whether ``RelativePositions`` puts ``fraction`` on the branch's segment (its rule)."""
    count = outcome.segments
    return count > 0 and RelativePositions.segment_at(fraction, count) == outcome.segment


def _branches(count: int) -> str:
    return f"{count} branch" if count == 1 else f"{count} branches"


def _its(count: int) -> str:
    return "its" if count == 1 else "their"
