"""The analysis sidecar: rollouts and forced answers of a trace file, stored next to it.

``runs.jsonl`` gets ``runs.analysis.jsonl``. One JSON object per line: a round of rollouts
(``"kind": "rollouts"``) or a forced-answer curve (``"kind": "forced_answers"``), each with the
trace's id, the key it was made under (the model and the sampling fields,
``AnalysisParams.key``) and its records. Each line is appended atomically under the file's lock
(``append_lines_atomically``), so an interrupted run keeps every round it finished and a rerun
with the same key resumes from them. A malformed line is an ``AnalysisFileError`` naming the
file and the line.

Example:
    >>> import tempfile, os
    >>> from llenvs.analysis.rollout import Rollout
    >>> path = analysis_path(os.path.join(tempfile.mkdtemp(), "runs.jsonl"))
    >>> path.name
    'runs.analysis.jsonl'
    >>> append_rollouts(path, "t1", {"seed": 0}, 0, [Rollout(0, 0, 5, True, "4", 3)])
    >>> [r.answer for r in read_analysis(path, "t1", {"seed": 0}).rollouts]
    ['4']
    >>> read_analysis(path, "t1", {"seed": 1}).rollouts  # another key: nothing stored
    ()

"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llenvs.analysis.forced_answer import ForcedAnswer
from llenvs.analysis.rollout import Rollout
from llenvs.core.errors import LlenvsError
from llenvs.traces.json_line import JsonLineError, parse_json_line
from llenvs.traces.record_reader import RecordReader
from llenvs.traces.trace_writer import append_lines_atomically

__all__ = [
    "ANALYSIS_SCHEMA_VERSION",
    "AnalysisFileError",
    "StoredAnalysis",
    "analysis_path",
    "append_forced_answers",
    "append_rollouts",
    "read_analysis",
]

ANALYSIS_SCHEMA_VERSION = 1
"""The version of the sidecar's lines."""


class AnalysisFileError(LlenvsError, ValueError):
    """A line of an analysis sidecar that cannot be read (the message names file and line).

    Example:
        >>> issubclass(AnalysisFileError, ValueError)
        True

    """


def analysis_path(trace_path: str | os.PathLike[str]) -> Path:
    """The sidecar of a trace file: ``<stem>.analysis.jsonl`` in the same folder.

    Example:
        >>> analysis_path("out/runs.jsonl").name, analysis_path("runs.json").name
        ('runs.analysis.jsonl', 'runs.json.analysis.jsonl')

    """
    path = Path(trace_path)
    stem = path.stem if path.suffix == ".jsonl" else path.name
    return path.with_name(f"{stem}.analysis.jsonl")


@dataclass(frozen=True)
class StoredAnalysis:
    """What the sidecar holds for one trace and key.

    Example:
        >>> StoredAnalysis().rounds
        0

    """

    rollouts: tuple[Rollout, ...] = ()
    """Every stored rollout, in the order stored."""
    rounds: int = 0
    """How many rounds of rollouts are stored."""
    forced_answers: tuple[ForcedAnswer, ...] | None = None
    """The stored forced-answer curve (the last one stored), or None."""


def _line(kind: str, trace_id: str, key: Mapping[str, Any], body: dict[str, Any]) -> bytes:
    record = {
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "kind": kind,
        "trace_id": trace_id,
        "key": dict(key),
        **body,
    }
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def append_rollouts(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    round_number: int,
    rollouts: Sequence[Rollout],
) -> None:
    r"""Append one round of rollouts of trace ``trace_id`` under ``key``, as one line, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_rollouts(path, "t", {}, 0, [])
        >>> open(path).read().count("\n")
        1

    """
    body = {"round": round_number, "rollouts": [r.to_dict() for r in rollouts]}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    append_lines_atomically(path, [_line("rollouts", trace_id, key, body)])


def append_forced_answers(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    answers: Sequence[ForcedAnswer],
) -> None:
    """Append the forced-answer curve of trace ``trace_id`` under ``key``, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_forced_answers(path, "t", {}, [ForcedAnswer(0, "4", True, "4</answer>")])
        >>> read_analysis(path, "t", {}).forced_answers[0].answer
        '4'

    """
    body = {"answers": [a.to_dict() for a in answers]}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    append_lines_atomically(path, [_line("forced_answers", trace_id, key, body)])


def read_analysis(
    path: str | os.PathLike[str], trace_id: str, key: Mapping[str, Any]
) -> StoredAnalysis:
    r"""What ``path`` stores for ``trace_id`` under ``key`` (nothing when the file is missing).

    Every line is checked, not only the trace's: a malformed line anywhere is an
    ``AnalysisFileError`` naming the file and the line.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> _ = open(path, "w").write('{"kind": "rollouts"\\n')
        >>> read_analysis(path, "t", {})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.analysis.analysis_sidecar.AnalysisFileError: .../r.analysis.jsonl, line 1: not...

    """
    wanted = dict(key)
    rollouts: list[Rollout] = []
    rounds = 0
    forced: tuple[ForcedAnswer, ...] | None = None
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return StoredAnalysis()
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = parse_json_line(raw, first=number == 1)
                kind, record_id, record_key, body = _header(data)
                if record_id != trace_id or record_key != wanted:
                    _records(kind, body)  # checked all the same
                    continue
                records = _records(kind, body)
            except (JsonLineError, ValueError) as error:
                raise AnalysisFileError(f"{path}, line {number}: {error}") from None
            if kind == "rollouts":
                rollouts.extend(r for r in records if isinstance(r, Rollout))
                rounds += 1
            else:
                forced = tuple(r for r in records if isinstance(r, ForcedAnswer))
    return StoredAnalysis(tuple(rollouts), rounds, forced)


def _header(data: object) -> tuple[str, str, dict[str, Any], RecordReader]:
    reader = RecordReader(data, "analysis")
    version = reader.integer("schema_version")
    if version != ANALYSIS_SCHEMA_VERSION:
        raise ValueError(
            f"unknown analysis schema_version {version}: this llenvs reads "
            f"{ANALYSIS_SCHEMA_VERSION}"
        )
    kind = reader.text("kind")
    if kind not in ("rollouts", "forced_answers"):
        raise ValueError(f"analysis.kind must be 'rollouts' or 'forced_answers', got {kind!r}")
    return kind, reader.text("trace_id"), reader.obj("key"), reader


def _records(kind: str, reader: RecordReader) -> list[Rollout | ForcedAnswer]:
    if kind == "rollouts":
        if reader.integer("round") < 0:
            raise ValueError("analysis.round must be >= 0")
        found: list[Rollout | ForcedAnswer] = [
            Rollout.from_dict(item, f"analysis.rollouts[{n}]")
            for n, item in enumerate(reader.array("rollouts"))
        ]
    else:
        found = [
            ForcedAnswer.from_dict(item, f"analysis.answers[{n}]")
            for n, item in enumerate(reader.array("answers"))
        ]
    reader.done()
    return found
