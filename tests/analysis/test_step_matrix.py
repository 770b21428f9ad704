"""The step-to-step matrix (issue 52 part 1): which step led to which, from a trace's rollouts.

Unit tests on rollouts written by hand (a later step's content comes only where an earlier one
was kept: its cell stands out, the others do not), a property of ``build_matrix`` against the
definition, storage in the analysis sidecar, the embedded model's own rollouts with MiniLM, and
``llenvs analyze --matrix``.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.analysis import AnalysisParams, analyze_trace, stored_step_analysis
from llenvs.analysis.instruments import (
    LexicalSimilarity,
    MiniLMSimilarity,
    build_matrix,
    find_content,
    step_matrix,
)
from llenvs.analysis.sampling import Rollout
from llenvs.analysis.sidecar import ContentFound, read_content, returns_key, stored_keys
from llenvs.cli.main import main
from llenvs.evaluation import trace_environment
from llenvs.traces import find_trace
from tests.analysis.conftest import REPO
from tests.helpers import leg_counting_trace

PRODUCTS = REPO / "sample_traces" / "products-smollm2.jsonl"
ARITHMETIC = REPO / "sample_traces" / "basic_arithmetic-smollm2.jsonl"
RESPONSE = (
    "The farm has 3 cows. Each cow has 4 legs. We multiply. So the farm has 3 cows with 12 legs."
)


def _rollouts(texts: dict[int, list[str]]) -> list[Rollout]:
    return [
        Rollout(boundary, number, number, True, "12", 20, text)
        for boundary, each in texts.items()
        for number, text in enumerate(each)
    ]


def test_a_later_step_that_comes_only_where_an_earlier_one_was_kept_stands_out():
    trace = leg_counting_trace(RESPONSE)
    assert [s.text for s in trace.segments][3] == "So the farm has 3 cows with 12 legs."
    # Without step 0 the rollouts never say step 3's content; with it kept, every one does.
    rollouts = _rollouts(
        {
            0: ["A horse has 4 legs. We add. So 4."] * 6,
            1: ["Each cow has 4 legs. We multiply. So the farm has 3 cows with 12 legs."] * 6,
            2: ["We multiply. So the farm has 3 cows with 12 legs."] * 6,
            3: ["So the farm has 3 cows with 12 legs."] * 6,
        }
    )
    matrix = build_matrix(4, rollouts, find_content(trace, rollouts, LexicalSimilarity()))
    rows = matrix.rows()
    assert rows[0][3] == 1.0
    assert rows[1][3] == rows[2][3] == 0.0  # kept or not, step 3 comes once step 0 is there
    assert [(c.source, c.target) for c in matrix.strongest()] == [(0, 1), (0, 2), (0, 3)]
    assert all(rows[i][j] is None for i in range(4) for j in range(i + 1))
    assert matrix.led_to(0, 1)[0].target == 1 and matrix.led_from(3)[0].source == 0
    assert matrix.strongest()[0].interval.low > 0.4  # 0 of 6 against 6 of 6: sure


def test_a_step_of_two_sentences_is_found_only_where_both_come_together():
    trace = leg_counting_trace("Cows have 4 legs. Dogs have 4 legs too. So 8.")
    two = leg_counting_trace("Cows have 4 legs. Dogs have 4 legs too.")
    assert len(two.segments) == 2
    rollouts = _rollouts({0: ["Dogs have 4 legs too. So 8.", "Cows have 4 legs."]})
    found = find_content(trace, rollouts, LexicalSimilarity())
    assert [f.steps for f in found] == [(1, 2), (0,)]


def test_failed_rollouts_and_rollouts_after_the_last_step_are_not_compared():
    trace = leg_counting_trace(RESPONSE)
    rollouts = [
        Rollout(0, 0, 0, False, None, 0, "", error="the model failed"),
        Rollout(4, 0, 0, True, "12", 1, "12"),
        Rollout(1, 0, 0, True, "12", 1, "Each cow has 4 legs."),
    ]
    assert [(f.boundary, f.steps) for f in find_content(trace, rollouts, LexicalSimilarity())] == [
        (1, (1,))
    ]


@settings(max_examples=60, deadline=None)
@given(
    steps=st.integers(2, 6),
    data=st.data(),
)
def test_every_cell_is_the_difference_of_the_two_shares_with_its_interval_around_it(steps, data):
    counts = data.draw(st.lists(st.integers(0, 4), min_size=steps, max_size=steps))
    rollouts = [Rollout(b, n, n, True, "x", 1, "") for b in range(steps) for n in range(counts[b])]
    found = [
        ContentFound(
            r.boundary,
            r.number,
            tuple(j for j in range(r.boundary, steps) if data.draw(st.booleans())),
        )
        for r in rollouts
    ]
    matrix = build_matrix(steps, rollouts, found)
    rows = matrix.rows()
    for i in range(steps):
        for j in range(steps):
            if j <= i or i + 1 >= steps or not counts[i] or not counts[i + 1]:
                assert rows[i][j] is None
                continue
            share = {
                b: sum(j in f.steps for f in found if f.boundary == b) / counts[b]
                for b in (i, i + 1)
            }
            assert rows[i][j] == pytest.approx(share[i + 1] - share[i])
    for cell in matrix.cells:
        assert cell.interval.low <= cell.value <= cell.interval.high


def test_findings_are_stored_and_read_back_and_only_new_rollouts_are_compared(tmp_path):
    trace = leg_counting_trace(RESPONSE)
    store = tmp_path / "t.analysis.jsonl"
    rollouts = _rollouts({0: ["We multiply."], 1: ["Each cow has 4 legs."]})

    class Counting(LexicalSimilarity):
        compared = 0

        def table(self, texts, others):
            Counting.compared += len(others)
            return super().table(texts, others)

    from llenvs.analysis.sidecar import append_rollouts

    append_rollouts(store, trace.trace_id, {"model": "m"}, 0, rollouts)
    analysis = stored_step_analysis(trace, store, {"model": "m"})
    first = step_matrix(trace, analysis, similarity=Counting(), store=store)
    assert first.compared_now == 2 and Counting.compared > 0
    key = returns_key({"model": "m"}, "lexical", 0.8)
    assert set(read_content(store, trace.trace_id, key)) == {(0, 0), (1, 0)}
    Counting.compared = 0
    again = step_matrix(trace, analysis, similarity=Counting(), store=store)
    assert again.compared_now == 0 and Counting.compared == 0
    assert again.rows() == first.rows()


@pytest.mark.slow
def test_on_the_embedded_model_the_greedy_rollouts_give_a_matrix_of_their_own(
    embedded_backend, tmp_path
):
    # Greedy rollouts of the model that wrote the trace greedily say its later steps again, from
    # before step 1 and from before step 2 alike: the cells of step 1 are 0, and reading the
    # stored findings back gives the same matrix without comparing anything.
    trace = find_trace(ARITHMETIC, "2")
    environment = trace_environment(trace, embedded_backend)
    params = AnalysisParams(budget=6, temperature=0.0, max_tokens=64, seed=1)
    store = tmp_path / "runs.analysis.jsonl"
    analysis = analyze_trace(
        trace, embedded_backend, params, store=store, environment=environment, boundaries=[0, 1, 2]
    )
    minilm = MiniLMSimilarity()
    matrix = step_matrix(trace, analysis, similarity=minilm, store=store)
    n = len(trace.segments)
    rows = matrix.rows()
    assert len(rows) == n and all(len(row) == n for row in rows)
    assert rows[1][2] == 0.0  # step 2's content comes from before step 1 and step 2 alike
    assert rows[0][1] is not None and rows[2][3] is None  # no rollouts from before step 3
    again = step_matrix(trace, analysis, similarity=minilm, store=store)
    assert again.compared_now == 0 and again.rows() == rows


def test_analyze_matrix_json_reads_the_stored_rollouts(tmp_path, capsys):
    shutil.copy(PRODUCTS, tmp_path / "p.jsonl")
    shutil.copy(PRODUCTS.with_suffix(".analysis.jsonl"), tmp_path / "p.analysis.jsonl")
    trace = find_trace(tmp_path / "p.jsonl", "1")
    assert stored_keys(tmp_path / "p.analysis.jsonl", trace.trace_id)
    args = ["analyze", str(tmp_path / "p.jsonl"), "--trace", "1", "--budget", "0", "--matrix"]
    assert main([*args, "--similarity", "lexical", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    n = len(trace.segments)
    assert out["steps"] == n and len(out["matrix"]) == n
    assert all(len(row) == n for row in out["matrix"])
    assert all(out["matrix"][i][j] is None for i in range(n) for j in range(i + 1))
    assert any(value is not None for row in out["matrix"] for value in row)
    assert out["similarity"] == "lexical"
    assert main([*args, "--similarity", "lexical"]) == 0
    assert "Step-to-step matrix:" in capsys.readouterr().out


def test_analyze_matrix_without_stored_rollouts_says_how_to_get_some(tmp_path, capsys):
    shutil.copy(PRODUCTS, tmp_path / "p.jsonl")
    args = ["analyze", str(tmp_path / "p.jsonl"), "--trace", "2", "--budget", "0", "--matrix"]
    assert main(args) == 1
    assert "no rollouts stored for trace" in capsys.readouterr().out


def test_analyze_matrix_budget_samples_until_every_cell_is_narrow(tmp_path, capsys):
    """``--matrix --budget``: 4 rollouts per boundary, then rounds to the widest cells, read
    again after each round; the scripted model says the same every time, so every cell narrows
    alike and the run stops, budget left, once all are narrower than ``--width``."""
    from llenvs.analysis.instruments import matrix_widths
    from llenvs.analysis.sidecar import read_analysis
    from llenvs.traces import write_traces

    trace = leg_counting_trace("Count the cows. Each has 4 legs. So 12. <answer>12</answer>")
    path = tmp_path / "t.jsonl"
    write_traces(path, [trace])
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps(trace.response) + "\n")
    args = ["analyze", str(path), "--trace", "1", "--matrix", "--budget", "400", "--width", "0.5"]
    args += ["--similarity", "lexical", "--backend", "scripted", "--responses", str(responses)]
    assert main([*args, "--max-tokens", "32", "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    [key] = stored_keys(tmp_path / "t.analysis.jsonl", trace.trace_id)
    stored = read_analysis(tmp_path / "t.analysis.jsonl", trace.trace_id, key)
    counts = {b: sum(r.boundary == b for r in stored.rollouts) for b in range(3)}
    assert 4 < min(counts.values()) and sum(counts.values()) < 400  # stopped, budget left
    analysis = stored_step_analysis(trace, tmp_path / "t.analysis.jsonl", key)
    matrix = step_matrix(trace, analysis, similarity=LexicalSimilarity())
    assert max(matrix_widths(matrix).values()) <= 0.5  # every cell as narrow as asked
    assert out["matrix"] == matrix.rows()
