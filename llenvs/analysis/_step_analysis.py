"""``StepAnalysis``: the readings of one trace: step values, importances, forced answers.

Example:
    >>> from llenvs.analysis.statistics._boundary_value import boundary_values
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> from llenvs.analysis.statistics._step_importance import step_importances
    >>> rollouts = [Rollout(b, n, 0, b == 2 or n == 0, None, 1) for b in range(3) for n in range(4)]
    >>> values = boundary_values(rollouts, range(3))
    >>> a = StepAnalysis("t", {}, tuple(values), tuple(step_importances(values)), None,
    ...                  tuple(rollouts))
    >>> a.ranking(), a.prm_scores()
    ([1, 0], {0: 0.25, 1: 1.0})

"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llenvs.analysis.sampling import ForcedAnswer, Rollout
from llenvs.analysis.statistics import (
    CONFIDENCE,
    EXCURSION_PRIOR,
    MOVE_DELTA,
    MOVED_CHANCE,
    BoundaryValue,
    FirstDrop,
    FirstDropSchedule,
    StepImportance,
    Tally,
    TopSteps,
    change_chances,
    first_drop,
    top_k_membership_of,
    value_draws,
)

__all__ = ["CHANCES_CHECKED", "VERDICT_DRAWS", "StepAnalysis"]

CHANCES_CHECKED = (
    "the chances of a move are a model's: how often they came true on published value curves, "
    "where calls are made (stated 0.05 to 0.95), is in docs/benchmarks.md, 'Step analysis on "
    "real value curves'"
)
"""What the app and ``llenvs analyze`` say beside the steps they call moved: where the stated
chances' calibration is measured (``bench/thought_anchors.py``), so no chance reads as a fact."""

VERDICT_DRAWS = 2000
"""Joint posterior draws behind ``StepAnalysis.sizes`` and ``StepAnalysis.top_steps``."""


