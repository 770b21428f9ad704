"""``MonteCarloPRM``: the Monte-Carlo step value as a process reward model.

The score of step i is ``v_{i+1}``: the rate at which ``rollouts`` continuations from right
after the step reach a right answer, judged by the environment's own verifier (Math-Shepherd's
soft label). It speaks the ``PRM`` protocol, so it fills the PRM column of any trace; the
question names the task (its question or its whole prompt), which must be one of the
environment's. Values are cached by prefix: scoring a trace step by step (as a PROCESS reward
does, one more step each time) generates rollouts only for the new step. ``get_prm("mc",
backend=..., environment=...)`` makes one: importing this module registers ``make_prm`` with
the rewards layer's registry under ``"mc"`` (the rewards layer never imports this one).

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> question = base.task(0).question
    >>> backend = get_backend("scripted", outputs=["Count. So. <answer>100</answer>"])
    >>> prm = MonteCarloPRM(backend, base, rollouts=2)
    >>> prm.score_steps(question, ["Count. ", "So. <answer>100</answer>"])
    [1.0, 1.0]

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from llenvs.analysis._analyze import analyze_trace
from llenvs.analysis.sampling import AnalysisParams
from llenvs.analysis.statistics import FixedSchedule
from llenvs.core import DEFAULT_MAX_TOKENS, Environment, ModelBackend, SegmentedEnvironment
from llenvs.core.segmenters import default_segmenter
from llenvs.rewards.prm import NEUTRAL_SCORE, register_prm
from llenvs.traces.records import SegmentRecord, TaskRecord, Trace

__all__ = ["MonteCarloPRM", "make_prm"]


class MonteCarloPRM:
    """Scores step i by the success rate of ``rollouts`` continuations from after it.

    Arguments:
        backend: the model that continues.
        environment: the environment whose tasks the questions are (a base environment or a
            ``SegmentedEnvironment``); its verifier judges the continuations.
        rollouts: continuations per step.
        temperature, max_tokens, seed: how the continuations are sampled (each its own seed,
            derived from ``seed``).

    A step whose continuations all failed to run scores ``NEUTRAL_SCORE``.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
        >>> MonteCarloPRM(object(), base, rollouts=0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: rollouts must be >= 1, got 0

    """

    def __init__(
        self,
        backend: ModelBackend,
        environment: Environment,
        *,
        rollouts: int = 8,
        temperature: float = 0.7,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        seed: int = 0,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {rollouts}")
        self.backend = backend
        if isinstance(environment, SegmentedEnvironment):
            self.environment = environment
        else:
            self.environment = SegmentedEnvironment(environment, default_segmenter())
        self.rollouts = rollouts
        self.params = AnalysisParams(
            budget=0, width=1.0, temperature=temperature, max_tokens=max_tokens, seed=seed
        )
        self._tasks: dict[str, tuple[int, str]] | None = None
        self._values: dict[tuple[int, tuple[str, ...]], float] = {}

    def score_steps(self, question: str, steps: Sequence[str]) -> list[float]:
        """``v_{i+1}`` of every step i: one score per step, in [0, 1]."""
        index, prompt = self._task(question)
        steps = list(steps)
        missing = [
            b for b in range(1, len(steps) + 1) if (index, tuple(steps[:b])) not in self._values
        ]
        if missing:
            trace = self._trace(index, prompt, steps)
            budget = self.rollouts * len(missing)
            analysis = analyze_trace(
                trace,
                self.backend,
                replace(self.params, budget=budget),
                schedule=FixedSchedule(per_round=self.rollouts),
                environment=self.environment,
                boundaries=missing,
            )
            for value in analysis.values:
                if value.boundary in missing:
                    score = NEUTRAL_SCORE if value.value is None else value.value
                    self._values[(index, tuple(steps[: value.boundary]))] = score
        return [self._values[(index, tuple(steps[:b]))] for b in range(1, len(steps) + 1)]

    def _task(self, question: str) -> tuple[int, str]:
        """The task index and prompt of ``question`` (a task's question or whole prompt)."""
        if self._tasks is None:
            self._tasks = {}
            base = self.environment.base_env
            for index in range(len(base)):
                state, _ = base.reset(options={"task_index": index})
                prompt = state.observation.prompt
                self._tasks.setdefault(prompt, (index, prompt))
                asked = getattr(state.hidden, "question", None)
                if isinstance(asked, str):
                    self._tasks.setdefault(asked, (index, prompt))
        if question not in self._tasks:
            raise ValueError(
                f"the question {question[:60]!r} is none of the {len(self.environment)} tasks of "
                f"{self.environment.spec.name!r}: the Monte-Carlo PRM needs the environment "
                "the question comes from"
            )
        return self._tasks[question]

    def _trace(self, index: int, prompt: str, steps: list[str]) -> Trace:
        """The steps as a trace of task ``index`` (segments as given, none terminal)."""
        spec = self.environment.spec
        segments, start = [], 0
        for number, text in enumerate(steps):
            segments.append(SegmentRecord(number, start, start + len(text), text))
            start += len(text)
        task = TaskRecord(spec.name, spec.adapter, dict(spec.kwargs), index, prompt)
        return Trace(task=task, response="".join(steps), segments=tuple(segments))

    def __repr__(self) -> str:
        return (
            f"MonteCarloPRM(backend={self.backend.name!r}, "
            f"rollouts={self.rollouts}, temperature={self.params.temperature}, "
            f"max_tokens={self.params.max_tokens}, seed={self.params.seed})"
        )


def make_prm(
    *, backend: ModelBackend | None = None, environment: Environment | None = None, **options: Any
) -> MonteCarloPRM:
    """The registry's factory: ``get_prm("mc", backend=..., environment=..., rollouts=8)``.

    Example:
        >>> make_prm()
        Traceback (most recent call last):
        ...
        ValueError: the mc PRM needs backend= (the model that continues) and environment= (whose verifier judges the continuations)

    """  # noqa: E501
    if backend is None or environment is None:
        raise ValueError(
            "the mc PRM needs backend= (the model that continues) and environment= (whose "
            "verifier judges the continuations)"
        )
    return MonteCarloPRM(backend, environment, **options)


# The analysis layer plugs its PRM into the registry below it: get_prm("mc", ...).
register_prm("mc", make_prm)
