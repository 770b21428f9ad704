"""Step values someone else measured and published, stored beside a trace, never mixed with ours.

A study such as Thought Anchors resamples ~100 continuations from before every chunk of a
trace and publishes each chunk's accuracy (and importance measures derived from it).
``PublishedValues`` keeps them as tallies (successes out of trials at each boundary), with where
they came from, the sampling they state, and every published measure as a named column. The
trials are exact where the raw rollouts came with the data, else inferred from the published
fraction (``inferred_tally``) and marked so. They are stored in the analysis sidecar under a key
of their own (``key``), so our rollouts on the same trace, stored under our model's key, are
never counted into them.

Example:
    >>> published = PublishedValues(
    ...     "thought-anchors", "Thought Anchors, imported", "deepseek-r1-distill-llama-8b",
    ...     (PublishedTally(0, 76, 100, inferred=True),), {"forced_importance_accuracy": (0.17,)},
    ...     {"temperature": 0.6, "top_p": 0.95})
    >>> [(v.boundary, v.value, v.trials) for v in published.values()]
    [(0, 0.76, 100)]
    >>> from llenvs.core import read_record, record_dict
    >>> read_record(PublishedValues, record_dict(published)) == published
    True

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from llenvs.analysis.statistics import BoundaryValue, wilson_interval
from llenvs.core import RECORD, Count, Flag, Number, Text

__all__ = ["PUBLISHED_KEY", "PublishedTally", "PublishedValues", "inferred_tally"]

PUBLISHED_KEY = "published"
"""The key field that marks published values (its value names the study)."""

FEWEST_TRIALS, MOST_TRIALS = 50, 100
"""The trials a published fraction is read against when its rollouts are not given."""


def inferred_tally(fraction: float) -> tuple[int, int]:
    """``(successes, trials)`` that give the published ``fraction``, with 50 to 100 trials.

    The most trials that give it (100 when they do), as a study resampling ~100 times per
    point, some discarded, reports it; when none does, 100 trials and the nearest count.

    Example:
        >>> inferred_tally(0.76), inferred_tally(0.5), inferred_tally(0.98989898989899)
        ((76, 100), (50, 100), (98, 99))
        >>> inferred_tally(1 / 3)
        (33, 99)

    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"a published accuracy must be in [0, 1], got {fraction!r}")
    for trials in range(MOST_TRIALS, FEWEST_TRIALS - 1, -1):
        successes = round(fraction * trials)
        if abs(Fraction(successes, trials) - Fraction(fraction)) < Fraction(1, 10**9):
            return successes, trials
    return round(fraction * MOST_TRIALS), MOST_TRIALS


@dataclass(frozen=True)
class PublishedTally:
    """The published continuations from one boundary (before segment ``boundary``).

    Example:
        >>> from llenvs.core import record_dict
        >>> record_dict(PublishedTally(3, 40, 80, inferred=False))
        {'boundary': 3, 'successes': 40, 'trials': 80, 'inferred': False}

    """

    __pydantic_config__ = RECORD

    boundary: Count
    """Segments kept before the continuations."""
    successes: Count
    """Continuations that reached the right answer."""
    trials: Count
    """Continuations counted."""
    inferred: Flag
    """True when ``trials`` was inferred from the published fraction (no raw rollouts)."""

    def __post_init__(self) -> None:
        if not 0 <= self.successes <= self.trials or self.boundary < 0:
            raise ValueError(
                f"published tally at boundary {self.boundary}: {self.successes} successes of "
                f"{self.trials} trials"
            )


@dataclass(frozen=True)
class PublishedValues:
    """A trace's published step values (see the module)."""

    __pydantic_config__ = RECORD

    study: Text
    """Which study (``thought-anchors``): the value of the key's ``published`` field."""
    provenance: Text
    """Where they come from, in words ("Thought Anchors, imported")."""
    model: Text
    """The model the study resampled with."""
    tallies: tuple[PublishedTally, ...]
    """The continuations counted at each boundary, in order."""
    measures: Mapping[Text, tuple[Number | None, ...]]
    """Every other published number, one column per name, one entry per segment (None: not
    given for that segment)."""
    sampling: Mapping[Text, Number]
    """The sampling the study states (``temperature``, ``top_p``)."""

    @property
    def key(self) -> dict[str, Any]:
        """The sidecar key: the study, its model and its sampling, apart from any of ours.

        Example:
            >>> PublishedValues("s", "S", "m", (), {}, {"temperature": 0.6}).key
            {'published': 's', 'model': 'm', 'temperature': 0.6}

        """
        return {PUBLISHED_KEY: self.study, "model": self.model, **self.sampling}

    @property
    def inferred(self) -> int:
        """How many tallies have inferred trials."""
        return sum(tally.inferred for tally in self.tallies)

    def values(self) -> list[BoundaryValue]:
        """The value of each boundary, with Wilson's 95% interval of its tally."""
        return [
            BoundaryValue(
                t.boundary,
                t.trials,
                t.successes,
                t.successes / t.trials if t.trials else None,
                wilson_interval(t.successes, t.trials),
            )
            for t in self.tallies
        ]
