"""The intervention ``--force TEXT`` or ``--feedback TEXT`` asks for, its text checked once.

``intervene`` and ``experiment`` both take the two options; a text the intervention refuses is
reported under the option that gave it.

Example:
    >>> import argparse
    >>> text_intervention(argparse.Namespace(force=None, feedback="Check it."))
    Feedback(text='Check it.')

"""

from __future__ import annotations

import argparse

from llenvs.core import Feedback, Force, Intervention

__all__ = ["text_intervention"]


def text_intervention(args: argparse.Namespace) -> Intervention | None:
    """``Force(--force)`` or ``Feedback(--feedback)``; None when neither is given.

    Example:
        >>> text_intervention(argparse.Namespace(force="", feedback=None))
        Traceback (most recent call last):
        ...
        ValueError: --force: the forced segment needs a text (an empty one would end the episode)
        >>> text_intervention(argparse.Namespace(force=None, feedback=None)) is None
        True

    """
    try:
        if args.force is not None:
            return Force(args.force)
        if args.feedback is not None:
            return Feedback(args.feedback)
    except ValueError as error:
        option = "--force" if args.force is not None else "--feedback"
        raise ValueError(f"{option}: {error}") from None
    return None
