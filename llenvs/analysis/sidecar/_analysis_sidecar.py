"""The analysis sidecar: rollouts and forced answers of a trace file, stored next to it.

``runs.jsonl`` gets ``runs.analysis.jsonl``. One JSON object per line: a round of rollouts
(``"kind": "rollouts"``), a forced-answer curve (``"kind": "forced_answers"``), a study's
published step values (``"kind": "published"``, ``PublishedValues``), whether resampled
steps' content came back in their rollouts (``"kind": "returns"``, ``ContentReturn``) or the
step values under several segmenters (``"kind": "segmenters"``, ``SegmenterValues``), each with the
trace's id, the key it was made under (the model and the sampling fields,
``AnalysisParams.key``) and its records. Each line is appended atomically under the file's lock
(``append_lines_atomically``), so an interrupted run keeps every round it finished and a rerun
with the same key resumes from them. The file is named by ``llenvs.traces.files`` and read
here only: a malformed line is an ``AnalysisFileError`` naming the file and the line. One line's
format, written and read, is ``_sidecar_line``'s.

Example:
    >>> import tempfile, os
    >>> from llenvs.analysis.sampling import Rollout
    >>> from llenvs.traces.files import analysis_path
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
from typing import Any, TypeVar

from llenvs.analysis.sampling import ForcedAnswer, Rollout
from llenvs.analysis.sidecar._content_found import ContentFound
from llenvs.analysis.sidecar._content_return import ContentReturn
from llenvs.analysis.sidecar._cut_values import SegmenterValues
from llenvs.analysis.sidecar._published_values import PublishedValues
from llenvs.analysis.sidecar._sidecar_line import (
    AnalysisKind,
    ContentLine,
    ForcedAnswersLine,
    PublishedLine,
    ReturnsLine,
    RolloutsLine,
    SegmentersLine,
    SidecarLine,
    encode_line,
    read_lines,
)
from llenvs.traces.files import append_lines_atomically


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
    line = RolloutsLine(trace_id=trace_id, key=key, round=round_number, rollouts=tuple(rollouts))
    _append(path, line)


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
    _append(path, ForcedAnswersLine(trace_id=trace_id, key=key, answers=tuple(answers)))


def append_published(
    path: str | os.PathLike[str], trace_id: str, published: PublishedValues
) -> None:
    """Append ``published``, the step values a study published for ``trace_id``, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_published(path, "t", PublishedValues("s", "S", "m", (), {}, {}))
        >>> [p.study for p in read_published(path, "t")], read_analysis(path, "t", {}).rounds
        (['s'], 0)

    """
    _append(path, PublishedLine(trace_id=trace_id, key=published.key, published=published))


def append_returns(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    returns: Sequence[ContentReturn],
) -> None:
    """Append findings of returned content of trace ``trace_id`` under ``key``, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_returns(path, "t", {}, [ContentReturn(0, 0, 0.9, 2)])
        >>> read_returns(path, "t", {})
        {(0, 0): ContentReturn(boundary=0, number=0, similarity=0.9, at=2)}

    """
    _append(path, ReturnsLine(trace_id=trace_id, key=key, returns=tuple(returns)))


def read_returns(
    path: str | os.PathLike[str], trace_id: str, key: Mapping[str, Any]
) -> dict[tuple[int, int], ContentReturn]:
    """The findings stored for ``trace_id`` under ``key``, by ``(boundary, number)``.

    The last one stored for a rollout wins; every line is checked as in ``read_analysis``.
    """
    return _by_rollout(path, trace_id, key, AnalysisKind.RETURNS, ContentReturn)


def append_content(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    found: Sequence[ContentFound],
) -> None:
    """Append which later steps' content rollouts of trace ``trace_id`` said, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_content(path, "t", {}, [ContentFound(0, 0, (0, 2))])
        >>> read_content(path, "t", {})
        {(0, 0): ContentFound(boundary=0, number=0, steps=(0, 2))}

    """
    _append(path, ContentLine(trace_id=trace_id, key=key, found=tuple(found)))


def read_content(
    path: str | os.PathLike[str], trace_id: str, key: Mapping[str, Any]
) -> dict[tuple[int, int], ContentFound]:
    """The content findings stored for ``trace_id`` under ``key``, by ``(boundary, number)``.

    The last one stored for a rollout wins; every line is checked as in ``read_analysis``.
    """
    return _by_rollout(path, trace_id, key, AnalysisKind.CONTENT, ContentFound)


Found = TypeVar("Found", ContentReturn, ContentFound)


def _by_rollout(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    wanted_kind: AnalysisKind,
    record: type[Found],
) -> dict[tuple[int, int], Found]:
    """The per-rollout findings of one kind stored for ``trace_id`` under ``key``."""
    wanted = dict(key)
    found: dict[tuple[int, int], Found] = {}
    for kind, record_id, record_key, records in read_lines(path):
        if kind is wanted_kind and record_id == trace_id and record_key == wanted:
            found.update(((r.boundary, r.number), r) for r in records if isinstance(r, record))
    return found


def append_segmenter_values(
    path: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    values: Sequence[SegmenterValues],
) -> None:
    """Append a comparison of segmenters of trace ``trace_id`` under ``key``, atomically.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> append_segmenter_values(path, "t", {}, [SegmenterValues("line", (0, 2), (0.5, 1.0))])
        >>> [(k, [v.spec for v in found]) for k, found in read_segmenter_values(path, "t")]
        [({}, ['line'])]

    """
    _append(path, SegmentersLine(trace_id=trace_id, key=key, segmenters=tuple(values)))


def read_segmenter_values(
    path: str | os.PathLike[str], trace_id: str
) -> list[tuple[dict[str, Any], list[SegmenterValues]]]:
    """Every comparison of segmenters stored for ``trace_id``: its key and values, oldest first.

    Every line is checked as in ``read_analysis`` (nothing when the file is missing).
    """
    return [
        (record_key, [r for r in records if isinstance(r, SegmenterValues)])
        for kind, record_id, record_key, records in read_lines(path)
        if kind is AnalysisKind.SEGMENTERS and record_id == trace_id
    ]


def read_published(path: str | os.PathLike[str], trace_id: str) -> list[PublishedValues]:
    """Every study's published values for ``trace_id``, the last stored per key, oldest first.

    Every line is checked as in ``read_analysis`` (nothing when the file is missing).
    """
    return published_by_trace(path).get(trace_id, [])


def published_by_trace(path: str | os.PathLike[str]) -> dict[str, list[PublishedValues]]:
    """``read_published`` of every trace of ``path`` at once (one pass over the file).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> for trace_id in ("a", "b", "a"):
        ...     append_published(path, trace_id, PublishedValues("s", "S", "m", (), {}, {}))
        >>> {t: len(found) for t, found in published_by_trace(path).items()}
        {'a': 1, 'b': 1}

    """
    found: dict[str, dict[str, PublishedValues]] = {}
    for kind, record_id, record_key, records in read_lines(path):
        if kind is AnalysisKind.PUBLISHED:
            found.setdefault(record_id, {})[json.dumps(record_key, sort_keys=True)] = next(
                r for r in records if isinstance(r, PublishedValues)
            )
    return {trace_id: list(by_key.values()) for trace_id, by_key in found.items()}


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
        >>> from llenvs.analysis.sidecar import AnalysisFileError
        >>> try:
        ...     read_analysis(path, "t", {})
        ... except AnalysisFileError as error:
        ...     print(str(error).rsplit("/", 1)[1])  # doctest: +ELLIPSIS
        r.analysis.jsonl, line 1: not...

    """
    wanted = dict(key)
    rollouts: list[Rollout] = []
    rounds = 0
    forced: tuple[ForcedAnswer, ...] | None = None
    for kind, record_id, record_key, records in read_lines(path):
        if record_id != trace_id or record_key != wanted:
            continue
        if kind is AnalysisKind.ROLLOUTS:
            rollouts.extend(r for r in records if isinstance(r, Rollout))
            rounds += 1
        elif kind is AnalysisKind.FORCED_ANSWERS:
            forced = tuple(r for r in records if isinstance(r, ForcedAnswer))
    return StoredAnalysis(tuple(rollouts), rounds, forced)


def stored_keys(
    path: str | os.PathLike[str], trace_id: str, kind: AnalysisKind = AnalysisKind.ROLLOUTS
) -> list[dict[str, Any]]:
    """The keys ``path`` holds ``kind`` records of ``trace_id`` under, oldest first.

    Every line is checked as in ``read_analysis`` (nothing when the file is missing).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.analysis.jsonl")
        >>> for seed in (1, 0, 1):
        ...     append_rollouts(path, "t", {"seed": seed}, 0, [])
        >>> stored_keys(path, "t"), stored_keys(path, "t", AnalysisKind.FORCED_ANSWERS)
        ([{'seed': 1}, {'seed': 0}], [])

    """
    found: list[dict[str, Any]] = []
    for record_kind, record_id, record_key, _ in read_lines(path):
        if record_kind is kind and record_id == trace_id and record_key not in found:
            found.append(record_key)
    return found


def _append(path: str | os.PathLike[str], line: SidecarLine) -> None:
    """Append one line to the sidecar at ``path`` (made with its folder if need be), atomically."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    append_lines_atomically(path, [encode_line(line)])
