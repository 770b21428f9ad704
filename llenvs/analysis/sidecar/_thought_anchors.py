r"""Thought Anchors' published data as traces with stored step values.

Thought Anchors (Bogdan et al., 2025, arXiv 2506.19143) publishes reasoning traces of
DeepSeek-R1-Distill models on MATH problems, cut into sentence chunks, with the accuracy of ~100
continuations resampled from before every chunk. One problem folder holds ``base_solution.json``
(the prompt and the response), ``chunks_labeled.json`` (the chunks, their ``function_tags``,
``depends_on``, ``summary``, ``accuracy`` and importance measures) and, when present,
``problem.json`` (the problem and ``gt_answer``); the full dataset also has the raw rollouts,
``chunk_<i>/solutions.json``.

``read_thought_anchors(folder)`` makes one trace of a folder: the prompt and the response
exactly as published; its segments the published chunks, found in the response whitespace-
tolerantly (``chunk_spans``: lossless, the text between chunks kept with the chunk before it);
each segment's tags, dependencies and summary as its ``annotations``; success judged with
math-verify against ``gt_answer`` (``verdict_disagrees`` says where that differs from the
published ``is_correct``). Its step values become ``PublishedValues``: each chunk's accuracy as
a tally at the boundary before it (exact from the raw rollouts when the folder has them, else
inferred from the fraction and marked so), every other measure as a named column, and the
sampling the paper states. ``thought_anchors_folders`` finds the problem folders under a path;
``write_thought_anchors`` appends new traces to a trace file and their values to its analysis
sidecar.

Example:
    >>> from llenvs.analysis.sidecar._thought_anchors_example import example_folder
    >>> folder = example_folder()
    >>> found = read_thought_anchors(folder)
    >>> [s.text for s in found.trace.segments], found.trace.success
    (['So 2 + 2 = 4.\n\n', 'Done.\n</think> \\boxed{4}'], True)
    >>> found.trace.segments[1].annotations["function_tags"], found.published.tallies[1]
    (['self_checking'], PublishedTally(boundary=1, successes=98, trials=99, inferred=True))

"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llenvs.adapters.huggingface import answers_match
from llenvs.analysis.sidecar._analysis_sidecar import append_published, published_by_trace
from llenvs.analysis.sidecar._published_values import (
    PublishedTally,
    PublishedValues,
    inferred_tally,
)
from llenvs.core import Message
from llenvs.core.errors import LlenvsError
from llenvs.core.run_spec import RunSpec, StatedSampling
from llenvs.core.segmenters import SegmenterSpec
from llenvs.traces.files import TraceReader, analysis_path, append_traces, write_traces
from llenvs.traces.importers import ChunkAlignmentError, chunk_spans, segments_of
from llenvs.traces.records import RunRecord, TaskRecord, Trace

__all__ = [
    "DEPENDS_ON",
    "FUNCTION_TAGS",
    "STUDY",
    "SUMMARY",
    "ThoughtAnchorsError",
    "ThoughtAnchorsTrace",
    "read_thought_anchors",
    "thought_anchors_folders",
    "write_thought_anchors",
]

STUDY = "thought-anchors"
"""The study's name: the import format, and the ``published`` field of its values' key."""

PROVENANCE = "Thought Anchors, imported"
"""Where the values come from, in words."""

SAMPLING = {"temperature": 0.6, "top_p": 0.95}
"""The sampling the study states for its responses and rollouts (no token budget, no seed)."""

SOURCE = "Thought Anchors, arXiv 2506.19143"
"""Where the study states its sampling."""
"""The sampling the paper states for its resampled continuations."""

CHUNKS, BASE, PROBLEM = "chunks_labeled.json", "base_solution.json", "problem.json"
"""The files of a problem folder (``problem.json`` is optional)."""

FUNCTION_TAGS, DEPENDS_ON, SUMMARY = "function_tags", "depends_on", "summary"
"""The chunk fields each segment keeps as its annotations, under the same names: its roles in
the reasoning, the earlier chunks it uses (as chunk indices), and a few words on it."""

ANNOTATED = (FUNCTION_TAGS, DEPENDS_ON, SUMMARY)
"""The annotated fields, together."""

NOT_MEASURES = frozenset({"chunk", "chunk_idx", "accuracy", *ANNOTATED})
"""The chunk fields that are not importance measures (every other number is one)."""

_LAYOUT = re.compile(r"problem_\d+|(in)?correct_base_solution")
"""Folder names of the published layout below the model's folder."""


class ThoughtAnchorsError(LlenvsError, ValueError):
    """A problem folder that cannot be imported (the message names the file or chunk)."""

    __module__ = (
        "llenvs.analysis.sidecar"  # tracebacks name the public face, not the private module
    )


