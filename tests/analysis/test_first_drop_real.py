"""``FirstDropSchedule`` on the embedded SmolLM2: the bisection's structure, not a given step.

The trace answers right (``\\boxed{7}``) in its first segment, then answers again, wrong, in
its fifth, and goes on (a closed answer tag would end the episode): a continuation kept after
the first answer and before the second keeps the right answer unless the model writes an answer
of its own (it rarely does), so the value is high before step 4 and low after it. What the real
model does is not assumed: the test checks how the search went on the values it sampled (one
boundary a round, each new probe the midpoint of its nearest sampled neighbours across a fall,
fewer boundaries than the trace has) and that the step it reports agrees with the rollouts'
own verdicts.
"""

from __future__ import annotations

from llenvs.analysis import AnalysisParams, RoundDone, analyze_trace
from llenvs.analysis.statistics import FirstDropSchedule
from llenvs.core import RunControl, RunEvent
from llenvs.traces import SegmentRecord, TaskRecord, Trace

TEXTS = (
    "3 + 4 = 7, so the answer is \\boxed{7}.\n",
    "Let me check that. ",
    "3 + 4 is 7. ",
    "Good. ",
    "Wait, the question may say 3 + 6, which is \\boxed{9}.\n",
    "I will keep 9. ",
    "It is 9. ",
    "Final: 9.",
)
"""Right first (segment 0), wrong from segment 4 on; the trace failed."""

SCHEDULE = FirstDropSchedule(probe=2, more=1, most=4, settle=4)
"""The search with small counts: a few rollouts per probe keep the test cheap."""

BUDGET = 24
"""Rollouts at most (the search above needs about 16 on a clean drop)."""


def _trace() -> Trace:
    segments, start = [], 0
    for index, text in enumerate(TEXTS):
        end = start + len(text)
        segments.append(SegmentRecord(index, start, end, text, terminal=index == len(TEXTS) - 1))
        start = end
    return Trace(
        task=TaskRecord(
            "add", "test", {}, 0, "What is 3 + 4? Answer inside <answer></answer> tags.", None, "7"
        ),
        response="".join(TEXTS),
        segments=tuple(segments),
        success=False,
    )


def _rate(tally: tuple[int, int]) -> float:
    return tally[0] / tally[1]


def test_the_search_bisects_and_reports_a_step_its_rollouts_show(embedded_backend, tmp_path):
    trace = _trace()
    rounds: list[tuple[int, ...]] = []

    def observe(event: RunEvent) -> None:
        if isinstance(event, RoundDone):
            rounds.append(tuple(r.boundary for r in event.rollouts))

    # boundary 0 (no prefix) is left out: the 135M model alone never writes an answer tag,
    # so the search would start low and find no drop to bisect for
    boundaries = list(range(1, len(TEXTS) + 1))
    analysis = analyze_trace(
        trace,
        embedded_backend,
        AnalysisParams(budget=BUDGET, max_tokens=8, temperature=0.7, seed=3),
        store=tmp_path / "runs.analysis.jsonl",
        schedule=SCHEDULE,
        boundaries=boundaries,
        control=RunControl(observe),
    )
    rollouts = [r for r in analysis.rollouts if r.error is None]
    assert len(rollouts) == len(analysis.rollouts) == sum(len(r) for r in rounds) <= BUDGET
    start, last = boundaries[0], boundaries[-2]  # the last sampled; the end is the trace's own

    # the search's order: the start settled, the last sampled boundary probed, then one
    # boundary a round, each new one the midpoint of its nearest sampled neighbours, taken
    # where the value falls between them
    assert rounds[0] == (start,) * SCHEDULE.settle
    assert rounds[1] == (last,) * SCHEDULE.probe
    tallies: dict[int, tuple[int, int]] = {}
    for number, asked in enumerate(rounds):
        assert len(set(asked)) == 1, (number, asked)
        [boundary] = set(asked)
        if boundary not in tallies and number > 1:
            left = max(b for b in tallies if b < boundary)
            right = min(b for b in tallies if b > boundary)
            assert boundary == (left + right) // 2, (number, boundary, tallies)
            assert _rate(tallies[left]) > _rate(tallies[right]), (number, boundary, tallies)
        made = [r for r in rollouts if r.boundary == boundary]
        done = sum(len(r) for r in rounds[: number + 1] if r[0] == boundary)
        tallies[boundary] = (sum(r.success for r in made[:done]), done)
    assert all(trials <= max(SCHEDULE.most, SCHEDULE.settle) for _, trials in tallies.values())
    assert len(tallies) < len(boundaries) - 1  # a bisection: not every boundary was sampled

    # the values are the rollouts' own shares, and the answer agrees with them
    for value in analysis.values:
        if value.boundary in tallies:
            assert (value.successes, value.trials) == tallies[value.boundary]
    found = analysis.first_drop(SCHEDULE)  # read with the counts the search used
    if len(rollouts) < BUDGET:  # the search, not the budget, ended the run
        assert found.done, found.reason
    end = 0.0  # the trace failed: the value after its last step is 0, exactly
    if found.step is None:
        return
    after = end if found.step + 1 == len(TEXTS) else _rate(tallies[found.step + 1])
    assert found.before == _rate(tallies[found.step]) and found.after == after
    assert found.low is not None and found.high is not None
    assert found.low <= found.step <= found.high
    assert all(_rate(tallies[b]) > after for b in tallies if b <= found.step), tallies
    if found.done:
        assert found.before - found.after >= SCHEDULE.delta
        assert f"step {found.step}" in found.reason
