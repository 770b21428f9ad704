"""The JSONL event log: a step event's ``segment_index`` counts from 0, as a trace's segments do."""

from __future__ import annotations

import json

from llenvs.core import SegmentedEnvironment, SentenceSegmenter
from llenvs.evaluation import LogConfig, run_segmented_evaluation
from llenvs.inference._backends.scripted import ScriptedBackend

SCRIPT = "Count the legs. Add them up. The total is 100. <answer>100</answer>"


def test_step_events_number_segments_from_zero_like_the_trace(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    result = run_segmented_evaluation(
        environment=env,
        backend=ScriptedBackend([SCRIPT]),
        num_tasks=1,
        log=LogConfig(("file",), tmp_path),
    )
    [log] = tmp_path.glob("*.jsonl")
    steps = [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "step"]
    [trace] = result.traces
    assert [e["segment_index"] for e in steps] == [0, 1, 2]  # the tag stays with its sentence
    assert [e["segment_index"] for e in steps] == [s.index for s in trace.segments]
    assert [e["text"] for e in steps] == [s.text for s in trace.segments]
