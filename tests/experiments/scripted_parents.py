"""Parents with known outcomes for the experiment tests: leg_counting tasks 0..3, 3 segments."""

from __future__ import annotations

from pathlib import Path

from llenvs.core import SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation.branching import replay_trace
from llenvs.traces import Trace, write_traces

EXPECTED = ("100", "140", "286", "187")
"""The answers of leg_counting (size 100, seed 42) tasks 0..3."""

SUCCEEDS = (False, False, True, True)
"""Which parents succeed: tasks 0 and 1 answer 8 (wrong), 2 and 3 their expected answer."""


def parents() -> list[Trace]:
    """Four parents, each ``Count. Think. So X. <answer>X</answer>`` (3 sentence segments)."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence")
    made = []
    for task, (expected, ok) in enumerate(zip(EXPECTED, SUCCEEDS, strict=True)):
        answer = expected if ok else "8"
        text = f"Count. Think. So {answer}. <answer>{answer}</answer>"
        made.append(replay_trace(env, task, text, model="scripted"))
    assert [t.success for t in made] == list(SUCCEEDS)
    return made


def parents_file(folder: Path) -> Path:
    """The four parents written to ``folder/runs.jsonl``."""
    path = folder / "runs.jsonl"
    write_traces(path, parents())
    return path
