"""PRMs and labellers against step labels: kappa, AUROC, F1, localisation, intervals, calibration.

Every expected value is worked out by hand in the test (or, for the step file, by a direct
count written here, independent of the library's code).
"""

from __future__ import annotations

import math

import pytest

from llenvs.rewards import (
    ArithmeticPRM,
    auroc,
    bootstrap,
    calibration_table,
    cohen_kappa,
    label_agreement,
    labeller_coverage,
    prm_agreement,
    prm_metrics,
)
from llenvs.rewards.agreement import StepDisagreement, prm_disagreements
from tests.conftest import read_jsonl

# Five traces: segment -> label, and the PRM's score of each segment.
LABELS = {
    "A": {0: 1, 1: -1},  # error at 1, predicted at 1: hit
    "B": {0: 1, 1: 1, 2: -1},  # error at 2, predicted at 0: miss
    "C": {0: 1, 1: 1},  # no error, none predicted: hit
    "D": {0: 1},  # no error, predicted at 0: miss
    "E": {0: -1},  # error at 0, none predicted: miss
}
SCORES = {
    "A": [0.9, 0.1],
    "B": [0.3, 0.9, 0.9],
    "C": [0.9, 0.8],
    "D": [0.2],
    "E": [0.7],
}


def test_localisation_and_f1_by_hand() -> None:
    m = prm_metrics(LABELS, SCORES)
    assert (m.traces, m.traces_with_error) == (5, 3)
    assert m.accuracy_error == pytest.approx(1 / 3)  # A of A, B, E
    assert m.accuracy_correct == pytest.approx(1 / 2)  # C of C, D
    # F1 = 2 * (1/3) * (1/2) / (1/3 + 1/2) = (1/3) / (5/6) = 0.4
    assert m.f1 == pytest.approx(0.4)
    assert m.accuracy == pytest.approx(2 / 5)
    # PRM800K-style labels may hold several -1: the first error is the first of them
    assert prm_metrics({"t": {0: 1, 1: -1, 2: -1}}, {"t": [0.9, 0.1, 0.1]}).accuracy == 1.0


def test_step_auroc_by_hand_with_ties() -> None:
    # predictor 1 - score. Positives (labelled -1): A1 0.9, B2 0.1, E0 0.3.
    # Negatives: A0 0.1, B0 0.7, B1 0.1, C0 0.1, C1 0.2, D0 0.8.
    # 0.9 outranks all 6; 0.1 ties three 0.1s (3 halves) and loses the rest; 0.3 outranks
    # the three 0.1s and 0.2: (6 + 1.5 + 4) / (3 * 6) = 11.5 / 18.
    m = prm_metrics(LABELS, SCORES)
    assert (m.steps, m.first_errors) == (9, 3)
    assert m.auroc == pytest.approx(11.5 / 18)
    assert auroc([0.8, 0.5], [0.5, 0.2, 0.1]) == pytest.approx(5.5 / 6)  # one tie: a half
    assert auroc([0.5] * 3, [0.5] * 7) == 0.5  # a constant predictor: exactly one half
    assert math.isnan(auroc([], [0.5]))


def test_unrated_steps_count_for_nothing() -> None:
    # A None score is skipped: no AUROC pair, and never the predicted first error.
    m = prm_metrics({"t": {0: 1, 1: -1, 2: 1}}, {"t": [None, 0.2, None]})
    assert (m.steps, m.first_errors, m.accuracy_error) == (1, 1, 1.0)
    assert math.isnan(m.auroc)  # no rated negative: nothing to rank


def test_only_traces_labelled_and_scored_count() -> None:
    m = prm_metrics({"a": {0: 1}, "b": {}, "c": {0: -1}}, {"a": [0.9], "b": [0.1]})
    assert m.traces == 1  # b has no label, c no scores


def test_kappa_by_hand() -> None:
    assert cohen_kappa([(1, 1), (0, 0), (-1, -1), (1, 1)]) == 1.0
    # agreement by chance only: p_o = 1/2, p_e = 1/2 * 1/2 + 1/2 * 1/2 = 1/2
    assert cohen_kappa([(1, 1), (1, -1), (-1, 1), (-1, -1)]) == 0.0
    # a: 1,1,1,0,-1,-1; b: 1,1,0,0,-1,1. p_o = 4/6; p_e = (3*3 + 1*2 + 2*1) / 36 = 13/36;
    # kappa = (24/36 - 13/36) / (23/36) = 11/23
    pairs = [(1, 1), (1, 1), (1, 0), (0, 0), (-1, -1), (-1, 1)]
    assert cohen_kappa(pairs) == pytest.approx(11 / 23)
    assert math.isnan(cohen_kappa([(1, 1), (1, 1)]))  # one class for both: undefined


