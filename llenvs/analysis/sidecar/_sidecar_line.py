"""One line of the analysis sidecar: its kind, how it is written and how it is read back.

Each line is one JSON object: the schema version (``ANALYSIS_SCHEMA_VERSION``), what it holds
(``"kind"``, an ``AnalysisKind``), the trace's id, the key it was made under and its records.
Every line read is checked whole: a malformed one is an ``AnalysisFileError`` naming the file
and the line.

Example:
    >>> json.loads(encode_line(AnalysisKind.RETURNS, "t", {}, {"returns": []}))
    {'schema_version': 1, 'kind': 'returns', 'trace_id': 't', 'key': {}, 'returns': []}

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Any

from llenvs.analysis.sampling import ForcedAnswer, Rollout
from llenvs.analysis.sidecar._content_return import ContentReturn
from llenvs.analysis.sidecar._cut_values import SegmenterValues
from llenvs.analysis.sidecar._published_values import PublishedValues
from llenvs.core import JsonLineError, parse_json_line, read_record
from llenvs.core.errors import LlenvsError
from llenvs.traces.records import RecordReader

__all__ = [
    "ANALYSIS_SCHEMA_VERSION",
    "AnalysisFileError",
    "AnalysisKind",
    "Stored",
    "encode_line",
    "read_lines",
]

ANALYSIS_SCHEMA_VERSION = 1
"""The version of the sidecar's lines."""

Stored = Rollout | ForcedAnswer | PublishedValues | ContentReturn | SegmenterValues
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


def encode_line(
    kind: AnalysisKind, trace_id: str, key: Mapping[str, Any], body: dict[str, Any]
) -> bytes:
    """One line of ``kind`` for ``trace_id`` under ``key``, ``body`` its records, as UTF-8."""
    record = {
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "kind": kind.value,
        "trace_id": trace_id,
        "key": dict(key),
        **body,
    }
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


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
                kind, record_id, record_key, body = _header(data)
                records = _records(kind, body)
            except (JsonLineError, ValueError) as error:
                raise AnalysisFileError(f"{path}, line {number}: {error}") from None
            yield kind, record_id, record_key, records


def _header(data: object) -> tuple[AnalysisKind, str, dict[str, Any], RecordReader]:
    reader = RecordReader(data, "analysis")
    version = reader.integer("schema_version")
    if version != ANALYSIS_SCHEMA_VERSION:
        raise ValueError(
            f"unknown analysis schema_version {version}: this llenvs reads "
            f"{ANALYSIS_SCHEMA_VERSION}"
        )
    text = reader.text("kind")
    try:
        kind = AnalysisKind(text)
    except ValueError:
        choices = " or ".join(repr(k.value) for k in AnalysisKind)
        raise ValueError(f"analysis.kind must be {choices}, got {text!r}") from None
    return kind, reader.text("trace_id"), reader.obj("key"), reader


def _records(kind: AnalysisKind, reader: RecordReader) -> list[Stored]:
    found: list[Stored]
    if kind is AnalysisKind.ROLLOUTS:
        if reader.integer("round") < 0:
            raise ValueError("analysis.round must be >= 0")
        found = [
            read_record(Rollout, item, f"analysis.rollouts[{n}]")
            for n, item in enumerate(reader.array("rollouts"))
        ]
    elif kind is AnalysisKind.PUBLISHED:
        found = [read_record(PublishedValues, reader.raw("published"), "analysis.published")]
    elif kind is AnalysisKind.SEGMENTERS:
        found = [
            read_record(SegmenterValues, item, f"analysis.segmenters[{n}]")
            for n, item in enumerate(reader.array("segmenters"))
        ]
    elif kind is AnalysisKind.RETURNS:
        found = [
            read_record(ContentReturn, item, f"analysis.returns[{n}]")
            for n, item in enumerate(reader.array("returns"))
        ]
    else:
        found = [
            read_record(ForcedAnswer, item, f"analysis.answers[{n}]")
            for n, item in enumerate(reader.array("answers"))
        ]
    reader.done()
    return found
