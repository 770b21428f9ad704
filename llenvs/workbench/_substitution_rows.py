"""A substitute branch's two texts as rows: the target as a Force would put it, and the model's own.

Example:
    >>> from llenvs.evaluation.branching import OnPolicy, Substitution
    >>> mine = OnPolicy(-1.0, -4.0, 4, 55.0, 8, (), None)
    >>> found = Substitution("So 4.", "So four legs.", 0.9, 3, 16, 0.8, "lexical", (), mine)
    >>> substitution_rows(found)[["text", "similarity", "on-policy percentile"]].to_dict("list")
    {'text': ['So 4.', 'So four legs.'], 'similarity': [1.0, 0.9], 'on-policy percentile': [nan, 55.0]}

"""  # noqa: E501

from __future__ import annotations

import math

import pandas as pd

from llenvs.evaluation.branching import OnPolicy, Substitution
from llenvs.workbench._whitespace import one_line

__all__ = ["substitution_rows"]


def substitution_rows(found: Substitution) -> pd.DataFrame:
    """The target (forced as it is) and the chosen try, with similarity and on-policy scores.

    A score not computed (a model that cannot score a text, or none asked) is None, shown as
    the table's placeholder.
    """
    rows = [
        _row("target (as Force would put it)", found.target, 1.0, found.forced_on_policy),
        _row(
            f"substitute (the closest of {found.tries} tries)",
            found.text,
            found.similarity,
            found.on_policy,
        ),
    ]
    return pd.DataFrame(rows)


def _row(what: str, text: str, similarity: float, scored: OnPolicy | None) -> dict[str, object]:
    return {
        "": what,
        "text": one_line(text),
        "similarity": round(similarity, 3),
        "on-policy percentile": None if scored is None else _known(scored.percentile),
        "log-prob per token": None if scored is None else _known(round(scored.mean_logprob, 3)),
    }


def _known(number: float) -> float | None:
    return None if math.isnan(number) else number
