"""Pairing two runs by task identity: the same question pairs whatever its index; the same
index with another question never does."""

from __future__ import annotations

from llenvs.analysis import RunTask, pair_runs
from llenvs.traces.records import TaskIdentity

FOUR, THREE, TWO = (TaskIdentity.of("products", f"{n} * 3?") for n in (4, 3, 2))


def test_the_same_question_pairs_at_any_index_and_the_same_index_alone_never_does():
    first = [RunTask(FOUR, 0, True), RunTask(TWO, 1, False), RunTask(FOUR, 5, False)]
    second = [RunTask(FOUR, 9, True), RunTask(THREE, 1, True), RunTask(THREE, 2, None)]
    pairing = pair_runs(first, second)
    assert [(a.task_index, b.task_index) for a, b in pairing.pairs] == [(0, 9)]  # first line
    assert (pairing.only_first, pairing.only_second, pairing.index_clashes) == (1, 1, 1)
    assert pairing.describe("a", "b") == (
        "1 task paired by question: 1 task only in a, 1 only in b "
        "(1 at an index b gives another question)"
    )


def test_shared_tasks_without_a_verdict_are_counted_not_paired():
    pairing = pair_runs([RunTask(FOUR, 0, None)], [RunTask(FOUR, 0, True)])
    assert pairing.paired == 0 and pairing.no_verdict == 1
    assert pairing.describe("a", "b") == "no task paired: 1 task in both without a verdict in one"
