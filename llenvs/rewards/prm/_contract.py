"""The process-reward-model contract: a question's steps in, one score in [0, 1] per step out.

``score_steps(question, steps)`` judges each step given the question and the steps before it (1: the
step is right, 0: it is wrong), all steps of a trace in one call: a model PRM reads the trace once.
A step the PRM does not rate (a judge that gave no verdict) scores None: unrated, never guessed;
traces store nothing for it. Two optional hooks: ``judge_steps`` adds notes saying why
(``JudgingPRM``), and ``score_traces`` scores many traces in one batch (``BatchPRM``). Callers go
through ``judge_traces`` / ``score_traces`` here, which use a hook when the PRM has it.

Example:
    >>> class Constant:
    ...     def score_steps(self, question, steps):
    ...         return [0.9 for _ in steps]
    >>> isinstance(Constant(), PRM), score_traces(Constant(), [("2 + 2?", ["4."])])
    (True, [[0.9]])

"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from llenvs.rewards.prm._step_judgement import StepJudgement

__all__ = [
    "NEUTRAL_SCORE",
    "PRM",
    "BatchPRM",
    "JudgingPRM",
    "StepScore",
    "Trace",
    "judge_traces",
    "score_traces",
]

NEUTRAL_SCORE: float = 0.5
"""The score of a step with nothing to judge: neither right nor wrong (a blank step, a step
without arithmetic for the arithmetic checker)."""

Trace = tuple[str, Sequence[str]]
"""One trace as a PRM sees it: (question, steps)."""

StepScore = float | None
"""One step's score: in [0, 1], or None when the PRM does not rate the step (unrated)."""


@runtime_checkable
class PRM(Protocol):
    """Scores every step of a trace: one score in [0, 1] (or None: unrated) per step, in order.

    Each step's score judges that step given the question and the steps before it, so the
    scores of a trace's first k steps do not depend on the steps after them.

    Example:
        >>> ArithmeticPRM().score_steps("2 + 2?", ["2 + 2 = 5.", "So 5."])
        [0.0, 0.5]

    """

    def score_steps(self, question: str, steps: Sequence[str]) -> Sequence[StepScore]:
        """One score per step, each in [0, 1], or None for a step the PRM does not rate."""
        ...


@runtime_checkable
class JudgingPRM(PRM, Protocol):
    """A PRM that can say why: a score and notes per step.

    Example:
        >>> isinstance(ArithmeticPRM(), JudgingPRM)
        True

    """

    def judge_steps(self, question: str, steps: Sequence[str]) -> Sequence[StepJudgement]:
        """One judgement per step; its scores are ``score_steps``'s."""
        ...


@runtime_checkable
class BatchPRM(PRM, Protocol):
    """A PRM that scores many traces at once (a model PRM pads them into one batch).

    Example:
        >>> class Batched:
        ...     def score_steps(self, question, steps):
        ...         return [1.0] * len(steps)
        ...     def score_traces(self, traces):
        ...         return [[1.0] * len(steps) for _, steps in traces]
        >>> isinstance(Batched(), BatchPRM)
        True

    """

    def score_traces(self, traces: Sequence[Trace]) -> Sequence[Sequence[StepScore]]:
        """``score_steps`` of every trace, in order."""
        ...


def score_traces(prm: PRM, traces: Sequence[Trace]) -> list[list[StepScore]]:
    """Score every trace: in one batch where the PRM can, else one call per trace.

    Example:
        >>> score_traces(ArithmeticPRM(), [("q", ["1 + 1 = 2"]), ("q", ["1 + 1 = 3", "ok"])])
        [[1.0], [0.0, 0.5]]

    """
    if isinstance(prm, BatchPRM):
        results = prm.score_traces(traces)
        if len(results) != len(traces):
            raise ValueError(
                f"{type(prm).__name__}.score_traces returned {len(results)} results for "
                f"{len(traces)} traces"
            )
    else:
        results = [prm.score_steps(question, steps) for question, steps in traces]
    return [
        _checked(prm, scores, steps) for scores, (_, steps) in zip(results, traces, strict=True)
    ]


def judge_traces(prm: PRM, traces: Sequence[Trace]) -> list[list[StepJudgement]]:
    """Judge every trace: with notes where the PRM gives them, in one batch where it can.

    Example:
        >>> [j] = judge_traces(ArithmeticPRM(), [("q", ["6 × 5 = 31"])])[0]
        >>> j.score, j.notes["failed"][0]["left"]
        (0.0, '30')

    """
    if not isinstance(prm, JudgingPRM):
        return [[StepJudgement(s) for s in scores] for scores in score_traces(prm, traces)]
    judged: list[list[StepJudgement]] = []
    for question, steps in traces:
        judgements = list(prm.judge_steps(question, steps))
        _checked(prm, [j.score for j in judgements], steps)
        judged.append(judgements)
    return judged


def _checked(prm: PRM, scores: Sequence[object], steps: Sequence[str]) -> list[StepScore]:
    """``scores`` as floats (None kept: unrated); refuses a miscount, a non-number and NaN."""
    name = type(prm).__name__
    if len(scores) != len(steps):
        raise ValueError(f"{name} returned {len(scores)} scores for {len(steps)} steps")
    checked: list[StepScore] = []
    for index, score in enumerate(scores):
        if score is None:
            checked.append(None)
            continue
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            raise TypeError(
                f"{name} returned {score!r} for step {index}: a score must be a number, or None "
                "for an unrated step"
            )
        if math.isnan(float(score)):
            raise ValueError(
                f"{name} returned NaN for step {index}: an unrated step scores None, not NaN"
            )
        checked.append(float(score))
    return checked
