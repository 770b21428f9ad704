"""JudgePRM: verdicts read from replies, unrated steps, batching, errors, logprobs, the registry.

The logic runs on the scripted backend; one test asks the embedded SmolLM2 (1 trace, 3 steps).
"""

import math
from dataclasses import replace

import pytest

from llenvs.core import BackendCapabilities, FinishReason, Generation
from llenvs.core.errors import BackendError
from llenvs.inference import get_backend
from llenvs.rewards import PRM, BatchPRM, JudgingPRM, get_prm, score_traces
from llenvs.rewards.prm import JudgePRM, PRMRewardFunction, read_verdict

QUESTION = "Ram has 3 boxes of 4 pens and buys 5 more. How many pens?"
STEPS = ["3 boxes of 4 pens: 3 × 4 = 12 pens.", "Then 12 + 5 = 18 pens.", "The answer is 18."]


def scripted_judge(*replies, **options):
    return JudgePRM(get_backend("scripted", outputs=list(replies)), **options)


@pytest.mark.parametrize(
    ("reply", "verdict", "score"),
    [
        ("Yes", "correct", 1.0),
        ("No", "incorrect", 0.0),
        ("yes.", "correct", 1.0),
        ("**No**, 12 + 5 is 17.", "incorrect", 0.0),
        ("Answer: Yes", "correct", 1.0),
        ("Correct.", "correct", 1.0),
        ("Incorrect: 12 + 5 = 17", "incorrect", 0.0),
        ("The step is correct.", "correct", 1.0),
        ("The last step is not correct.", "incorrect", 0.0),
        ("This step is wrong because 12 + 5 = 17.", "incorrect", 0.0),
    ],
)
def test_a_verdict_is_read_from_the_reply(reply, verdict, score):
    found = read_verdict(Generation(reply, FinishReason.STOP))
    assert (found.notes["verdict"], found.score, found.notes["source"]) == (verdict, score, "text")
    assert found.notes["reply"] == reply


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "no verdict"),
        ("Let me think about it.", "no verdict"),
        ("Hmm, 12 + 5", "no verdict"),
        ("It looks correct, but the total is wrong.", "two verdicts"),
    ],
)
def test_a_malformed_verdict_is_unrated_never_guessed(reply, why):
    found = read_verdict(Generation(reply, FinishReason.STOP))
    assert found.score is None and not found.rated
    assert found.notes == {"verdict": "unrated", "why": why, "reply": reply}


def test_steps_are_judged_in_context_in_one_batch():
    backend = get_backend("scripted", outputs=["Yes", "No, 12 + 5 = 17.", "I am not sure."])
    calls = []
    generate = backend.generate
    backend.generate = lambda requests: calls.append(len(requests)) or generate(requests)
    judge = JudgePRM(backend)
    assert judge.rate_steps(QUESTION, STEPS) == [1.0, 0.0, None]
    assert calls == [3]  # every step's question in one generate call
    asked = [r.prompt.messages[-1].content for r in backend.requests]
    assert all(QUESTION in text for text in asked)
    assert STEPS[0] in asked[1] and STEPS[1] in asked[2]  # the steps before, in order
    assert STEPS[1] not in asked[0] and STEPS[2] not in asked[1]  # never the steps after
    assert all(r.params.temperature == 0.0 and r.params.logprobs for r in backend.requests)


def test_batches_hold_at_most_batch_size_questions_across_traces():
    backend = get_backend("scripted", outputs=["Yes"] * 5)
    calls = []
    generate = backend.generate
    backend.generate = lambda requests: calls.append(len(requests)) or generate(requests)
    judge = JudgePRM(backend, batch_size=2)
    traces = [(QUESTION, STEPS), (QUESTION, STEPS[:2])]
    assert judge.score_traces(traces) == [[1.0, 1.0, 1.0], [1.0, 1.0]]
    assert calls == [2, 2, 1]


def test_unrated_steps_score_none_under_the_prm_contract_and_say_so():
    judge = scripted_judge("Yes", "Perhaps.")
    judgements = judge.judge_steps(QUESTION, [STEPS[0], "   ", STEPS[1]])
    assert [j.score for j in judgements] == [1.0, None, None]
    assert [j.rated for j in judgements] == [True, False, False]
    assert [j.notes["verdict"] for j in judgements] == ["correct", "unrated", "unrated"]
    assert judgements[1].notes["why"] == "blank step"  # not even asked
    assert judgements[2].notes["why"] == "no verdict"
    assert len(judge.backend.requests) == 2
    again = scripted_judge("Yes", "Perhaps.", "Yes", "Perhaps.")
    steps = [STEPS[0], "   ", STEPS[1]]
    assert again.score_steps(QUESTION, steps) == [1.0, None, None]
    assert again.score_traces([(QUESTION, steps)]) == [[1.0, None, None]]


