"""The bounds of the numbers a user types (sizes, seeds, token budgets, batch sizes, budgets).

Each ``Bound`` is defined once here and checked where the number comes in, before anything is
built: the CLI's options (``llenvs evaluate``, ``analyze``, ``intervene``), the intervention values and the workbench's
boxes call ``check``, so both refuse the same values with the same message, which names the
bound and why it is there. Task lists are checked against their dataset's size by
``llenvs.core.run_spec``. ``FloatBound`` is the same for real numbers (a temperature, a
width: the workbench's boxes).

Example:
    >>> MAX_TOKENS.check(256)
    256
    >>> MAX_TOKENS.check(10**9, "--max-tokens")
    Traceback (most recent call last):
    ...
    llenvs.core.errors.OutOfBoundsError: --max-tokens must be 1..131072 (the longest context of the models llenvs runs), got 1000000000

"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from llenvs.core.errors import OutOfBoundsError

__all__ = [
    "BATCH_SIZE",
    "DATASET_SIZE",
    "MAX_TOKENS",
    "ON_POLICY_SAMPLES",
    "ROLLOUT_BUDGET",
    "SAMPLES",
    "SEED",
    "TOKEN_BUDGET",
    "Bound",
    "FloatBound",
]

N = TypeVar("N", int, float)


@dataclass(frozen=True)
class _Range(Generic[N]):
    """The numbers ``low..high`` (both included) a number must be in, and why."""

    name: str
    """What the number is, as the library names it (``max_tokens``)."""
    low: N
    """The smallest value allowed."""
    high: N
    """The largest value allowed."""
    why: str = ""
    """Why the bound is where it is, said with it."""

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"a bound needs low <= high, got {self.low}..{self.high}")

    def describe(self) -> str:
        """``must be low..high (why)``: what the messages say."""
        why = f" ({self.why})" if self.why else ""
        return f"must be {self.span()}{why}"

    def span(self) -> str:
        """``low..high``, each end as ``spell`` says it (``0..3``, ``0.05..2``)."""
        return f"{self.spell(self.low)}..{self.spell(self.high)}"

    @staticmethod
    def spell(value: float) -> str:
        """A number in words: an integer's digits, a float's shortest form (``2``, ``0.05``).

        Example:
            >>> Bound.spell(3), FloatBound.spell(2.0), FloatBound.spell(0.1 + 0.2)
            ('3', '2', '0.30000000000000004')

        """
        if isinstance(value, int):
            return str(value)
        return f"{value:g}" if float(f"{value:g}") == value else repr(value)


@dataclass(frozen=True)
class Bound(_Range[int]):
    """The integers ``low..high`` (both included) a number must be in, and why.

    Example:
        >>> Bound("samples", 1, 16, "generated together").check(17)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: samples must be 1..16 (generated together), got 17
        >>> Bound("k", 0, 3).describe()
        'must be 0..3'

    """

    def check(self, value: int, name: str | None = None) -> int:
        """``value`` when it is an int in the bound, else an ``OutOfBoundsError``.

        ``name`` is how the caller's user knows the number (``--max-tokens``, ``max tokens``);
        the bound's own name by default.

        Example:
            >>> SEED.check(-1, "--seed")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.core.errors.OutOfBoundsError: --seed must be 0..4294967295 (...), got -1

        """
        shown = name or self.name
        if isinstance(value, bool) or not isinstance(value, int):
            raise OutOfBoundsError(shown, value, f"must be an integer {self.span()}")
        if not self.low <= value <= self.high:
            raise OutOfBoundsError(shown, value, self.describe())
        return value


@dataclass(frozen=True)
class FloatBound(_Range[float]):
    """The real numbers ``low..high`` (both included) a number must be in, and why.

    Example:
        >>> FloatBound("temperature", 0.0, 2.0).describe()
        'must be 0..2'

    """


DATASET_SIZE = Bound(
    "size", 1, 1_000_000, "a run holds its task list and every trace it makes in memory"
)
"""Tasks a generated dataset (reasoning-gym) is made with."""

SEED = Bound("seed", 0, 2**32 - 1, "the seeds numpy's generators take")
"""A seed: of a dataset's tasks, of the sampler, of a run's rollouts."""

MAX_TOKENS = Bound("max_tokens", 1, 131_072, "the longest context of the models llenvs runs")
"""A token budget: of a trajectory, a rollout, a forced answer."""

BATCH_SIZE = Bound("batch_size", 1, 256, "trajectories held in memory at once")
"""Trajectories generated together."""

SAMPLES = Bound("samples", 1, 16, "the resamples of one intervention, generated together")
"""Resamples one intervention makes (``Resample.n``, ``llenvs intervene --samples``)."""

ON_POLICY_SAMPLES = Bound(
    "on-policy samples", 0, 256, "continuations a forced text is placed among, one batch"
)
"""Continuations of the model's own a forced text is scored against (0: not scored)."""

SUBSTITUTE_TRIES = Bound(
    "tries", 1, 256, "resamples of one segment a substitute is chosen among, a few per batch"
)
"""Resamples an on-policy substitute is chosen among (``Substitute.tries``, ``--tries``)."""

ROLLOUT_BUDGET = Bound(
    "budget", 0, 100_000, "rollouts of one trace, each generated and stored as a line"
)
"""Most rollouts of one step analysis (``llenvs analyze --budget``)."""

TOKEN_BUDGET = Bound(
    "token budget", 1, 10**10, "tokens the rollouts of one trace generate, each paid for"
)
"""Most tokens of one step analysis's rollouts (``llenvs analyze --token-budget``)."""
