"""A probabilistic scripted backend whose true step values are known.

Before segment i of a known trace, a continuation succeeds with probability ``values[i]``: the
backend reads how many of the trace's segments the request continues after, draws from a
random generator seeded by the request's seed, and answers right or wrong. Forced answers
(a continuation that ends with ``<answer>``) are greedy: right when ``values[i] >= 0.5``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from llenvs.core import BackendCapabilities, FinishReason, Generation, GenerationRequest
from llenvs.traces import Trace

WRONG = ("98", "104", "7")
"""Wrong answers, drawn uniformly (so answer distributions differ between boundaries)."""


class CoinBackend:
    """Continues ``trace`` after segment i with a right answer with probability ``values[i]``."""

    name = "coin"
    capabilities = BackendCapabilities()

    def __init__(
        self,
        trace: Trace,
        values: Sequence[float],
        right: str,
        lengths: Sequence[int] | None = None,
    ) -> None:
        if len(values) != len(trace.segments) + 1:
            raise ValueError("one value per boundary: len(segments) + 1")
        self.values = list(values)
        self.lengths = [8] * len(values) if lengths is None else list(lengths)
        """The tokens a continuation from each boundary generates (8 each by default)."""
        self.right = right
        self.ends: dict[int, int] = {}
        end = 0
        self.ends[0] = 0
        for number, segment in enumerate(trace.segments, start=1):
            end += len(segment.text)
            self.ends[end] = number
        self.requests: list[GenerationRequest] = []

    def boundary(self, continuation: str) -> int:
        if continuation not in ("",) and len(continuation) not in self.ends:
            raise AssertionError(f"not a boundary of the trace: {continuation[-30:]!r}")
        return self.ends[len(continuation)]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        out = []
        for request in requests:
            self.requests.append(request)
            text = request.prompt.continuation
            if text.endswith("<answer>") and len(text) not in self.ends:  # not a boundary
                boundary = self.boundary(text[: -len("<answer>")])
                answer = self.right if self.values[boundary] >= 0.5 else WRONG[0]
                out.append(Generation(f"{answer}</answer>", FinishReason.STOP, (1, 2)))
                continue
            boundary = self.boundary(text)
            rng = random.Random(f"{request.params.seed}")
            if rng.random() < self.values[boundary]:
                answer = self.right
            else:
                answer = rng.choice(WRONG)
            reply = f" So the answer is {answer}. <answer>{answer}</answer>"
            out.append(Generation(reply, FinishReason.STOP, tuple(range(self.lengths[boundary]))))
        return out


def jumpy_values(rng: random.Random, boundaries: int) -> list[float]:
    """True values at ``boundaries`` boundaries: flat but for drift and 1-3 jumps of 0.1-0.6, up
    or down, in [0.01, 0.99] (the simulated traces of the schedule tests and benchmark)."""
    values = [rng.uniform(0.15, 0.85)]
    jumps = set(rng.sample(range(boundaries - 1), rng.randint(1, 3)))
    for step in range(boundaries - 1):
        if step in jumps:
            size = rng.uniform(0.1, 0.6)
            up = values[-1] + size <= 0.98 if rng.random() < 0.5 else values[-1] - size < 0.02
            following = values[-1] + size if up else values[-1] - size
        else:
            following = values[-1] + rng.gauss(0, 0.02)
        values.append(min(0.99, max(0.01, following)))
    return values