@dataclass(frozen=True)
class ThoughtAnchorsTrace:
    """One imported problem folder."""

    folder: Path
    """The folder it came from."""
    trace: Trace
    """The trace: the published prompt, response and chunks."""
    published: PublishedValues
    """Its published step values and measures."""
    published_correct: bool | None
    """The folder's own ``is_correct`` (None when absent)."""

    @property
    def verdict_disagrees(self) -> bool:
        """Whether math-verify's verdict differs from the published ``is_correct``."""
        return (
            self.published_correct is not None
            and self.trace.success is not None
            and self.trace.success != self.published_correct
        )


def thought_anchors_folders(path: str | os.PathLike[str]) -> list[Path]:
    """The problem folders at or under ``path``: each folder holding ``chunks_labeled.json``.

    Example:
        >>> thought_anchors_folders("/nonexistent")
        Traceback (most recent call last):
        ...
        llenvs.analysis.sidecar.ThoughtAnchorsError: /nonexistent does not exist

    """
    root = Path(path)
    if not root.exists():
        raise ThoughtAnchorsError(f"{root} does not exist")
    found = sorted(
        chunks.parent
        for chunks in ([root / CHUNKS] if (root / CHUNKS).is_file() else root.rglob(CHUNKS))
    )
    if not found:
        raise ThoughtAnchorsError(
            f"no Thought Anchors problem folder at or under {root} (a folder holding {CHUNKS} "
            f"and {BASE})"
        )
    return found


def read_thought_anchors(folder: str | os.PathLike[str]) -> ThoughtAnchorsTrace:
    """The trace and published values of one problem folder (see the module).

    Raises ``ThoughtAnchorsError`` naming the folder and the file or ``chunk_idx`` at fault: a
    missing or non-JSON file, a field of the wrong type, chunks out of order, a chunk not in the
    response.
    """
    where = Path(folder)
    base = _object(_json(where / BASE), where / BASE)
    chunks = _json(where / CHUNKS)
    problem = (
        _object(_json(where / PROBLEM), where / PROBLEM) if (where / PROBLEM).is_file() else {}
    )
    prompt, response = _text(base, "prompt", where / BASE), _text(base, "solution", where / BASE)
    if not isinstance(chunks, list) or not all(isinstance(c, dict) for c in chunks):
        raise ThoughtAnchorsError(f"{where / CHUNKS}: expected a list of chunk objects")
    for number, chunk in enumerate(chunks):
        if chunk.get("chunk_idx") != number or not isinstance(chunk.get("chunk"), str):
            raise ThoughtAnchorsError(
                f"{where / CHUNKS}, entry {number}: expected chunk_idx {number} and a 'chunk' "
                f"text, got chunk_idx {chunk.get('chunk_idx')!r}"
            )
    try:
        spans = chunk_spans(response, [chunk["chunk"] for chunk in chunks])
    except ChunkAlignmentError as error:
        raise ThoughtAnchorsError(f"{where}, chunk_idx {error.chunk}: {error}") from None
    model = _model(where)
    expected = problem.get("gt_answer")
    answer = base.get("answer")
    success = (
        answers_match(str(answer), str(expected))
        if answer is not None and expected is not None
        else None
    )
    trace = Trace(
        task=TaskRecord(
            environment="math",
            adapter=STUDY,
            adapter_kwargs={},
            task_index=_problem_number(where),
            prompt=prompt,
            expected_answer=None if expected is None else str(expected),
        ),
        run=RunRecord.made_with(
            RunSpec(
                segmenter=SegmenterSpec(f"imported:{STUDY}"),
                stated_sampling=StatedSampling(
                    SOURCE, temperature=SAMPLING["temperature"], top_p=SAMPLING["top_p"]
                ),
            ),
            model_name=model,
        ),
        messages=(Message("user", prompt), Message("assistant", response)),
        response=response,
        segments=tuple(
            dataclasses.replace(segment, annotations=_annotations(chunk, where))
            for segment, chunk in zip(
                segments_of([response[start:end] for start, end in spans]), chunks, strict=True
            )
        ),
        final_rewards={} if success is None else {"correctness": float(success)},
        success=success,
        metadata={
            "imported_from": STUDY,
            "problem": where.name,
            "base_solution": where.parent.name,
            "answer": answer,
            "is_correct": base.get("is_correct"),
            **{key: problem[key] for key in ("level", "type", "nickname") if key in problem},
        },
        trace_id=_trace_id(model, prompt, response),
    )
    published = PublishedValues(
        STUDY,
        PROVENANCE,
        model,
        tuple(_tally(where, number, chunk) for number, chunk in enumerate(chunks)),
        _measures(chunks),
        dict(SAMPLING),
    )
    correct = base.get("is_correct")
    return ThoughtAnchorsTrace(
        where, trace, published, correct if isinstance(correct, bool) else None
    )


