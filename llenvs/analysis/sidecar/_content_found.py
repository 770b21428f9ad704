"""``ContentFound``: which later steps' content one rollout says again.

A rollout from before step i replaces step i and what follows with the model's own text; the
steps ``j >= i`` whose content appears in it (``llenvs.analysis.instruments.step_matrix``
finds them) are what the step-to-step matrix counts. Kept in the analysis sidecar as
``content`` lines under the rollouts' key with the similarity and threshold that decided
(``returns_key``), so a reopened trace reads them back and only new rollouts are compared.

Example:
    >>> from llenvs.core import read_record, record_dict
    >>> found = ContentFound(2, 0, (2, 5))
    >>> read_record(ContentFound, record_dict(found)) == found
    True

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.core import RECORD, Count

__all__ = ["ContentFound"]


@dataclass(frozen=True)
class ContentFound:
    """The steps at or after ``boundary`` whose content rollout ``number`` from there says."""

    __pydantic_config__ = RECORD

    boundary: Count
    """The boundary the rollout was sampled from (before step ``boundary``)."""
    number: Count
    """Which rollout of that boundary."""
    steps: tuple[Count, ...]
    """The steps ``j >= boundary`` whose text a run of the rollout's sentences matches at or
    above the threshold, in order."""
