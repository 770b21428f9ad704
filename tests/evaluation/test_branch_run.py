"""``run_branches``: many branches in one scheduled run equal ``branch`` made one at a time."""

from __future__ import annotations

from llenvs.core import (
    COMPLETE,
    Feedback,
    Force,
    Resample,
    RunControl,
    SamplingParams,
    Stopped,
    StopToken,
    record_dict,
)
from llenvs.evaluation import BranchRequest, branch
from llenvs.evaluation.branching import BranchJob, run_branches
from llenvs.evaluation.episodes import TrajectoryEnded
from llenvs.inference import get_backend
from tests.experiments.scripted_parents import parents

SCRIPT = "Count. Think. So 100. <answer>100</answer>"


def _requests():
    traces = parents()
    return [
        BranchRequest(traces[0], 1, Force("Think again. ")),
        BranchRequest(traces[1], 2, COMPLETE),
        BranchRequest(traces[2], 0, Resample(1, SamplingParams(max_tokens=64))),
        BranchRequest(traces[3], 1, Feedback("Sure?")),
    ]


def _comparable(trace):
    return (
        trace.response,
        [(s.text, sorted(f.value for f in s.flags)) for s in trace.segments],
        trace.success,
        record_dict(trace.parent),
        [(m.role, m.content) for m in trace.messages],
        trace.run.spec.sampling,
    )


def test_branches_run_together_equal_branches_made_one_at_a_time():
    requests = _requests()
    alone = [branch(r, get_backend("scripted", outputs=[SCRIPT]))[0] for r in requests]
    jobs = [BranchJob(r, seed=None) for r in requests]
    events = []
    backend = get_backend("scripted", outputs=[SCRIPT] * 4)
    made = run_branches(jobs, backend, in_flight=4, control=RunControl(events.append))
    together = {number: trace for number, _, trace in made}
    assert sorted(together) == [0, 1, 2, 3]
    for number, one in enumerate(alone):
        assert _comparable(together[number]) == _comparable(one)
    assert sorted(e.trajectory for e in events if isinstance(e, TrajectoryEnded)) == [0, 1, 2, 3]


def test_a_stop_starts_no_more_branches_and_says_how_many_were_kept():
    requests = _requests()
    stop = StopToken()
    events = []

    def observe(event):
        events.append(event)
        if isinstance(event, TrajectoryEnded):
            stop.stop()

    made = list(
        run_branches(
            [BranchJob(r) for r in requests],
            get_backend("scripted", outputs=[SCRIPT] * 4),
            in_flight=1,
            control=RunControl(observe, stop),
        )
    )
    finished = [t for _, result, t in made if not result.metadata.get("stopped")]
    assert len(finished) == 1 and len(made) <= 2
    assert [e.kept for e in events if isinstance(e, Stopped)] == [1]