def write_thought_anchors(
    output: str | os.PathLike[str],
    imported: Sequence[ThoughtAnchorsTrace],
    *,
    overwrite: bool = False,
) -> tuple[list[ThoughtAnchorsTrace], int]:
    """Write the traces ``output`` lacks, and their published values to its analysis sidecar.

    Returns ``(written, already there)``. The traces go in one atomic write (appended, or
    replacing the file with ``overwrite``); a trace whose id the output holds is skipped. Then
    every imported trace's published values are appended to ``analysis_path(output)`` unless
    the sidecar holds the same already (so importing again, or over, stores them once; our own
    rollouts there are kept).
    """
    path = Path(output)
    existing = path.exists() and path.stat().st_size > 0
    known = set() if overwrite or not existing else {t.trace_id for t in TraceReader(path)}
    new, seen = [], set(known)
    for item in imported:
        if item.trace.trace_id not in seen:
            seen.add(item.trace.trace_id)
            new.append(item)
    if new:
        write = write_traces if overwrite else append_traces
        write(path, [item.trace for item in new])
    store = analysis_path(path)
    stored = published_by_trace(store)  # read once: the sidecar may hold many rollouts too
    for item in imported:
        known_values = stored.setdefault(item.trace.trace_id, [])
        if item.published not in known_values:
            append_published(store, item.trace.trace_id, item.published)
            known_values.append(item.published)  # the same folder twice stores it once
    return new, len(imported) - len(new)


def read_all(folders: Iterable[Path]) -> list[ThoughtAnchorsTrace]:
    """Every folder read, in order (the first failure raised: nothing is written before)."""
    return [read_thought_anchors(folder) for folder in folders]


def _json(path: Path) -> Any:
    """A JSON file's value; a ``ThoughtAnchorsError`` naming it when missing or not JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ThoughtAnchorsError(
            f"{path}: missing (a problem folder holds {CHUNKS} and {BASE})"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ThoughtAnchorsError(f"{path}: cannot be read: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ThoughtAnchorsError(f"{path}: not JSON: {error}") from None


def _object(value: Any, path: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ThoughtAnchorsError(f"{path}: expected a JSON object, got {type(value).__name__}")
    return value


def _text(data: dict[str, Any], key: str, path: Path) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ThoughtAnchorsError(f"{path}: {key!r} must be a string, got {value!r:.60}")
    return value


def _model(folder: Path) -> str:
    """The model's name: the nearest folder above the published layout's own folders."""
    for parent in folder.resolve().parents:
        if not _LAYOUT.fullmatch(parent.name):
            return parent.name
    return "unknown"


def _problem_number(folder: Path) -> int:
    digits = re.fullmatch(r"problem_(\d+)", folder.name)
    return int(digits.group(1)) if digits else 0


def _trace_id(model: str, prompt: str, response: str) -> str:
    """A stable id: importing the same data again gives the same ids, wherever it lies."""
    text = json.dumps([STUDY, model, prompt, response], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _annotations(chunk: dict[str, Any], folder: Path) -> dict[str, Any]:
    """A chunk's tags, dependencies (as chunk indices) and summary."""
    tags = chunk.get(FUNCTION_TAGS) or []
    depends = chunk.get(DEPENDS_ON) or []
    try:
        dependencies = sorted({int(d) for d in depends})
    except (TypeError, ValueError):
        raise ThoughtAnchorsError(
            f"{folder / CHUNKS}, chunk_idx {chunk['chunk_idx']}: depends_on must list chunk "
            f"indices, got {depends!r:.60}"
        ) from None
    return {
        FUNCTION_TAGS: [str(tag) for tag in tags],
        DEPENDS_ON: dependencies,
        SUMMARY: str(chunk.get(SUMMARY) or ""),
    }


def _tally(folder: Path, number: int, chunk: dict[str, Any]) -> PublishedTally:
    """Chunk ``number``'s accuracy as a tally: from its raw rollouts, else inferred."""
    raw = folder / f"chunk_{number}" / "solutions.json"
    if raw.is_file():
        solutions = _json(raw)
        verdicts = [s.get("is_correct") for s in solutions if isinstance(s, dict)]
        counted = [v for v in verdicts if isinstance(v, bool)]
        return PublishedTally(number, sum(counted), len(counted), inferred=False)
    accuracy = chunk.get("accuracy")
    if isinstance(accuracy, bool) or not isinstance(accuracy, int | float):
        raise ThoughtAnchorsError(
            f"{folder / CHUNKS}, chunk_idx {number}: accuracy must be a number, got {accuracy!r}"
        )
    try:
        successes, trials = inferred_tally(float(accuracy))
    except ValueError as error:
        raise ThoughtAnchorsError(f"{folder / CHUNKS}, chunk_idx {number}: {error}") from None
    return PublishedTally(number, successes, trials, inferred=True)


def _measures(chunks: Sequence[dict[str, Any]]) -> dict[str, tuple[float | None, ...]]:
    """Every numeric chunk field but the accuracy: one column each, None where absent."""
    names = sorted(
        {
            name
            for chunk in chunks
            for name, value in chunk.items()
            if name not in NOT_MEASURES
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        }
    )
    return {
        name: tuple(
            float(chunk[name])
            if isinstance(chunk.get(name), int | float) and not isinstance(chunk.get(name), bool)
            else None
            for chunk in chunks
        )
        for name in names
    }
