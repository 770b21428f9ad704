"""A study's published step values of a trace, in words, for the Browse page's step values panel.

Example:
    >>> from llenvs.analysis.sidecar._published_values import PublishedTally, PublishedValues
    >>> published = PublishedValues("s", "S, imported", "m", (PublishedTally(0, 30, 60, True),
    ...                             PublishedTally(1, 80, 100, False)), {}, {})
    >>> published_source(published)  # doctest: +NORMALIZE_WHITESPACE
    'Published values (S, imported): 2 boundaries, 60–100 continuations each; the counts of 1
    inferred from the published accuracy; importances computed here from them'

"""

from __future__ import annotations

from llenvs.analysis.sidecar import PublishedValues

__all__ = ["measure_label", "published_source"]


def published_source(published: PublishedValues) -> str:
    """Where ``published`` comes from, its boundaries and continuations, in one line."""
    trials = sorted({t.trials for t in published.tallies}) or [0]
    spread = f"{trials[0]}–{trials[-1]}" if len(trials) > 1 else f"{trials[0]}"
    inferred = (
        f"; the counts of {published.inferred} inferred from the published accuracy"
        if published.inferred
        else ""
    )
    return (
        f"Published values ({published.provenance}): {len(published.tallies)} boundaries, "
        f"{spread} continuations each{inferred}; importances computed here from them"
    )


def measure_label(name: str) -> str:
    """A published measure's column name in words.

    Example:
        >>> measure_label("counterfactual_importance_kl")
        'counterfactual importance kl'

    """
    return name.replace("_", " ")