@dataclass(frozen=True)
class StepAnalysis:
    """What ``analyze_trace`` found for one trace.

    Example:
        >>> StepAnalysis("t", {}, (), (), None, ()).ranking()
        []

    """

    trace_id: str
    """The trace analysed."""
    key: Mapping[str, Any]
    """The model and sampling fields the rollouts were made with (the sidecar's key)."""
    values: tuple[BoundaryValue, ...]
    """The value of each boundary analysed, in order (boundary i: before segment i)."""
    importances: tuple[StepImportance, ...]
    """The importance of each step between two analysed boundaries, in order."""
    forced_answers: tuple[ForcedAnswer, ...] | None
    """The forced answer at each boundary, or None when not asked for."""
    rollouts: tuple[Rollout, ...]
    """Every rollout counted, stored ones first."""
    resumed: int = 0
    """How many of them were read back from the sidecar rather than generated now."""
    rounds: int = 0
    """Rounds of rollouts in all (stored ones included)."""
    excursion: float = EXCURSION_PRIOR
    """The value-curve model's prior chance of a one-boundary excursion after a step
    (``llenvs.analysis.statistics``), behind ``moved``, ``sizes`` and ``top_steps``."""
    delta: float = MOVE_DELTA
    """The size of a move that matters: ``moved`` is each step's chance that
    ``|v_{i+1} - v_i| >= delta``, and the steps called moved, ``top_steps`` and its sure
    steps follow it (``dataclasses.replace(analysis, delta=0.1)`` reads the same rollouts at
    another size)."""

    def value(self, boundary: int) -> BoundaryValue:
        """The value of ``boundary``.

        Example:
            >>> StepAnalysis("t", {}, (), (), None, ()).value(0)
            Traceback (most recent call last):
            ...
            KeyError: 'boundary 0 was not analysed'

        """
        for value in self.values:
            if value.boundary == boundary:
                return value
        raise KeyError(f"boundary {boundary} was not analysed")

    @functools.cached_property
    def draws(self) -> tuple[dict[int, float], ...]:
        """``VERDICT_DRAWS`` joint posterior draws of the analysed boundaries' values.

        Drawn once (``value_draws``, seeded by the tallies: the same values give the same
        draws) and shared by ``sizes`` and ``top_steps``; none when no two analysed boundaries
        are adjacent, as there is no step to weigh.

        Example:
            >>> from llenvs.analysis.statistics._boundary_value import BoundaryValue
            >>> from llenvs.analysis.statistics._interval import Interval
            >>> values = tuple(BoundaryValue(b, 4, s, s / 4, Interval(0.0, 1.0))
            ...                for b, s in enumerate((1, 3)))
            >>> a = StepAnalysis("t", {}, values, (), None, ())
            >>> len(a.draws), sorted(a.draws[0]), StepAnalysis("t", {}, (), (), None, ()).draws
            (2000, [0, 1], ())

        """
        tallies = self._tallies()
        if not any(b + 1 in tallies for b in tallies):
            return ()
        return tuple(value_draws(tallies, VERDICT_DRAWS, excursion=self.excursion))

    @functools.cached_property
    def sizes(self) -> dict[int, float]:
        """Each step's posterior mean ``|v_{i+1} - v_i|``, where the value moves at few steps.

        From the 2,000 joint draws of the changepoint model (``draws``, the ones ``top_steps``
        uses; ``llenvs.analysis.statistics``): a flat step's size shrinks towards 0 and a jump
        keeps its size, where the raw difference of two estimates gives every flat step its
        sampling noise.

        Example:
            >>> StepAnalysis("t", {}, (), (), None, ()).sizes
            {}

        """
        steps = [s.step for s in self.importances]
        if not steps:
            return {}
        draws = self.draws
        return {step: statistics.fmean(abs(d[step + 1] - d[step]) for d in draws) for step in steps}

    @functools.cached_property
    def moved(self) -> dict[int, float]:
        """Each step's chance of having moved the value by at least ``delta``.

        From the joint posterior of its two boundaries' values (``change_chances``).

        Example:
            >>> StepAnalysis("t", {}, (), (), None, ()).moved
            {}

        """
        steps = {s.step for s in self.importances}
        chances = change_chances(self._tallies(), excursion=self.excursion, delta=self.delta)
        return {step: chance for step, chance in chances.items() if step in steps}

    @property
    def called(self) -> list[int]:
        """The steps called moved: ``moved`` above ``MOVED_CHANCE``, in step order."""
        return sorted(step for step, chance in self.moved.items() if chance > MOVED_CHANCE)

    @property
    def expected_wrong(self) -> float:
        """How many of the ``called`` steps are expected not to have moved by ``delta``.

        The sum of their chances of not having moved: what the stated chances promise, which
        ``bench/thought_anchors.py`` checks against real curves (its reliability table).
        """
        moved = self.moved
        return sum(1.0 - moved[step] for step in self.called)

    def calls_summary(self) -> str:
        """The called steps in words, with ``delta`` and the expected wrong calls.

        Example:
            >>> from llenvs.analysis.statistics._boundary_value import BoundaryValue
            >>> from llenvs.analysis.statistics._interval import Interval
            >>> from llenvs.analysis.statistics._step_importance import step_importances
            >>> values = tuple(BoundaryValue(b, 30, s, s / 30, Interval(0.0, 1.0))
            ...                for b, s in enumerate((3, 4, 27, 28, 12)))
            >>> StepAnalysis("t", {}, values, tuple(step_importances(values)), None,
            ...              ()).calls_summary()
            '2 steps called moved by |Δv| ≥ 0.2 (steps 1, 3); about 0.0 expected wrong'

        """
        called = self.called
        if not called:
            return f"no step called moved by |Δv| ≥ {self.delta:g}"
        noun = "step" if len(called) == 1 else "steps"
        which = ", ".join(str(step) for step in called)
        return (
            f"{len(called)} {noun} called moved by |Δv| ≥ {self.delta:g} ({noun} {which}); "
            f"about {self.expected_wrong:.1f} expected wrong"
        )

    def ranking(self) -> list[int]:
        """The steps, most important first: by their size (``sizes``), unknown ones last.

        A step that lowers the value (where the reasoning went wrong) counts as much as one
        that raises it; ties go to the larger raw ``|v_{i+1} - v_i|``, the larger answer shift,
        then to the earlier step.
        """
        known = [s for s in self.importances if s.importance is not None]
        sizes = self.sizes
        known.sort(
            key=lambda s: (
                -sizes.get(s.step, 0.0),
                -abs(s.importance or 0.0),
                -(s.divergence or 0.0),
                s.step,
            )
        )
        unknown = [s.step for s in self.importances if s.importance is None]
        return [s.step for s in known] + unknown

    def moving_steps(self) -> list[int]:
        """``ranking()`` without the steps that moved neither the value nor the answers.

        Example:
            >>> StepAnalysis("t", {}, (), (), None, ()).moving_steps()
            []

        """
        moved = {
            s.step
            for s in self.importances
            if (s.importance or 0.0) != 0 or (s.divergence or 0.0) > 0
        }
        return [step for step in self.ranking() if step in moved]

    def top_steps(self, top_k: int = 3, confidence: float = CONFIDENCE) -> TopSteps:
        """The ``top_k`` most important steps and how sure these rollouts are of each.

        The steps are ``moving_steps()``'s first ``top_k`` whose change chance (``moved``) is
        above ``MOVED_CHANCE``: fewer when fewer moved the value detectably, none (and
        ``describe`` says so) when nothing did, as with one rollout at a boundary.

        Each step's chance of being among the top k comes from the 2,000 joint draws of the
        boundary values' posteriors that ``sizes`` uses too (``draws``, ``top_k_membership``;
        an ended trace's last value is exact): ten times a schedule's round, as a verdict shown
        once is worth the steadier chance (200 draws put a chance of 0.98 at 0.935 in this
        example).

        Example:
            >>> from llenvs.analysis.statistics._boundary_value import BoundaryValue
            >>> from llenvs.analysis.statistics._interval import Interval
            >>> from llenvs.analysis.statistics._step_importance import step_importances
            >>> def v(b, s, n):
            ...     return BoundaryValue(b, n, s, s / n, Interval(0.0, 1.0))
            >>> values = (v(0, 15, 30), v(1, 16, 30), v(2, 30, 30), v(3, 29, 30))
            >>> a = StepAnalysis("t", {}, values, tuple(step_importances(values)), None, ())
            >>> verdict = a.top_steps(top_k=1)
            >>> verdict.steps, verdict.sure, verdict.ruled_out
            ((1,), (1,), (0, 2))
            >>> one = (v(0, 0, 1), v(1, 1, 1), v(2, 1, 1), v(3, 0, 1))  # one rollout each
            >>> StepAnalysis("t", {}, one, tuple(step_importances(one)), None, ()).top_steps(
            ...     top_k=3).describe()
            'no step moved the value detectably at this budget'

        """
        chances = top_k_membership_of(self.draws, top_k) if top_k > 0 else {}
        moved = self.moved
        detected = [s for s in self.moving_steps() if moved.get(s, 0.0) > MOVED_CHANCE]
        return TopSteps(tuple(detected[:top_k]), chances, moved, confidence)

    def first_drop(self, schedule: FirstDropSchedule | None = None) -> FirstDrop:
        """The first drop of the value by at least ``delta``, as ``FirstDropSchedule`` reads it.

        Meant for an analysis that schedule made, of a failed trace: pass the schedule when it
        was not the default one (``delta`` then is the schedule's), for its counts decide when
        the search is over.
        """
        return first_drop(self._tallies(), self.delta, schedule)

    def _tallies(self) -> dict[int, Tally]:
        """The tally of every analysed boundary (an ended trace's last value exact)."""
        return {
            v.boundary: Tally(int(v.value or 0), 1, exact=True)
            if v.exact
            else Tally(v.successes, v.trials)
            for v in self.values
        }

    def prm_scores(self) -> dict[int, float | None]:
        """The Monte-Carlo PRM score of each step i whose end was analysed: ``v_{i+1}``."""
        return {v.boundary - 1: v.value for v in self.values if v.boundary > 0}