def test_a_backend_error_leaves_that_step_unrated():
    backend = get_backend("scripted", outputs=["Yes", "No"])
    generate = backend.generate

    def failing(requests):
        if any("answer is 18" in r.prompt.messages[-1].content for r in requests):
            raise BackendError("the server dropped the request")
        return generate(requests)

    backend.generate = failing
    judge = JudgePRM(backend)
    [first, second, third] = judge.judge_steps(QUESTION, STEPS)
    assert (first.score, second.score) == (1.0, 0.0)  # resent one by one, kept
    assert third.score is None
    assert third.notes == {
        "verdict": "unrated",
        "why": "error",
        "error": "the server dropped the request",
    }
    assert judge.rate_steps(QUESTION, STEPS[2:]) == [None]


def test_a_judge_with_no_responses_left_rates_nothing():
    # get_prm("judge:scripted") makes a scripted backend with no responses: every call fails
    judge = get_prm("judge:scripted")
    assert isinstance(judge, JudgePRM)
    assert judge.rate_steps(QUESTION, STEPS) == [None, None, None]


class Confident:
    """The scripted backend, its replies' first token given a chosen probability."""

    name = "confident"
    capabilities = BackendCapabilities()

    def __init__(self, replies, probabilities, logprobs=True):
        self.scripted = get_backend("scripted", outputs=replies)
        self.probabilities = list(probabilities)
        self.logprobs = logprobs

    def generate(self, requests):
        out = []
        for generation in self.scripted.generate(requests):
            if not self.logprobs:
                out.append(replace(generation, logprobs=None))
                continue
            first = math.log(self.probabilities.pop(0))
            logprobs = (first,) + (0.0,) * (len(generation.token_ids) - 1)
            out.append(replace(generation, logprobs=logprobs))
        return out


def test_p_correct_is_read_from_the_first_tokens_logprob():
    judge = JudgePRM(Confident(["Yes", "No, it is 17.", "Yes"], [0.8, 0.9, 0.55]))
    scores = judge.rate_steps(QUESTION, STEPS)
    assert scores == pytest.approx([0.8, 0.1, 0.55])
    notes = [j.notes for j in JudgePRM(Confident(["No"], [0.7])).judge_steps(QUESTION, STEPS[:1])]
    assert notes[0]["source"] == "logprobs" and notes[0]["verdict"] == "incorrect"


def test_without_logprobs_or_an_opening_verdict_the_text_decides():
    no_logprobs = JudgePRM(Confident(["Yes", "No"], [], logprobs=False))
    assert no_logprobs.rate_steps(QUESTION, STEPS[:2]) == [1.0, 0.0]
    # the verdict is not the first token: its logprob is not the verdict's
    later = JudgePRM(Confident(["The step is correct.", "**No**"], [0.6, 0.6]))
    judgements = later.judge_steps(QUESTION, STEPS[:2])
    assert [j.score for j in judgements] == [1.0, 0.0]
    assert [j.notes["source"] for j in judgements] == ["text", "text"]


def test_it_speaks_every_prm_protocol_and_plugs_into_a_process_reward():
    judge = scripted_judge("Yes", "No", "Yes")
    assert isinstance(judge, PRM) and isinstance(judge, JudgingPRM) and isinstance(judge, BatchPRM)
    assert score_traces(judge, [(QUESTION, STEPS)]) == [[1.0, 0.0, 1.0]]
    reward = PRMRewardFunction(scripted_judge("No"))
    assert reward.prm.score_steps(QUESTION, STEPS[:1]) == [0.0]


def test_the_registry_builds_it_and_refuses_what_cannot_work():
    backend = get_backend("scripted", outputs=["Yes"])
    judge = get_prm("judge", backend=backend, max_tokens=3)
    assert isinstance(judge, JudgePRM) and judge.backend is backend and judge.max_tokens == 3
    assert repr(judge) == "JudgePRM(backend='scripted')"
    with pytest.raises(ValueError, match="the judge PRM needs backend="):
        get_prm("judge")
    with pytest.raises(ValueError, match="give the judge's backend once"):
        get_prm("judge:scripted", backend=backend)
    with pytest.raises(ValueError, match="give the judge's backend once"):
        get_prm("judge:")
    with pytest.raises(ValueError, match="max_tokens must be an int > 0"):
        JudgePRM(backend, max_tokens=0)
    with pytest.raises(TypeError, match="backend must be a ModelBackend"):
        JudgePRM(object())


def test_the_embedded_model_gives_probabilities_reproducibly(embedded_backend):
    # One question at a time (batch_size=1): the transformers backend's scores depend on how a
    # batch is padded, so only the same batches give the same numbers (see the report).
    judge = JudgePRM(embedded_backend, batch_size=1, max_tokens=2)
    first = judge.judge_steps(QUESTION, STEPS)
    again = judge.judge_steps(QUESTION, STEPS)
    assert [j.score for j in first] == [j.score for j in again]
    for judgement in first:
        if judgement.notes["verdict"] == "unrated":
            assert judgement.score is None
        else:
            assert 0.0 <= judgement.score <= 1.0
            assert judgement.notes["source"] == "logprobs"
    rated = [j for j in first if j.notes["verdict"] != "unrated"]
    assert rated, [j.notes for j in first]
    assert all(0.0 < j.score < 1.0 for j in rated)  # a probability, not a bare 0 or 1
