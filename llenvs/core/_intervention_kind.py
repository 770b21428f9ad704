"""The kinds of intervention a branch records.

Example:
    >>> InterventionKind("resample").value
    'resample'

"""

from __future__ import annotations

from enum import Enum

__all__ = ["InterventionKind"]


class InterventionKind(Enum):
    """What was done at the branch point of an intervention.

    Example:
        >>> [kind.value for kind in InterventionKind]
        ['force', 'feedback', 'complete', 'resample', 'substitute']

    """

    FORCE = "force"
    """The next segment was forced to the intervention's text."""
    FEEDBACK = "feedback"
    """The intervention's text was injected as a user turn."""
    COMPLETE = "complete"
    """The rest was generated in one call (no text)."""
    RESAMPLE = "resample"
    """Generation simply resumed from the branch point (no text)."""
    SUBSTITUTE = "substitute"
    """The next segment was resampled until the model wrote text close to the intervention's
    (an on-policy substitute), then the rest generated from it."""
