"""How on-policy a forced text is, on the embedded model: its own text, and the same shuffled."""

from __future__ import annotations

import random
import statistics

import pytest

from llenvs.core import BackendCapabilities
from llenvs.evaluation.branching import OnPolicyError, on_policy, prefix_prompt
from llenvs.inference import get_backend
from llenvs.traces import read_traces
from tests.conftest import REPO

SAMPLE = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"
"""Traces the embedded model wrote greedily (temperature 0): each segment is its own choice."""


def _trace():
    return next(iter(read_traces(SAMPLE)))


def test_the_models_own_segment_is_typical_and_its_words_shuffled_are_not(embedded_backend):
    trace, at = _trace(), 3
    own = trace.segments[at].text
    found = on_policy(trace, at, own, embedded_backend, samples=12, seed=1)
    assert found.samples == len(found.sample_means) == 12
    assert found.mean_logprob >= statistics.median(found.sample_means)  # greedy: its mode
    assert found.original == pytest.approx(found.mean_logprob, abs=1e-4)  # the same text
    words = own.split()
    random.Random(0).shuffle(words)
    shuffled = " ".join(words) + ("\n" if own.endswith("\n") else "")
    assert shuffled != own
    strange = on_policy(trace, at, shuffled, embedded_backend, samples=12, seed=1)
    assert strange.mean_logprob < min(strange.sample_means)
    assert strange.percentile == 0.0
    record = found.to_record()
    assert {"mean_logprob", "tokens", "percentile", "samples"} <= set(record)


def test_the_prefix_prompt_is_the_question_and_the_response_so_far():
    trace = _trace()
    prompt = prefix_prompt(trace, 2)
    assert [m.role for m in prompt.messages] == ["user"]
    assert prompt.continuation == trace.segments[0].text + trace.segments[1].text
    assert prefix_prompt(trace, len(trace.segments)).continuation == trace.response
    with pytest.raises(OnPolicyError, match="no place 99"):
        prefix_prompt(trace, 99)


def test_a_backend_that_cannot_score_says_so():
    backend = get_backend("scripted", outputs=["x"])
    assert backend.capabilities == BackendCapabilities() or backend.capabilities.score is None
    with pytest.raises(OnPolicyError, match="scripted cannot score a text"):
        on_policy(_trace(), 1, "text", backend)


def test_intervene_records_and_prints_how_on_policy_a_force_is(embedded_backend, tmp_path, capsys):
    """``llenvs intervene --force``: the score is printed and kept on the branch."""
    from llenvs.cli.main import main
    from llenvs.traces import read_branches

    traces = tmp_path / "runs.jsonl"
    traces.write_bytes(SAMPLE.read_bytes())
    argv = ["intervene", str(traces), "--at", "1", "--force", "2. The answer is 12.\n"]
    assert main([*argv, "--on-policy", "4", "--max-tokens", "16", "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    [line] = [p for p in printed if p.startswith("on-policy: ")]
    [child] = read_branches(traces)
    record = child.metadata["on_policy"]
    assert record["samples"] == 4 and record["tokens"] == 10
    assert "percentile of 4 continuations of the model's own" in line
    assert f"{record['mean_logprob']:.2f} per token over 10 tokens" in line
