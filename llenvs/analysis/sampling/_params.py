"""``AnalysisParams``: how a trace's steps are analysed (sampling, budget, target width).

Example:
    >>> p = AnalysisParams(budget=32, width=0.2, temperature=0.8, max_tokens=64, seed=3)
    >>> p.sampling_params().seed, p.sampling_params().max_tokens
    (3, 64)
    >>> AnalysisParams(width=0)
    Traceback (most recent call last):
    ...
    ValueError: width must be in (0, 1], got 0

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.core import DEFAULT_MAX_TOKENS, SamplingParams

__all__ = ["DEFAULT_FORCED_ANSWER_TOKENS", "AnalysisParams"]

DEFAULT_FORCED_ANSWER_TOKENS = 16
"""Token budget of each forced answer (greedy, after the answer opening) unless one is given."""


@dataclass(frozen=True)
class AnalysisParams:
    """How to sample the rollouts, how many at most, and how precise to make each step value.

    The sampling fields (``temperature``, ``top_p``, ``max_tokens``, ``seed``) decide what a
    rollout is: results stored with other sampling fields are other results. ``budget``,
    ``token_budget`` and ``width`` only decide how many rollouts to run, so a rerun with a
    larger budget or a narrower width extends the stored results.

    Example:
        >>> sorted(AnalysisParams().key())
        ['max_tokens', 'seed', 'temperature', 'top_p']

    """

    budget: int = 64
    """Most rollouts in all (stored ones included)."""
    token_budget: int | None = None
    """Most tokens the rollouts may generate in all (stored ones included), or None: only
    ``budget`` limits. Rollouts are priced by the trace's own length after their boundary and
    admitted at their worst cost, so the run never spends past it (``token_budget`` module)."""
    width: float = 0.3
    """Stop once every step value's 95% interval is narrower than this."""
    temperature: float = 0.7
    """Sampling temperature of the rollouts (> 0, or every rollout from a point is the same)."""
    top_p: float = 1.0
    """Nucleus sampling mass of the rollouts."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Token budget of each rollout (the kept prefix not counted)."""
    seed: int = 0
    """The run seed: each rollout's own seed is derived from it (``rollout_seed``)."""
    forced_answer_tokens: int = DEFAULT_FORCED_ANSWER_TOKENS
    """Token budget of each forced answer (greedy, after the answer opening)."""

    def __post_init__(self) -> None:
        if isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 0:
            raise ValueError(f"budget must be an int >= 0, got {self.budget!r}")
        if self.token_budget is not None and (
            isinstance(self.token_budget, bool)
            or not isinstance(self.token_budget, int)
            or self.token_budget < 0
        ):
            raise ValueError(f"token_budget must be an int >= 0 or None, got {self.token_budget!r}")
        if not 0 < self.width <= 1:
            raise ValueError(f"width must be in (0, 1], got {self.width}")
        if self.forced_answer_tokens <= 0:
            raise ValueError(f"forced_answer_tokens must be > 0, got {self.forced_answer_tokens}")
        self.sampling_params()  # checks temperature, top_p and max_tokens

    def sampling_params(self) -> SamplingParams:
        """The sampling parameters of the rollouts (each rollout replaces the seed with its own).

        Example:
            >>> AnalysisParams(temperature=1.0).sampling_params().temperature
            1.0

        """
        return SamplingParams(
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
        )

    def key(self) -> dict[str, Any]:
        """The fields that decide what a rollout is: stored results are kept under them.

        Example:
            >>> AnalysisParams(seed=5).key()["seed"]
            5

        """
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
