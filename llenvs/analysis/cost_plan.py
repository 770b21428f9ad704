"""The planned cost of an analysis, shown before it runs: rollouts, tokens and seconds.

The number of rollouts is at most the budget left (the adaptive schedule may stop sooner). Two
token figures: the upper bound (every rollout spends its whole ``max_tokens``) and an estimate
from the trace itself (a rollout from before segment i writes about as much as the trace wrote
after it: its segments' token ids where it has them, else 4 characters a token). Seconds come
from a tokens-per-second figure: one the caller measured (``SpeedSource.GIVEN``), one measured
here by a short call to the backend (``calibrate``, ``SpeedSource.CALIBRATED``: one request
alone, so a batching backend will do better), or none (``SpeedSource.UNKNOWN``).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
    ...           segments=(SegmentRecord(0, 0, 3, "A. ", token_ids=(1, 2)),
    ...                     SegmentRecord(1, 3, 5, "B.", token_ids=(3, 4), terminal=True)))
    >>> p = plan(t, AnalysisParams(budget=10, max_tokens=50), tokens_per_second=20.0)
    >>> p.rollouts, p.max_tokens, p.estimated_tokens, p.seconds
    (10, 500, 30, 1.5)

"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum

from llenvs.analysis.analysis_params import AnalysisParams
from llenvs.analysis.rollout_engine import sampled_boundaries
from llenvs.core.backend import GenerationRequest, Message, ModelBackend, Prompt, SamplingParams
from llenvs.traces.trace import Trace

__all__ = ["CHARACTERS_PER_TOKEN", "CostPlan", "SpeedSource", "calibrate", "plan"]

CHARACTERS_PER_TOKEN = 4
"""The characters a token is taken to hold when a trace has no token ids."""


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

    @property
    def seconds(self) -> float | None:
        """Estimated seconds: estimated tokens (and forced ones) over the speed.

        Example:
            >>> CostPlan(4, 0, 2, 400, 100, 0, 0, 50.0, SpeedSource.GIVEN).seconds
            2.0

        """
        if not self.tokens_per_second:
            return None
        return (self.estimated_tokens + self.forced_tokens) / self.tokens_per_second

    def summary(self) -> str:
        """The plan in one line.

        Example:
            >>> CostPlan(4, 2, 2, 400, 100, 0, 0, 50.0, SpeedSource.GIVEN).summary()
            'planned: up to 4 rollouts at 2 boundaries (2 stored), ~100 tokens (at most 400), ~2s at 50 tokens/s (given)'

        """  # noqa: E501
        stored = f" ({self.stored} stored)" if self.stored else ""
        forced = (
            f", {self.forced_answers} forced answers (at most {self.forced_tokens} tokens)"
            if self.forced_answers
            else ""
        )
        seconds = self.seconds
        timing = (
            "time unknown (no tokens/s measured)"
            if seconds is None
            else f"~{seconds:.0f}s at {self.tokens_per_second:.3g} tokens/s "
            f"({self.speed_source.value})"
        )
        return (
            f"planned: up to {self.rollouts} rollouts at {self.boundaries} boundaries{stored}, "
            f"~{self.estimated_tokens} tokens (at most {self.max_tokens}){forced}, {timing}"
        )


def plan(
    trace: Trace,
    params: AnalysisParams,
    *,
    stored: int = 0,
    forced_answer: bool = False,
    tokens_per_second: float | None = None,
    speed_source: SpeedSource | None = None,
) -> CostPlan:
    """The cost of analysing ``trace`` with ``params`` (``stored`` rollouts already done).

    Example:
        >>> from llenvs.traces import TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> plan(t, AnalysisParams(budget=8), stored=8).rollouts
        0

    """
    boundaries = sampled_boundaries(trace)
    rollouts = max(0, params.budget - stored)
    remaining = [_tokens_after(trace, b) for b in boundaries]
    per_rollout = sum(min(r, params.max_tokens) for r in remaining) / max(1, len(remaining))
    forced = len(boundaries) if forced_answer else 0
    forced_tokens = forced * params.forced_answer_tokens
    source = speed_source or (
        SpeedSource.UNKNOWN if tokens_per_second is None else SpeedSource.GIVEN
    )
    return CostPlan(
        rollouts=rollouts,
        stored=stored,
        boundaries=len(boundaries),
        max_tokens=rollouts * params.max_tokens + forced_tokens,
        estimated_tokens=round(rollouts * per_rollout),
        forced_answers=forced,
        forced_tokens=forced_tokens,
        tokens_per_second=tokens_per_second,
        speed_source=source,
    )


def _tokens_after(trace: Trace, boundary: int) -> int:
    """Tokens the trace wrote after ``boundary`` (at least 1: a rollout writes something)."""
    total = 0
    for segment in trace.segments[boundary:]:
        if segment.token_ids is not None:
            total += len(segment.token_ids)
        else:
            total += -(-len(segment.text) // CHARACTERS_PER_TOKEN)
    return max(1, total)


def calibrate(backend: ModelBackend, trace: Trace, tokens: int = 16) -> float:
    """Tokens per second of one short greedy call answering the trace's prompt.

    One request alone, prefill included: a lower bound for a backend that batches.

    Example:
        >>> from llenvs.inference import get_backend
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
