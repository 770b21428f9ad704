"""Where a failed trace went wrong: a bisection for the first step after which its value stays low.

A failed trace's value ends at 0 (its own verdict, exact). ``FirstDropSchedule`` looks for the
first step across which the value falls by at least δ, without sampling every boundary: it
measures the value at the start and at the last sampled boundary, then bisects over prefixes
for the first boundary that has come down to the level the trace ends at: the line is δ/2
above that level (midway between the two when they are closer), each probe sampled until its
Wilson interval is clear of it, or ``most`` rollouts. Once the crossing is one step wide,
both of its boundaries are sampled to ``settle`` rollouts; if the value before it is already δ
below the start, an earlier drop may be the first, and the search goes on before it, against
that lower level. A crossing smaller than δ is a slide, not a drop. ``first_drop`` reads the
answer from the tallies at any time: the step, the steps it can be in, and the values on both
sides.

With no drop between the start and the last sampled boundary, the last step (the one that
gave the answer) is measured against the trace's own verdict. The search assumes that a drop
is for good (bisection sees a few boundaries only): a dip that recovers can be taken for the
drop, and a value that rises far above the start before it falls is measured from the start.
Its cost grows with the log of the number of steps.

Example:
    >>> from llenvs.analysis.statistics._tally import Tally
    >>> curve = [0.9] * 6 + [0.1] * 4      # the value drops across step 5, for good
    >>> tallies = {b: Tally(0, 0) for b in range(10)} | {10: Tally(0, 1, exact=True)}
    >>> schedule = FirstDropSchedule()
    >>> while asked := schedule.next_round(tallies, 1000, 0.3):
    ...     for b in asked:  # a noiseless oracle: the share of successes is the value
    ...         t = tallies[b]
    ...         tallies[b] = Tally(round(curve[b] * (t.trials + 1)), t.trials + 1)
    >>> found = first_drop(tallies)
    >>> found.step, (found.low, found.high), sum(t.trials for t in tallies.values() if not t.exact)
    (5, (5, 5), 184)

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from llenvs.analysis.statistics._changepoints import MOVE_DELTA
from llenvs.analysis.statistics._interval import wilson_interval
from llenvs.analysis.statistics._tally import Tally

__all__ = ["FirstDrop", "FirstDropSchedule", "first_drop"]

PROBE = 8
"""Rollouts a boundary gets when it is first probed."""
MORE = 4
"""Rollouts added to a probe whose side of the line is still in doubt."""
MOST = 48
"""Most rollouts at one probe: past it, its point estimate decides its side."""
SETTLE = 40
"""Rollouts both boundaries of the crossing get, to measure the drop's size."""


@dataclass(frozen=True)
class FirstDrop:
    """The first drop of a trace's value by at least ``delta``, as far as the tallies tell."""

    step: int | None
    """The step the value drops across (from boundary ``step`` to ``step + 1``); None: none
    found, or not yet narrowed to one step (``low`` and ``high`` say where it is)."""
    low: int | None
    """The earliest step it can be in (with 95% confidence in each probe's side)."""
    high: int | None
    """The latest step it can be in."""
    before: float | None
    """The value before the drop (at boundary ``step``)."""
    after: float | None
    """The value after it (at boundary ``step + 1``)."""
    done: bool
    """True when the search has nothing more to ask (False: the budget ended it)."""
    reason: str
    """The answer in words, for the CLI and the panel."""


@dataclass(frozen=True)
class FirstDropSchedule:
    """Bisection over prefixes for the first drop of the value by at least ``delta``.

    A ``Schedule``: each round asks for rollouts at one boundary (the start, a probe, or a side
    of the crossing to settle), and an empty round means the search is over. It reads only the
    tallies, so an interrupted search resumes where it was.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> FirstDropSchedule().next_round({0: Tally(0, 0), 1: Tally(0, 0)}, 99, 0.3) == [0] * 40
        True

    """

    delta: float = MOVE_DELTA
    """The size of the drop sought."""
    probe: int = PROBE
    """Rollouts a boundary gets when it is first probed."""
    more: int = MORE
    """Rollouts added to a probe whose side is in doubt."""
    most: int = MOST
    """Most rollouts at one probe."""
    settle: int = SETTLE
    """Rollouts both boundaries of a one-step crossing get."""

    def __post_init__(self) -> None:
        if not 0 < self.delta <= 1:
            raise ValueError(f"delta must be in (0, 1], got {self.delta}")
        if not 1 <= self.probe <= self.most or self.more < 1 or self.settle < 1:
            raise ValueError("need 1 <= probe <= most, more >= 1 and settle >= 1")

    def next_round(
        self,
        tallies: Mapping[int, Tally],
        budget_left: int,
        width: float,
        *,
        prices: Mapping[int, float] | None = None,
    ) -> list[int]:
        """The rollouts the search asks for next (``width`` and ``prices`` are not consulted)."""
        _, asked = _search(tallies, self)
        return asked[: max(0, budget_left)]


def first_drop(
    tallies: Mapping[int, Tally],
    delta: float = MOVE_DELTA,
    schedule: FirstDropSchedule | None = None,
) -> FirstDrop:
    """The first drop by ``delta`` the tallies show (read as ``FirstDropSchedule`` searched).

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> first_drop({0: Tally(0, 0), 1: Tally(0, 1, exact=True)}).reason
        'not searched yet: the start has no rollouts'
        >>> first_drop({0: Tally(1, 2), 1: Tally(0, 1, exact=True)}).reason
        'not searched yet: the start has only 2 of the 40 rollouts it starts with'

    """
    return _search(tallies, schedule or FirstDropSchedule(delta))[0]


