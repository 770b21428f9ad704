"""``OnPolicyJob``: the score in the background, a Stop that keeps none, a backend that cannot.

The scripted backend, made able to score a text (``tests/app/test_experiments_page.Scoring``,
a unit double; the panel's test on the embedded model is ``tests/app/test_walkthrough.py``).
"""

from __future__ import annotations

from llenvs.evaluation.branching import OnPolicyError
from llenvs.inference import get_backend
from llenvs.traces import SegmentRecord, TaskRecord, Trace
from llenvs.workbench.jobs import OnPolicyJob
from tests.app.test_experiments_page import Scoring

TRACE = Trace(
    task=TaskRecord("e", "a", {}, 0, "Count the legs."),
    response="Cows have 4 legs. So 8.",
    segments=(SegmentRecord(0, 0, 18, "Cows have 4 legs. "), SegmentRecord(1, 18, 23, "So 8.")),
)


def test_the_score_is_computed_in_the_background():
    backend = Scoring(["legs legs legs legs"])
    job = OnPolicyJob(TRACE, 1, "legs legs", backend, samples=3)
    assert job.wait(30) and job.error is None and not job.stopped
    assert job.result is not None and job.result.samples == 3
    assert job.result.mean_logprob == -0.1 and job.tokens > 0


class StopsWhileSampling(Scoring):
    """Presses the job's Stop once the sampling has started (as a user would)."""

    job: OnPolicyJob | None = None

    def generate(self, requests):
        assert self.job is not None
        self.job.stop()
        return super().generate(requests)


def test_a_stop_while_sampling_keeps_no_score():
    backend = StopsWhileSampling(["one two three four five six seven eight"])
    job = OnPolicyJob.__new__(OnPolicyJob)
    backend.job = job
    OnPolicyJob.__init__(job, TRACE, 1, "legs legs legs legs legs legs", backend, samples=2)
    assert job.wait(30)
    assert job.stopped and job.result is None and job.error is None


def test_a_backend_that_cannot_score_is_an_error_naming_it():
    job = OnPolicyJob(TRACE, 1, "x", get_backend("scripted", outputs=["y"]), samples=2)
    assert job.wait(30) and job.result is None
    assert isinstance(job.error, OnPolicyError) and "scripted cannot score a text" in str(job.error)
