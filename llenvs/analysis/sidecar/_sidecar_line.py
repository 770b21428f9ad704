"""One line of the analysis sidecar: its kind, how it is written and how it is read back.

Each line is one JSON object: the schema version (``ANALYSIS_SCHEMA_VERSION``), what it holds
(``"kind"``, an ``AnalysisKind``), the trace's id, the key it was made under and its records.
Every line read is checked whole: a malformed one is an ``AnalysisFileError`` naming the file
and the line.

Example:
    >>> json.loads(encode_line(ReturnsLine(trace_id="t", key={}, returns=())))
    {'schema_version': 1, 'kind': 'returns', 'trace_id': 't', 'key': {}, 'returns': []}

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from llenvs.analysis.sampling import ForcedAnswer, Rollout
from llenvs.analysis.sidecar._content_found import ContentFound
from llenvs.analysis.sidecar._content_return import ContentReturn
from llenvs.analysis.sidecar._cut_values import SegmenterValues
from llenvs.analysis.sidecar._published_values import PublishedValues
from llenvs.core import (
    RECORD,
    Count,
    JsonLineError,
    Text,
    parse_json_line,
    read_record,
    record_dict,
)
from llenvs.core.errors import LlenvsError

__all__ = [
    "ANALYSIS_SCHEMA_VERSION",
    "LINES",
    "AnalysisFileError",
    "AnalysisKind",
    "ContentLine",
    "ForcedAnswersLine",
    "PublishedLine",
    "ReturnsLine",
    "RolloutsLine",
    "SegmentersLine",
    "SidecarLine",
    "Stored",
    "encode_line",
    "read_lines",
]

ANALYSIS_SCHEMA_VERSION = 1
"""The version of the sidecar's lines."""

Stored = Rollout | ForcedAnswer | PublishedValues | ContentReturn | SegmenterValues | ContentFound
"""What one line holds."""


class AnalysisFileError(LlenvsError, ValueError):
    """A line of an analysis sidecar that cannot be read (the message names file and line).

    Example:
        >>> issubclass(AnalysisFileError, ValueError)
        True

    """


class AnalysisKind(Enum):
    """What a line of the sidecar holds (its ``kind`` field).

    Example:
        >>> AnalysisKind("forced_answers")
        <AnalysisKind.FORCED_ANSWERS: 'forced_answers'>

    """

    ROLLOUTS = "rollouts"
    """One round of rollouts."""
    FORCED_ANSWERS = "forced_answers"
    """A forced-answer curve."""
    PUBLISHED = "published"
    """A study's published step values (``PublishedValues``), under their own key."""
    RETURNS = "returns"
    """Whether resampled steps' content came back in their rollouts (``ContentReturn``),
    under the rollouts' key with the similarity and threshold (``returns_key``)."""
    SEGMENTERS = "segmenters"
    """The step values of the trace under several segmenters, on its characters
    (``SegmenterValues`` each), under the rollouts' key with the segmenters
    (``segmenters_key``)."""
    CONTENT = "content"
    """Which later steps' content each rollout said again (``ContentFound`` each), under the
    rollouts' key with the similarity and threshold (``returns_key``)."""


@dataclass(frozen=True, kw_only=True)
class SidecarLine:
    """What every line of the sidecar holds first: its version, its kind, its trace, its key."""

    __pydantic_config__ = RECORD

    schema_version: Count = ANALYSIS_SCHEMA_VERSION
    """The version of the sidecar's lines (1)."""
    kind: Text
    """What the line holds (``AnalysisKind``): the rest of its fields follow from it."""
    trace_id: Text
    """The trace whose analysis it is."""
    key: Mapping[Text, Any]
    """What the records were made under (model, sampling, segmenter...); only lines with the
    same key are read back together."""

    def stored(self) -> list[Stored]:
        """The records the line holds."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class RolloutsLine(SidecarLine):
    """A round of rollouts (``"kind": "rollouts"``)."""

    __pydantic_config__ = RECORD

    kind: Literal["rollouts"] = "rollouts"
    """``rollouts``."""
    round: Count
    """The round's number (0-based)."""
    rollouts: tuple[Rollout, ...]
    """The round's rollouts (Rollout)."""

    def stored(self) -> list[Stored]:
        return list(self.rollouts)


