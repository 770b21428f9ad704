import pytest

from llenvs.rewards import (
    PRM,
    BatchPRM,
    JudgingPRM,
    StepJudgement,
    TextScorerPRM,
    judge_traces,
    score_traces,
)


class Plain:
    def __init__(self):
        self.calls = 0

    def score_steps(self, question, steps):
        self.calls += 1
        return [0.25] * len(steps)


class Batched(Plain):
    def __init__(self):
        super().__init__()
        self.batches = []

    def score_traces(self, traces):
        self.batches.append(len(traces))
        return [[0.75] * len(steps) for _, steps in traces]


class Short:
    def score_steps(self, question, steps):
        return [1.0]


def test_score_traces_batches_where_it_can():
    plain, batched = Plain(), Batched()
    traces = [("q", ["a", "b"]), ("r", ["c"])]
    assert score_traces(plain, traces) == [[0.25, 0.25], [0.25]]
    assert plain.calls == 2
    assert score_traces(batched, traces) == [[0.75, 0.75], [0.75]]
    assert batched.batches == [2] and batched.calls == 0
    assert isinstance(batched, BatchPRM) and not isinstance(plain, BatchPRM)


def test_judge_traces_wraps_scores_without_notes():
    assert judge_traces(Batched(), [("q", ["a"])]) == [[StepJudgement(0.75)]]
    assert not isinstance(Plain(), JudgingPRM)


def test_a_prm_that_miscounts_is_named():
    with pytest.raises(ValueError, match="Short returned 1 scores for 2 steps"):
        score_traces(Short(), [("q", ["a", "b"])])


def test_text_scorer_prm_sees_the_response_so_far():
    class Recorder:
        def __init__(self):
            self.seen = []

        def score(self, text):
            self.seen.append(text)
            return 0.5

    recorder = Recorder()
    prm = TextScorerPRM(recorder)
    assert isinstance(prm, PRM)
    assert prm.score_steps("ignored", ["One. ", "Two. ", "Three."]) == [0.5] * 3
    assert recorder.seen == ["One. ", "One. Two. ", "One. Two. Three."]
    with pytest.raises(TypeError, match=r"score\(text\)"):
        TextScorerPRM(object())


def test_step_judgement_needs_a_number():
    with pytest.raises(TypeError, match="score must be a number"):
        StepJudgement("high")
