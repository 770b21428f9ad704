"""The planned cost of an analysis, shown before it runs: rollouts, tokens and seconds.

The number of rollouts is at most the budget left (the adaptive schedule may stop sooner). Two
token figures: the upper bound (every rollout spends its whole ``max_tokens``, and the
answer-opening allowance where the trace's run forced one) and an estimate from real token
counts: the rollouts already made from a boundary with these settings (``measured``: what a
rollout from there really writes, often far more than the trace did, at a temperature the
trace was not sampled at), else what the trace itself generated after the boundary (its
segments' token ids; 4 characters a token only where it has none). Seconds come from a
tokens-per-second figure over whole calls, prefill included: one the caller measured (the last
run's own, ``SpeedSource.GIVEN``), one measured here by a short call to the backend
(``calibrate``, ``SpeedSource.CALIBRATED``: one request alone, so a batching backend will do
better), or none (``SpeedSource.UNKNOWN``); both the estimate and the upper bound are turned
into seconds. What the rollouts measure is the chance that the model running them answers
right from each prefix: ``other_model`` says so where another model wrote the trace or its
published values.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
    ...           segments=(SegmentRecord(0, 0, 3, "A. ", token_ids=(1, 2)),
    ...                     SegmentRecord(1, 3, 5, "B.", token_ids=(3, 4), terminal=True)))
    >>> p = plan(t, AnalysisParams(budget=10, max_tokens=50), tokens_per_second=20.0)
    >>> p.rollouts, p.max_tokens, p.estimated_tokens, p.seconds, p.seconds_at_most
    (10, 500, 30, 1.5, 25.0)
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> made = [Rollout(0, 0, 1, False, None, 40), Rollout(1, 0, 2, False, None, 20)]
    >>> plan(t, AnalysisParams(budget=10, max_tokens=50), measured=made).estimated_tokens
    300

"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from llenvs.analysis.sampling._params import AnalysisParams
from llenvs.analysis.sampling._rollout import Rollout
from llenvs.analysis.sampling._rollout_engine import sampled_boundaries
from llenvs.analysis.sampling._token_budget import (
    CHARACTERS_PER_TOKEN,
    rollout_limit,
    spent,
    tokens_after,
)
from llenvs.core import GenerationRequest, Message, ModelBackend, Prompt, SamplingParams
from llenvs.traces.records import Trace

__all__ = [
    "CHARACTERS_PER_TOKEN",
    "CostPlan",
    "SpeedSource",
    "calibrate",
    "other_model",
    "plan",
    "same_model",
]


class SpeedSource(Enum):
    """Where the tokens-per-second figure of a plan came from.

    Example:
        >>> SpeedSource.CALIBRATED.value
        'calibrated'

    """

    GIVEN = "given"
    """Measured by the caller (a figure from an earlier run, a benchmark)."""
    CALIBRATED = "calibrated"
    """Measured by ``calibrate``: one short call to the backend."""
    UNKNOWN = "unknown"
    """None: no time estimate."""


@dataclass(frozen=True)
class CostPlan:
    """What an analysis will cost at most, and about how long it will take.

    Example:
        >>> CostPlan(4, 0, 2, 400, 100, 0, 0, None, SpeedSource.UNKNOWN).seconds is None
        True

    """

    rollouts: int
    """Rollouts to generate at most (the budget less the stored ones)."""
    stored: int
    """Rollouts already stored under the same key (read back, not generated)."""
    boundaries: int
    """Boundaries sampled."""
    max_tokens: int
    """Upper bound of the tokens generated: every rollout (and forced answer) at its limit."""
    estimated_tokens: int
    """Tokens expected from the trace's own length after each boundary."""
    forced_answers: int
    """Forced-answer calls (0 when not asked for)."""
    forced_tokens: int
    """Upper bound of their tokens."""
    tokens_per_second: float | None
    """The generation speed the time is estimated from (None: unknown)."""
    speed_source: SpeedSource
    """Where that speed came from."""
    measured: int = 0
    """Rollouts already made whose real token counts the estimate comes from (0: the trace's)."""

    @property
    def seconds(self) -> float | None:
        """Estimated seconds: estimated tokens (and forced ones) over the speed.

        Example:
            >>> CostPlan(4, 0, 2, 400, 100, 0, 0, 50.0, SpeedSource.GIVEN).seconds
            2.0

        """
        return self._at_speed(self.estimated_tokens + self.forced_tokens)

    @property
    def seconds_at_most(self) -> float | None:
        """Seconds if every rollout ran to its limit: ``max_tokens`` over the speed.

        Example:
            >>> CostPlan(4, 0, 2, 400, 100, 0, 0, 50.0, SpeedSource.GIVEN).seconds_at_most
            8.0

        """
        return self._at_speed(self.max_tokens)

    def _at_speed(self, tokens: int) -> float | None:
        """The seconds ``tokens`` take at ``tokens_per_second`` (None: no speed known)."""
        return tokens / self.tokens_per_second if self.tokens_per_second else None

    def summary(self) -> str:
        """The plan in one line.

        Example:
            >>> CostPlan(4, 2, 2, 400, 100, 0, 0, 50.0, SpeedSource.GIVEN, 2).summary()
            'planned: up to 4 rollouts at 2 boundaries (2 stored), ~100 tokens from 2 rollouts made (at most 400), ~2s (at most 8s) at 50 tokens/s (given)'

        """  # noqa: E501
        stored = f" ({self.stored} stored)" if self.stored else ""
        forced = (
            f", {self.forced_answers} forced answers (at most {self.forced_tokens} tokens)"
            if self.forced_answers
            else ""
        )
        seconds, most = self.seconds, self.seconds_at_most
        timing = (
            "time unknown (no tokens/s measured)"
            if seconds is None or most is None
            else f"~{seconds:.0f}s (at most {most:.0f}s) at {self.tokens_per_second:.3g} "
            f"tokens/s ({self.speed_source.value})"
        )
        source = (
            f" from {self.measured} rollouts made" if self.measured else " from the trace's own"
        )
        return (
            f"planned: up to {self.rollouts} rollouts at {self.boundaries} boundaries{stored}, "
            f"~{self.estimated_tokens} tokens{source} (at most {self.max_tokens}){forced}, "
            f"{timing}"
        )


