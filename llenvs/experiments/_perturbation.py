"""``perturbed``: a segment with its first number changed by a small, seeded amount.

Lanham et al.'s "adding mistakes": the intervened segment is taken as it is, except that its
first number (an integer, or a decimal with digits after the point) becomes another one, off by
1 to 3 in its last digit, up or down, as a seeded draw says. Exactly one number changes; the
same text and seed always give the same result. A negative result keeps the sign where the
number had one and is never made negative where it had none (it moves up instead).

Example:
    >>> perturbed("So 4 legs each, 3 deer. ", 0)
    'So 3 legs each, 3 deer. '
    >>> perturbed("So 4 legs each, 3 deer. ", 0) == perturbed("So 4 legs each, 3 deer. ", 0)
    True
    >>> perturbed("No numbers here.", 0) is None
    True

"""

from __future__ import annotations

import random
import re
from decimal import Decimal

__all__ = ["NUMBER", "perturbed"]

NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""A number in a segment: digits, optionally a point and more digits (its sign stays apart)."""


def perturbed(text: str, seed: int) -> str | None:
    """``text`` with its first number moved by ±1..3 in its last digit; None when it has none.

    Example:
        >>> perturbed("x = 2.5 m", 3)
        'x = 2.2 m'
        >>> [perturbed("0 legs", s) for s in range(3)]
        ['2 legs', '3 legs', '3 legs']

    """
    match = NUMBER.search(text)
    if match is None:
        return None
    digits = match.group()
    rng = random.Random(f"{seed}:{text}")
    step = rng.choice((1, 2, 3)) * rng.choice((-1, 1))
    places = len(digits.split(".")[1]) if "." in digits else 0
    unit = Decimal(1).scaleb(-places)
    value = Decimal(digits)
    moved = value + step * unit
    if moved < 0:
        moved = value - step * unit
    shown = f"{moved:.{places}f}"
    return text[: match.start()] + shown + text[match.end() :]
