"""Segment flags travel as ``SegmentFlag`` values: in step events and in trace records alike."""

from __future__ import annotations

import json

from llenvs.core import RunControl, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation import COMPLETE, ForceAction, LogConfig, run_segmented_evaluation
from llenvs.evaluation.episodes import StepTaken, event_record
from llenvs.inference import get_backend
from llenvs.traces import SegmentFlag

G, F, ONE, B = (
    SegmentFlag.GENERATED,
    SegmentFlag.FORCED,
    SegmentFlag.ONE_SHOT,
    SegmentFlag.FEEDBACK_AFTER,
)


class Collect:
    def __init__(self):
        self.steps = []

    def __call__(self, event):
        if isinstance(event, StepTaken):
            self.steps.append(event)


def test_step_events_and_trace_records_carry_the_same_segment_flags():
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    env = SegmentedEnvironment(base, "sentence")
    answers = iter([ForceAction("Two dogs. "), "Count again.", COMPLETE])
    outputs = ["One. Two. Three.", "Four. Five. <answer>4</answer>"]
    sink = Collect()
    result = run_segmented_evaluation(
        env,
        get_backend("scripted", outputs=outputs),
        num_tasks=1,
        step_callback=lambda step: next(answers, None),
        log=LogConfig(targets=()),
        control=RunControl(sink),
    )
    [trace] = result.traces
    expected = [{G}, {F, B}, {G}, {G, ONE}]  # forced, then feedback after it; then COMPLETE
    assert [s.flags for s in trace.segments] == [frozenset(e) for e in expected]
    # A step's event goes out before its callback answers: feedback after it is not known yet.
    assert [s.flags for s in sink.steps] == [frozenset(e - {B}) for e in expected]
    logged = json.loads(json.dumps(event_record(sink.steps[3])))
    assert logged["flags"] == ["generated", "one_shot"]