def _search(tallies: Mapping[int, Tally], s: FirstDropSchedule) -> tuple[FirstDrop, list[int]]:
    """The answer so far and the rollouts the search wants next (none: it is over).

    The line a probe is judged against is ``delta / 2`` above the value at the low end of the
    span searched (first the last sampled boundary), or midway when the start is nearer. When
    the value just before the crossing is already ``delta`` below the start, an earlier drop
    may be the first: the span shrinks to end there, and the search goes on.
    """
    order = sorted(tallies)
    if not order:
        return _none("nothing to search: no boundaries", done=True), []
    start = order[0]
    if _short(tallies[start], s.settle):
        have = tallies[start].trials
        said = f"only {have} of the {s.settle} rollouts it starts with" if have else "no rollouts"
        return _none(f"not searched yet: the start has {said}"), _ask(tallies, start, s.settle)
    sampled = [i for i, b in enumerate(order) if not tallies[b].exact]
    last = sampled[-1] if sampled else len(order) - 1  # the exact end is the answer's own step
    if not _known(tallies[order[last]]):
        return _none("probing the end"), _ask(tallies, order[last], s.probe)
    high = tallies[start].rate
    candidate: FirstDrop | None = None
    while True:
        low = tallies[order[last]].rate
        end = tallies[order[-1]]
        if high - low < s.delta:  # no drop of delta up to the last sampled boundary
            if last < len(order) - 1 and low - end.rate >= s.delta:
                # but the answer's own step falls
                if _short(tallies[order[last]], s.settle):
                    return _none("measuring the last step"), _ask(tallies, order[last], s.settle)
                step = order[last]
                reason = f"step {step}, the last: the value falls {low:.2f} → {end.rate:.2f}"
                return FirstDrop(step, step, step, low, end.rate, True, reason), []
            if candidate is not None:
                return candidate, []
            reason = (
                f"no drop of {s.delta:g}: the value is {high:.2f} at boundary {start} and "
                f"{low:.2f} at boundary {order[last]}"
            )
            return _none(reason, done=True), []
        line = min((high + low) / 2, low + s.delta / 2)
        known = [i for i in range(last + 1) if _known(tallies[order[i]])]
        below = next(i for i in known if _below(tallies[order[i]], line))
        above = max(i for i in known if i < below)
        here = _bracket(tallies, order, above, below, line, s)
        for i in (above, below):
            if not _sure(tallies[order[i]], line, s.most):
                return here, _ask(tallies, order[i], tallies[order[i]].trials + s.more, s.most)
        if below - above > 1:
            return here, _ask(tallies, order[(above + below) // 2], s.probe)
        for i in (above, below):
            if _short(tallies[order[i]], s.settle):
                return here, _ask(tallies, order[i], s.settle)
        found = _bracket(tallies, order, above, below, line, s, done=True)
        slide = tallies[order[above]].rate - tallies[order[below]].rate < s.delta
        if above > 0 and tallies[order[above]].rate <= high - s.delta:
            # already a drop's worth below the start: an earlier drop may be the first
            candidate = candidate if slide else found
            last = above
            continue
        if slide:  # a slide past the line, no step falling by delta: the drop found before
            return (found if candidate is None else candidate), []
        return found, []


def _bracket(
    tallies: Mapping[int, Tally],
    order: list[int],
    above: int,
    below: int,
    line: float,
    s: FirstDropSchedule,
    done: bool = False,
) -> FirstDrop:
    """The answer while the crossing lies between positions ``above`` and ``below``."""
    first = above
    while first > 0 and not _sure(tallies[order[first]], line, s.most):
        first -= 1  # an unsure side: the drop can be before it, back to a sure one
    last = below
    while last < len(order) - 1 and not _sure(tallies[order[last]], line, s.most):
        last += 1
    low, high = order[first], order[last] - 1
    if below - above > 1:
        return FirstDrop(
            None, low, high, None, None, done, f"between steps {low} and {high} (not narrowed)"
        )
    step = order[above]
    before, after = tallies[step].rate, tallies[order[below]].rate
    where = f"step {step}" if low == high else f"step {step} (steps {low}–{high})"
    if done and before - after < s.delta:  # a slide: the value crosses, no step falls by delta
        reason = (
            f"no step falls by {s.delta:g}: the value slides {before:.2f} → {after:.2f} at {where}"
        )
        return FirstDrop(None, low, high, before, after, done, reason)
    size = "" if done or before - after >= s.delta else f", smaller than {s.delta:g} so far"
    return FirstDrop(
        step,
        low,
        high,
        before,
        after,
        done,
        f"{where}: the value falls {before:.2f} → {after:.2f}{size}",
    )


def _none(reason: str, done: bool = False) -> FirstDrop:
    return FirstDrop(None, None, None, None, None, done, reason)


def _known(tally: Tally) -> bool:
    return tally.exact or tally.trials > 0


def _short(tally: Tally, trials: int) -> bool:
    return not tally.exact and tally.trials < trials


def _below(tally: Tally, line: float) -> bool:
    return tally.rate < line


def _sure(tally: Tally, line: float, most: int) -> bool:
    """Whether the side of ``line`` the tally is on is known: exact, clear, or sampled enough."""
    if tally.exact or tally.trials >= most:
        return True
    interval = wilson_interval(tally.successes, tally.trials)
    return interval.high < line or interval.low >= line


def _ask(
    tallies: Mapping[int, Tally], boundary: int, trials: int, most: int | None = None
) -> list[int]:
    """Rollouts at ``boundary`` to bring it to ``trials`` (at most ``most``)."""
    target = trials if most is None else min(trials, most)
    return [boundary] * max(0, target - tallies[boundary].trials)
