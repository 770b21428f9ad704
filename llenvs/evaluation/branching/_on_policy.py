"""How on-policy an edit is: the model's log-probability of a forced text, against its own.

A Force puts text in the model's mouth. Text the model would itself write measures what it
says; text it finds strange measures its strangeness too (Thought Branches, Macar, Bogdan et
al., 2025). ``on_policy`` scores the forced text teacher-forced after the trace's prefix (one
prefill, ``BackendCapabilities.score``), samples ``samples`` continuations of the same length
from the same prefix, scores them the same way, and places the text among them: its
percentile of mean log-probability per token. The segment the Force replaces is scored too.

Example:
    >>> from llenvs.traces import read_traces
    >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
    >>> trace = next(iter(read_traces("sample_traces/leg_counting-smollm2.jsonl")))
    >>> found = on_policy(trace, 1, "2. The answer is 12.", get_embedded_backend(), samples=4)
    >>> found.samples, found.tokens, 0 <= found.percentile <= 100
    (4, 9, True)

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llenvs.core import GenerationRequest, Message, ModelBackend, Prompt, SamplingParams
from llenvs.core.errors import LlenvsError
from llenvs.evaluation.episodes import derived_seeds
from llenvs.traces.records import SegmentFlag, Trace

__all__ = ["DEFAULT_SAMPLES", "OnPolicy", "OnPolicyError", "on_policy", "prefix_prompt"]

DEFAULT_SAMPLES = 16
"""Continuations the text is placed among, unless told otherwise."""


class OnPolicyError(LlenvsError, ValueError):
    """The on-policy score cannot be computed here (the backend, or the place, says why)."""


@dataclass(frozen=True)
class OnPolicy:
    """The forced text's log-probability, and where it falls among the model's own texts."""

    mean_logprob: float
    """Its mean log-probability per token after the prefix (teacher-forced)."""
    total_logprob: float
    """Its log-probability: the sum over its tokens."""
    tokens: int
    """Its tokens."""
    percentile: float
    """Its place among the samples' mean log-probabilities, 0 to 100 (ties count half): 50
    is as likely as a typical text of the model's own."""
    samples: int
    """How many of the model's own continuations it was placed among."""
    sample_means: tuple[float, ...]
    """Each sample's mean log-probability per token."""
    original: float | None
    """The mean log-probability of the segment it replaces (None: it replaces none)."""

    def to_record(self) -> dict[str, Any]:
        """What a forced branch records as ``metadata.on_policy`` (an unknown number: null)."""
        return {
            "mean_logprob": _known(self.mean_logprob),
            "total_logprob": _known(self.total_logprob),
            "tokens": self.tokens,
            "percentile": _known(self.percentile),
            "samples": self.samples,
            "sample_mean_logprobs": [_known(m) for m in self.sample_means],
            "original_mean_logprob": _known(self.original),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> OnPolicy:
        """The score ``to_record`` wrote; a null number reads back as NaN (None for the original).

        Example:
            >>> score = OnPolicy(-1.25, -10.0, 8, 62.5, 2, (-1.0, -2.0), None)
            >>> OnPolicy.from_record(score.to_record()) == score
            True

        """

        def number(value: float | None) -> float:
            return math.nan if value is None else float(value)

        return cls(
            number(record["mean_logprob"]),
            number(record["total_logprob"]),
            int(record["tokens"]),
            number(record["percentile"]),
            int(record["samples"]),
            tuple(number(m) for m in record["sample_mean_logprobs"]),
            None
            if record["original_mean_logprob"] is None
            else number(record["original_mean_logprob"]),
        )

    def summary(self) -> str:
        """One line for people.

        Example:
            >>> print(OnPolicy(-1.25, -10.0, 8, 62.5, 16, (), -0.8).summary())
            on-policy: -1.25 per token over 8 tokens, the 62nd percentile of 16 continuations of the model's own (the replaced segment: -0.80)

        """  # noqa: E501
        original = "" if self.original is None else f" (the replaced segment: {self.original:.2f})"
        return (
            f"on-policy: {self.mean_logprob:.2f} per token over {self.tokens} tokens, the "
            f"{_ordinal(self.percentile)} percentile of {self.samples} continuations of the "
            f"model's own{original}"
        )


def prefix_prompt(trace: Trace, at: int) -> Prompt:
    """The prompt a continuation after the first ``at`` segments of ``trace`` is generated from.

    The messages before the response are the trace's own; a trace that keeps none asks its
    task's (``TaskRecord.system_prompt`` and ``prompt``), as an episode does. Raises
    ``OnPolicyError`` where feedback was injected before that point.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "2 + 2?"), response="So 4.",
        ...           segments=(SegmentRecord(0, 0, 3, "So "), SegmentRecord(1, 3, 5, "4.")))
        >>> prompt = prefix_prompt(t, 1)
        >>> prompt.messages, prompt.continuation
        ((Message(role='user', content='2 + 2?'),), 'So ')

    """
    if not 0 <= at <= len(trace.segments):
        raise OnPolicyError(f"no place {at} in a trace of {len(trace.segments)} segments")
    if any(SegmentFlag.FEEDBACK_AFTER in s.flags for s in trace.segments[:at]):
        raise OnPolicyError(
            "the prefix holds injected feedback: on-policy scores are computed on a prefix "
            "without feedback turns"
        )
    closed = []
    for message in trace.messages:
        if message.role == "assistant":
            break
        closed.append(message)
    if not closed:  # a trace that keeps no messages (replayed, imported): its task's, as asked
        system = trace.task.system_prompt
        closed = [Message("user", trace.task.prompt)]
        if system is not None:
            closed.insert(0, Message("system", system))
    end = trace.segments[at].start if at < len(trace.segments) else len(trace.response)
    return Prompt(tuple(closed), trace.response[:end])


def on_policy(
    trace: Trace,
    at: int,
    text: str,
    backend: ModelBackend,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    temperature: float = 1.0,
) -> OnPolicy:
    """How likely ``backend``'s model finds ``text`` forced after the first ``at`` segments.

    ``samples`` continuations as long as ``text`` (in tokens) are sampled from the same prefix
    at ``temperature`` (1: the model's own distribution), seeded from ``seed``.
    """
    score = backend.capabilities.score
    if score is None:
        raise OnPolicyError(
            f"{backend.name} cannot score a text (no prompt log-probabilities): on-policy "
            "scores need a local model or a server that returns them"
        )
    if samples < 1:
        raise OnPolicyError(f"samples must be >= 1, got {samples}")
    if not text:
        raise OnPolicyError("nothing to score: the forced text is empty")
    prompt = prefix_prompt(trace, at)
    [forced] = score([(prompt, text)])
    length = max(1, len(forced.token_ids))
    requests = [
        GenerationRequest(
            prompt, SamplingParams(max_tokens=length, temperature=temperature, seed=s), length
        )
        for s in derived_seeds(seed, samples)
    ]
    own = [g.text for g in backend.generate(requests)]
    original = [trace.segments[at].text] if at < len(trace.segments) else []
    scored = score([(prompt, t) for t in own + original])
    means = tuple(s.mean for s in scored[: len(own)])
    counted = [m for m in means if not math.isnan(m)]
    below = sum(m < forced.mean for m in counted) + 0.5 * sum(m == forced.mean for m in counted)
    return OnPolicy(
        forced.mean,
        forced.total,
        len(forced.token_ids),
        100 * below / len(counted) if counted else math.nan,
        samples,
        means,
        scored[-1].mean if original else None,
    )


def _known(number: float | None) -> float | None:
    return None if number is None or math.isnan(number) else number


def _ordinal(percentile: float) -> str:
    number = round(percentile)
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"
