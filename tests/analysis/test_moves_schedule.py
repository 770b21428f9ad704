"""``MovesSchedule``: later rounds go to the steps whose chance of having moved is in doubt."""

from __future__ import annotations

import pytest

from llenvs.analysis.statistics import (
    MOVE_DELTA,
    AdaptiveSchedule,
    MovesSchedule,
    Tally,
    change_chances,
)


def _one_doubtful_step() -> dict[int, Tally]:
    """A flat curve at 0.5 whose boundary 10 may sit higher: steps 9 and 10 are in doubt."""
    tallies = {b: Tally(20, 40) for b in range(20)}
    tallies[10] = Tally(30, 40)
    return tallies


def test_the_doubtful_steps_get_the_round() -> None:
    tallies = _one_doubtful_step()
    chances = change_chances(tallies, delta=MOVE_DELTA)
    assert 0.05 < chances[9] < 0.95 and 0.05 < chances[10] < 0.95
    chosen = MovesSchedule().next_round(tallies, 100, 0.2)
    assert len(chosen) == len(tallies)  # one round: one rollout per boundary
    assert set(chosen) <= {9, 10, 11}
    assert chosen.count(10) > len(chosen) / 2  # boundary 10 borders both doubtful steps
    widths = AdaptiveSchedule(top_k=0).next_round(tallies, 100, 0.2)
    assert len(set(widths)) > 3  # the width schedule spreads the same round


def test_nothing_in_doubt_falls_back_to_the_widest_intervals() -> None:
    settled = {0: Tally(0, 60), 1: Tally(60, 60), 2: Tally(30, 60)}
    assert MovesSchedule().next_round(settled, 9, 0.2) == AdaptiveSchedule(
        top_k=0, round_size=3
    ).next_round(settled, 9, 0.2)


@pytest.mark.parametrize("low, high", [(0.5, 0.5), (-0.1, 0.9), (0.1, 1.1)])
def test_bad_thresholds_are_refused(low: float, high: float) -> None:
    with pytest.raises(ValueError, match="low < high"):
        MovesSchedule(low=low, high=high)


def test_a_step_at_the_threshold_does_not_take_every_round() -> None:
    """A move of about delta stays in doubt for ever: each rollout there is worth less."""
    tallies = {b: Tally(20, 40) for b in range(20)}
    tallies[10] = Tally(1400, 2000)  # 0.7: a move of 0.2 from 0.5, in doubt however sampled
    tallies[15] = Tally(16, 20)  # a move of about 0.3, with far fewer rollouts
    chosen = MovesSchedule().next_round(tallies, 100, 0.2)
    assert chosen.count(15) > len(chosen) / 2 and chosen.count(10) == 0