@dataclass(frozen=True, kw_only=True)
class ForcedAnswersLine(SidecarLine):
    """A forced-answer curve (``"kind": "forced_answers"``)."""

    __pydantic_config__ = RECORD

    kind: Literal["forced_answers"] = "forced_answers"
    """``forced_answers``."""
    answers: tuple[ForcedAnswer, ...]
    """The answer forced at each boundary (ForcedAnswer)."""

    def stored(self) -> list[Stored]:
        return list(self.answers)


@dataclass(frozen=True, kw_only=True)
class PublishedLine(SidecarLine):
    """A study's published step values (``"kind": "published"``), under their own key."""

    __pydantic_config__ = RECORD

    kind: Literal["published"] = "published"
    """``published``."""
    published: PublishedValues
    """The values (PublishedValues)."""

    def stored(self) -> list[Stored]:
        return [self.published]


@dataclass(frozen=True, kw_only=True)
class ReturnsLine(SidecarLine):
    """Whether resampled content came back (``"kind": "returns"``)."""

    __pydantic_config__ = RECORD

    kind: Literal["returns"] = "returns"
    """``returns``."""
    returns: tuple[ContentReturn, ...]
    """One finding per rollout examined (ContentReturn)."""

    def stored(self) -> list[Stored]:
        return list(self.returns)


@dataclass(frozen=True, kw_only=True)
class SegmentersLine(SidecarLine):
    """Step values under several segmenters (``"kind": "segmenters"``)."""

    __pydantic_config__ = RECORD

    kind: Literal["segmenters"] = "segmenters"
    """``segmenters``."""
    segmenters: tuple[SegmenterValues, ...]
    """The values under each segmenter (SegmenterValues)."""

    def stored(self) -> list[Stored]:
        return list(self.segmenters)


@dataclass(frozen=True, kw_only=True)
class ContentLine(SidecarLine):
    """Which later steps' content rollouts said again (``"kind": "content"``)."""

    __pydantic_config__ = RECORD

    kind: Literal["content"] = "content"
    """``content``."""
    found: tuple[ContentFound, ...]
    """One finding per rollout examined (ContentFound)."""

    def stored(self) -> list[Stored]:
        return list(self.found)


LINES: dict[AnalysisKind, type[SidecarLine]] = {
    AnalysisKind.ROLLOUTS: RolloutsLine,
    AnalysisKind.FORCED_ANSWERS: ForcedAnswersLine,
    AnalysisKind.PUBLISHED: PublishedLine,
    AnalysisKind.RETURNS: ReturnsLine,
    AnalysisKind.SEGMENTERS: SegmentersLine,
    AnalysisKind.CONTENT: ContentLine,
}
"""The declared line of each kind."""


def encode_line(line: SidecarLine) -> bytes:
    """One line of the sidecar as UTF-8 JSON (``llenvs.core.record_dict`` of it)."""
    return (json.dumps(record_dict(line), ensure_ascii=False, allow_nan=False) + "\n").encode(
        "utf-8"
    )


def read_lines(
    path: str | os.PathLike[str],
) -> Iterator[tuple[AnalysisKind, str, dict[str, Any], list[Stored]]]:
    """``(kind, trace id, key, records)`` of every line, each checked whole (see the module)."""
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                if not raw.strip():
                    continue
                data = parse_json_line(raw, first=number == 1)
                kind = _kind(data)
                line = read_record(LINES[kind], data, "analysis", ValueError)
            except (JsonLineError, ValueError) as error:
                raise AnalysisFileError(f"{path}, line {number}: {error}") from None
            yield kind, line.trace_id, dict(line.key), line.stored()


def _kind(data: object) -> AnalysisKind:
    """The kind of a line, its version checked first (a newer llenvs's line is named as such)."""
    if not isinstance(data, dict):
        raise ValueError(f"analysis: expected an object, got {type(data).__name__}")
    version = data.get("schema_version")
    if version != ANALYSIS_SCHEMA_VERSION or isinstance(version, bool):
        raise ValueError(
            f"unknown analysis schema_version {version!r}: this llenvs reads "
            f"{ANALYSIS_SCHEMA_VERSION}"
        )
    try:
        return AnalysisKind(data.get("kind"))
    except ValueError:
        choices = " or ".join(repr(k.value) for k in AnalysisKind)
        raise ValueError(f"analysis.kind must be {choices}, got {data.get('kind')!r}") from None