def plan(
    trace: Trace,
    params: AnalysisParams,
    *,
    stored: int = 0,
    forced_answer: bool = False,
    tokens_per_second: float | None = None,
    speed_source: SpeedSource | None = None,
    measured: Sequence[Rollout] = (),
) -> CostPlan:
    """The cost of analysing ``trace`` with ``params`` (``stored`` rollouts already done).

    ``measured``: rollouts already made with these settings; a boundary's estimate is the mean
    of their real token counts there, and the trace's own length after it where none was made.
    With a ``token_budget``, what the measured rollouts spent is taken off it, and the rollouts
    and tokens planned are what the rest buys.

    Example:
        >>> from llenvs.traces import TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> plan(t, AnalysisParams(budget=8), stored=8).rollouts
        0

    """
    boundaries = sampled_boundaries(trace)
    rollouts = max(0, params.budget - stored)
    made: dict[int, list[int]] = {}
    for rollout in measured:
        if rollout.error is None:
            made.setdefault(rollout.boundary, []).append(rollout.tokens)
    limit = rollout_limit(trace, params)
    after = tokens_after(trace)
    remaining = [sum(made[b]) / len(made[b]) if made.get(b) else after[b] for b in boundaries]
    per_rollout = sum(min(r, limit) for r in remaining) / max(1, len(remaining))
    most = rollouts * limit
    if params.token_budget is not None:  # the run admits rollouts while their limit fits
        left = max(0, params.token_budget - spent(measured))
        rollouts = min(rollouts, int(left // max(per_rollout, 1)))
        most = min(most, left)
    forced = len(boundaries) if forced_answer else 0
    forced_tokens = forced * params.forced_answer_tokens
    source = speed_source or (
        SpeedSource.UNKNOWN if tokens_per_second is None else SpeedSource.GIVEN
    )
    return CostPlan(
        rollouts=rollouts,
        stored=stored,
        boundaries=len(boundaries),
        max_tokens=most + forced_tokens,
        estimated_tokens=round(rollouts * per_rollout),
        forced_answers=forced,
        forced_tokens=forced_tokens,
        tokens_per_second=tokens_per_second,
        speed_source=source,
        measured=sum(len(tokens) for b, tokens in made.items() if b in boundaries),
    )


def calibrate(backend: ModelBackend, trace: Trace, tokens: int = 16) -> float:
    """Tokens per second of one short greedy call answering the trace's prompt.

    One request alone, prefill included (as every rollout pays its own): a lower bound for a
    backend that batches, and for a model's first call, which also pays for warming up.

    Example:
        >>> from llenvs.traces import TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> calibrate(get_backend("scripted", outputs=["a b c d"]), t) > 0
        True

    """
    messages = (
        *(
            ()
            if trace.task.system_prompt is None
            else (Message("system", trace.task.system_prompt),)
        ),
        Message("user", trace.task.prompt),
    )
    request = GenerationRequest(
        Prompt(tuple(messages)), SamplingParams(max_tokens=tokens), max_tokens=tokens
    )
    start = time.perf_counter()
    [generation] = backend.generate([request])
    elapsed = max(time.perf_counter() - start, 1e-6)
    return max(1, len(generation.token_ids)) / elapsed


def same_model(first: str, second: str) -> bool:
    """Whether two model names name one model: their last path parts, case aside.

    A trace imported from a study names its model bare; a server serving it adds a provider
    and an organisation.

    Example:
        >>> same_model("openai/deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
        ...            "deepseek-r1-distill-llama-8b")
        True
        >>> same_model("transformers/SmolLM2-135M-Instruct", "deepseek-r1-distill-llama-8b")
        False

    """
    return first.rsplit("/", 1)[-1].casefold() == second.rsplit("/", 1)[-1].casefold()


def other_model(model: str, trace: Trace, published: Iterable[str] = ()) -> str:
    """What rollouts with ``model`` measure, when another model wrote ``trace`` or its values.

    ``published``: the models the trace's published values came from (``PublishedValues.model``).
    Empty when ``model`` is the one that wrote the trace and the values, or when neither is
    recorded.

    Example:
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(),
        ...           run=RunRecord(unknown={"model": "deepseek-r1-distill-llama-8b"}))
        >>> print(other_model("transformers/SmolLM2-135M-Instruct", t,
        ...                   ["deepseek-r1-distill-llama-8b"]))  # doctest: +NORMALIZE_WHITESPACE
        The published values came from deepseek-r1-distill-llama-8b, the model that wrote this
        trace: rollouts with transformers/SmolLM2-135M-Instruct measure
        transformers/SmolLM2-135M-Instruct's chance of a right answer from these prefixes, not
        deepseek-r1-distill-llama-8b's.
        >>> other_model("openai/deepseek-r1-distill-llama-8b", t, ["deepseek-r1-distill-llama-8b"])
        ''

    """
    written = trace.run.model_name
    wrote = written if written is not None and not same_model(model, written) else None
    others = list(dict.fromkeys(p for p in published if not same_model(model, p)))
    if others:
        came = f"The published values came from {' and '.join(others)}"
        if written is not None and all(same_model(written, p) for p in others):
            came += ", the model that wrote this trace"
        elif wrote is not None:
            came += f"; the trace was written by {wrote}"
        theirs = others[0]
    elif wrote is not None:
        came, theirs = f"This trace was written by {wrote}", wrote
    else:
        return ""
    return (
        f"{came}: rollouts with {model} measure {model}'s chance of a right answer from these "
        f"prefixes, not {theirs}'s."
    )
