"""Attention suppression and receiver heads (issue 52 part 2), on the embedded model.

A trace whose last step restates its first: masking the first step moves the model's reading
of the restatement far more than masking an unrelated step does. A backend without weights here
is refused by name. ``llenvs analyze --suppression --json`` gives the n by n KL matrix and the
receiver heads.
"""

from __future__ import annotations

import json

import pytest

from llenvs.analysis.instruments import (
    MIN_SCORES,
    NEAR,
    AttentionError,
    attention_suppression,
    step_of_tokens,
)
from llenvs.cli.main import main
from llenvs.inference import get_backend
from llenvs.traces import write_traces
from tests.helpers import leg_counting_trace

RESTATED = (
    "The secret number is 7391. Cows have four legs. Dogs bark at night. Birds can fly south. "
    "The secret number is 7391."
)
LONG = (
    "A cow has 4 legs. A chicken has 2 legs. The farm has 3 cows. The farm has 5 chickens. "
    "Cows give 3 times 4 legs. That is 12 legs. Chickens give 5 times 2 legs. That is 10 legs. "
    "So 12 plus 10 is 22 legs. Check the cows again. Three cows, four legs each. Check the "
    "chickens again. Five chickens, two legs each. <answer>22</answer>"
)


def test_each_token_belongs_to_the_step_its_first_character_is_in():
    spans = [(0, 5), (5, 9)]
    assert step_of_tokens([(0, 2), (2, 5), (5, 7), (7, 9)], spans) == [0, 0, 1, 1]
    assert step_of_tokens([(0, 6), (6, 9)], spans) == [0, 1]  # starts decide
    assert step_of_tokens([], spans) == []


def test_a_backend_without_weights_here_is_refused_by_name():
    trace = leg_counting_trace("Two cows. So 8.")
    with pytest.raises(AttentionError, match="scripted exposes no attention"):
        attention_suppression(trace, get_backend("scripted", outputs=["x"]))


def test_masking_a_step_moves_its_restatement_more_than_an_unrelated_step(embedded_backend):
    trace = leg_counting_trace(RESTATED, model="transformers/SmolLM2-135M-Instruct")
    assert [s.text.strip() for s in trace.segments][4] == "The secret number is 7391."
    found = attention_suppression(trace, embedded_backend)
    kl = found.rows()
    n = len(trace.segments)
    assert len(kl) == n and all(len(row) == n for row in kl)
    assert all(kl[i][j] is None for i in range(n) for j in range(i + 1))
    assert all(value is not None and value >= 0 for i in range(n) for value in kl[i][i + 1 :])
    unrelated = max(kl[1][4], kl[2][4], kl[3][4])
    assert kl[0][4] > 2 * unrelated, kl  # the restatement leans on its first statement


def test_receiver_heads_are_listed_by_kurtosis_with_the_steps_they_point_at(embedded_backend):
    trace = leg_counting_trace(LONG, model="transformers/SmolLM2-135M-Instruct")
    found = attention_suppression(trace, embedded_backend)
    heads = found.receiver_heads
    assert len(trace.segments) >= MIN_SCORES + NEAR, "enough steps to score a head's spread"
    assert heads
    short = attention_suppression(leg_counting_trace(RESTATED), embedded_backend)
    assert short.receiver_heads == ()  # five steps: every head would tie
    assert [h.kurtosis for h in heads] == sorted((h.kurtosis for h in heads), reverse=True)
    config = embedded_backend.capabilities.weights().model.config
    assert all(0 <= h.layer < config.num_hidden_layers for h in heads)
    assert all(0 <= h.head < config.num_attention_heads for h in heads)
    assert all(0 < len(h.steps) <= 3 and max(h.steps) < len(trace.segments) for h in heads)
    # the model is back on its own attention: generation still works the same way
    assert embedded_backend.capabilities.weights().model.config._attn_implementation == "sdpa"


def test_analyze_suppression_json(embedded_backend, tmp_path, capsys):
    trace = leg_counting_trace(RESTATED, model="transformers/SmolLM2-135M-Instruct")
    path = tmp_path / "t.jsonl"
    write_traces(path, [trace])
    args = ["analyze", str(path), "--trace", "1", "--suppression", "--model", "transformers"]
    assert main([*args, "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    n = len(trace.segments)
    assert len(out["kl"]) == n and all(len(row) == n for row in out["kl"])
    assert out["kl"][0][0] is None and out["kl"][0][4] > 0
    assert isinstance(out["receiver_heads"], list)
    assert out["model"].startswith("transformers")


def test_starting_each_batch_from_the_unmasked_cache_changes_no_cell(embedded_backend):
    """The shared prefix is read from the unmasked run's cache: the same KL as running every
    masked pass over the whole trace (within float32 rounding)."""
    from llenvs.analysis.instruments import _attention

    trace = leg_counting_trace(RESTATED, model="transformers/SmolLM2-135M-Instruct")
    weights = embedded_backend.capabilities.weights()
    ids, prompt, step_of = _attention._layout(trace, weights)
    n = len(trace.segments)
    with weights.turn():
        runs = [
            _attention._suppression(
                weights.model, ids, prompt, step_of, n, (2, None, None), share_prefix=share
            )
            for share in (True, False)
        ]
    cached, whole = runs
    cells = [(i, j) for i in range(n) for j in range(n) if whole[i][j] is not None]
    assert cells and all(cached[i][j] is not None for i, j in cells)
    assert max(abs(cached[i][j] - whole[i][j]) for i, j in cells) < 1e-5
    assert max(whole[i][j] for i, j in cells) > 1e-3  # the cells measure something