def test_label_agreement_by_hand() -> None:
    first = {"t": {0: 1, 1: -1}, "u": {0: 1, 1: 1}, "v": {0: 1}, "only": {0: 1}}
    second = {"t": {0: 1, 1: -1, 2: 1}, "u": {0: 1, 1: -1}, "v": {3: 1}}
    agreement = label_agreement(first, second, resamples=100)
    # traces both labelled: t, u, v; steps both labelled: t0, t1, u0, u1 (v shares none)
    assert (agreement.traces, agreement.steps) == (3, 4)
    # first errors: t 1 = 1, u -1 vs 1, v -1 = -1: 2 of 3
    assert agreement.first_error.value == pytest.approx(2 / 3)
    # pairs (1,1), (-1,-1), (1,1), (1,-1): p_o = 3/4; a: 1 x3, -1 x1; b: 1 x2, -1 x2;
    # p_e = (3*2 + 1*2) / 16 = 1/2; kappa = (3/4 - 1/2) / (1/2) = 1/2
    assert agreement.kappa.value == pytest.approx(0.5)
    assert agreement.disagreements == (StepDisagreement("u", 1, 1, -1),)


def test_labeller_coverage_by_hand() -> None:
    coverage = labeller_coverage(LABELS, {t: len(s) for t, s in SCORES.items()} | {"F": 3})
    assert (coverage.traces, coverage.traces_with_error) == (5, 3)
    assert (coverage.steps_labelled, coverage.steps) == (9, 12)
    assert coverage.coverage == pytest.approx(9 / 12)
    assert dict(coverage.counts) == {-1: 3, 0: 0, 1: 6}


def test_disagreements_by_hand() -> None:
    assert prm_disagreements(LABELS, SCORES) == [
        StepDisagreement("B", 0, 1, 0.3),  # scored below 0.5, labelled right
        StepDisagreement("B", 2, -1, 0.9),  # scored 0.5 or more, labelled wrong
        StepDisagreement("D", 0, 1, 0.2),
        StepDisagreement("E", 0, -1, 0.7),
    ]


def test_calibration_by_hand() -> None:
    table = calibration_table(LABELS, SCORES, bins=2)
    # [0, 0.5): A1 (-1), B0 (1), D0 (1): 2 of 3 right; [0.5, 1]: A0, B1, B2 (-1), C0, C1, E0 (-1)
    assert [(b.low, b.high, b.steps, b.correct, b.wrong) for b in table] == [
        (0.0, 0.5, 3, 2, 1),
        (0.5, 1.0, 6, 4, 2),
    ]
    assert table[0].share_correct == pytest.approx(2 / 3)
    assert calibration_table({"t": {0: 1}}, {"t": [1.0]}, bins=10)[-1].steps == 1  # 1.0: last bin


def test_bootstrap_interval_holds_the_estimate_and_repeats_with_its_seed() -> None:
    agreement = prm_agreement(LABELS, SCORES, resamples=500, seed=11)
    for estimate in (agreement.auroc, agreement.f1, agreement.accuracy):
        assert estimate.low <= estimate.value <= estimate.high
        assert estimate.low < estimate.high  # five traces: the interval is not a point
    assert agreement.f1.value == prm_metrics(LABELS, SCORES).f1
    assert prm_agreement(LABELS, SCORES, resamples=500, seed=11) == agreement
    assert prm_agreement(LABELS, SCORES, resamples=500, seed=12).auroc != agreement.auroc


def test_bootstrap_without_resamples_or_units() -> None:
    [point] = bootstrap([1.0, 3.0], lambda xs: [sum(xs) / len(xs)], resamples=0)
    assert point.value == 2.0 and math.isnan(point.low) and math.isnan(point.high)
    empty = prm_agreement({}, {})
    assert empty.traces == 0 and math.isnan(empty.f1.value) and math.isnan(empty.auroc.low)


def _direct_count(rows: list[dict], scores: list[list[float | None]]) -> tuple[float, ...]:
    """ProcessBench's numbers by a plain count: every (positive, negative) pair compared."""
    hits = {True: 0, False: 0}
    totals = {True: 0, False: 0}
    positives, negatives = [], []
    for row, trace in zip(rows, scores, strict=True):
        wrong = row["first_error_step"] != -1
        predicted = next((i for i, s in enumerate(trace) if s is not None and s < 0.5), -1)
        totals[wrong] += 1
        hits[wrong] += predicted == row["first_error_step"]
        for label, score in zip(row["labels"], trace, strict=True):
            if label is not None and score is not None:
                (positives if label == -1 else negatives).append(1 - score)
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    on_error, on_correct = hits[True] / totals[True], hits[False] / totals[False]
    f1 = 2 * on_error * on_correct / (on_error + on_correct)
    accuracy = (hits[True] + hits[False]) / len(rows)
    return accuracy, on_error, on_correct, f1, wins / (len(positives) * len(negatives))


def test_arithmetic_prm_on_the_step_file_equals_a_direct_count() -> None:
    rows = [r for r in read_jsonl("step_traces.jsonl") if r["dataset"].startswith("processbench")]
    prm = ArithmeticPRM()
    scores = [prm.score_steps(r["problem"], r["steps"]) for r in rows]
    labels = {
        r["id"]: {i: label for i, label in enumerate(r["labels"]) if label is not None}
        for r in rows
    }
    m = prm_metrics(labels, {r["id"]: s for r, s in zip(rows, scores, strict=True)})
    assert m.traces == len(rows) == 188
    got = (m.accuracy, m.accuracy_error, m.accuracy_correct, m.f1, m.auroc)
    assert got == pytest.approx(_direct_count(rows, scores))
