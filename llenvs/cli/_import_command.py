r"""``llenvs import``: turn an outside file (eval logs, Inspect logs, step files, chat) into traces.

Example:
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> source, out = os.path.join(folder, "chat.jsonl"), os.path.join(folder, "out.jsonl")
    >>> _ = open(source, "w").write('{"messages": [{"role": "user", "content": "q"}, '
    ...                             '{"role": "assistant", "content": "One. Two."}]}\n')
    >>> args = build_parser().parse_args(
    ...     ["import", "openai_chat", source, "-o", out, "--prm", "arithmetic"])
    >>> args.func(args)  # doctest: +ELLIPSIS
    imported 1 trace (2 segments) to ...out.jsonl
    0

"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from llenvs.analysis.sidecar import STUDY
from llenvs.cli._options import add_step_options
from llenvs.cli._prm_scores import scored_traces
from llenvs.cli._thought_anchors_import import import_thought_anchors
from llenvs.core import JsonLineError, parse_json_line
from llenvs.traces import IMPORT_FORMATS, Trace, TraceImport, write_traces
from llenvs.traces.files import append_traces
from llenvs.traces.importers import INSPECT_FORMAT, InspectImport
from llenvs.traces.labels import append_new_labels, labels_path

__all__ = ["add_parser", "run"]

SHOWN_SKIPS = 10
"""How many skipped rows are listed one by one before a count."""


def add_parser(subparsers: Any) -> None:
    """Add the ``import`` subcommand to ``subparsers``.

    Example:
        >>> args = build_parser().parse_args(["import", "prm800k", "in.jsonl", "-o", "o.jsonl"])
        >>> args.format, args.segmenter, args.prm, args.overwrite
        ('prm800k', 'steps', None, False)

    """
    parser = subparsers.add_parser(
        "import",
        help="import reasoning-gym logs, ProcessBench/PRM800K step files, chat JSONL, Inspect AI "
        "logs or Thought Anchors data as traces",
        description=(
            "Read an outside file and write its traces (one JSON line each) for the app and "
            "the other commands. Step files and Thought Anchors folders keep their own steps "
            "(thought-anchors also stores the published step values in the output's "
            "analysis sidecar); other responses are cut by "
            "--segmenter. An Inspect AI log (inspect: .eval, or the older .json) gives one trace "
            "per sample and epoch, its reasoning and text in order, its scores as final rewards."
            " The human step labels of ProcessBench and PRM800K files (and of "
            "llenvs exports) never go into the traces: they go to the output's label store, "
            "OUT.labels.jsonl, under the labeller processbench / prm800k (or the one an export "
            "names), once: importing again adds none twice. Rows that cannot be read are "
            "listed and skipped; a file whose rows "
            "are in another format is refused. An existing output file is kept: the new "
            "traces are appended to it, unless --overwrite; traces already in it (the same "
            "trace ids: importing a file again gives the same ids) are skipped and counted. "
            "When no trace can be read, it is an error and nothing is written."
        ),
    )
    parser.add_argument(
        "format",
        choices=sorted([*IMPORT_FORMATS, STUDY, INSPECT_FORMAT]),
        help="the input's format",
    )
    parser.add_argument(
        "input",
        help="the file to read (JSONL, or one JSON document); for thought-anchors, a problem "
        "folder or any folder above them; for hf, the folder llenvs export --format hf wrote",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        help="the trace file to write (.jsonl); if it exists, the traces are appended to it",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing output file instead of appending to it (atomically)",
    )
    add_step_options(
        parser,
        segmenter_help="segmenter spec for responses without steps",
        prm_help="add this PRM's step scores as the 'prm' reward, as evaluate does (a name "
        "get_prm knows: arithmetic, vllm/<model>, ...)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r"""Import ``args.input`` into ``args.output``; 0 when at least one trace was written.

    The traces are appended to an existing output (``args.overwrite``: it is replaced), all at
    once and atomically: when no trace can be read, or anything fails, the output is left
    exactly as it was. A trace whose id the output already holds (or this import gave
    already) is skipped and counted; when every trace is, nothing is written. Then the
    file's human step labels go to the output's label store (only after the traces are
    written, so a failed import leaves no labels behind), those it holds already left out.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
        >>> _ = open(path, "w").write("oops\n")
        >>> run(argparse.Namespace(format="openai_chat", input=path, output=path + ".out",
        ...                        segmenter="steps", prm=None, prm_base_url=None,
        ...                        overwrite=False))
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: ...bad.jsonl is not an openai_chat file: none of its 1 row reads as one (the first, line 1: not JSON: ...); nothing was written

    """  # noqa: E501
    if args.format == STUDY:
        return import_thought_anchors(args)
    source: TraceImport | InspectImport
    if args.format == INSPECT_FORMAT:
        source = InspectImport(args.input, segmenter=args.segmenter)
    else:
        source = TraceImport(args.format, args.input, segmenter=args.segmenter)
    existing = os.path.exists(args.output) and os.path.getsize(args.output) > 0
    write = write_traces if args.overwrite else append_traces
    counts = {"traces": 0, "segments": 0, "known": 0}
    seen = set() if args.overwrite or not existing else _trace_ids(args.output)
    try:
        with Progress(
            SpinnerColumn(),
            TextColumn("importing {task.fields[name]}: {task.completed} traces"),
            TimeElapsedColumn(),
            transient=True,
            disable=not sys.stderr.isatty(),
        ) as progress:
            task = progress.add_task("import", name=args.input, total=None)
            new = _new(source, seen, counts)
            scored = scored_traces(new, args.prm, args.prm_base_url)
            traces = _counted(scored, counts, lambda: progress.advance(task))
            written = write(args.output, _at_least_one(traces, counts, source))
    except _NothingNew:
        known = counts["known"]
        print(
            f"imported nothing: {_traces(known)} of {args.input} "
            f"{'is' if known == 1 else 'are all'} in {args.output} already (the same trace "
            f"ids); it was left as it was{_stored_labels(args.output, source)}"
        )
        return 0
    finally:
        if counts["traces"] or counts["known"]:  # else the error above says it in one line
            _report_skips(source)
    note = f", {_rows(len(source.skipped), source)} skipped" if source.skipped else ""
    if counts["known"]:
        note += f", {_traces(counts['known'])} already there skipped (the same trace ids)"
    plural = "" if written == 1 else "s"
    how = " to" if not existing else ", replacing" if args.overwrite else ", appended to"
    if isinstance(source, InspectImport):
        note += "".join(f"; {clause}" for clause in source.summary.notes())
    print(
        f"imported {written} trace{plural} ({counts['segments']} segments){how} {args.output}"
        f"{note}{_stored_labels(args.output, source)}"
    )
    return 0


def _stored_labels(output: str, source: TraceImport | InspectImport) -> str:
    """Store the import's step labels beside ``output``; what to say of them ("" for none)."""
    if not source.labels:
        return ""
    stored = append_new_labels(output, source.labels)
    labellers = ", ".join(dict.fromkeys(label.labeller for label in source.labels))
    known = len(source.labels) - stored
    there = f" ({known} there already)" if known else ""
    return f"; {stored} step labels by {labellers} to {labels_path(output)}{there}"


def _at_least_one(
    traces: Iterator[Trace], counts: dict[str, int], source: TraceImport | InspectImport
) -> Iterator[Trace]:
    """``traces``; when there were none, an error naming the input (so nothing is written)."""
    yield from traces
    if counts["traces"] > 0:
        return
    if counts["known"] > 0:
        raise _NothingNew
    if source.skipped:
        first, rows = source.skipped[0], _rows(len(source.skipped), source)
        raise ValueError(
            f"{source.path} is not {_a(source.format)} file: none of its {rows} "
            f"reads as one (the first, {first.unit} {first.line}: {first.reason}); nothing was "
            "written"
        )
    raise ValueError(f"no trace in {source.path}: it holds no rows; nothing was written")


def _a(format: str) -> str:
    """``a processbench``, ``an openai_chat``: a format's name with its article."""
    return f"{'an' if format[0] in 'aeiou' else 'a'} {format}"


class _NothingNew(Exception):
    """Every trace read is in the output already: nothing is written."""


def _trace_ids(path: str) -> set[str]:
    """The trace ids of a trace file's readable lines (the others hold no id to match)."""
    ids = set()
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                data = parse_json_line(raw, first=number == 1)
            except JsonLineError:
                continue
            found = data.get("trace_id") if isinstance(data, dict) else None
            if isinstance(found, str):
                ids.add(found)
    return ids


def _new(traces: Iterable[Trace], seen: set[str], counts: dict[str, int]) -> Iterator[Trace]:
    """``traces`` whose ids are not in ``seen`` (which grows); the others are counted."""
    for trace in traces:
        if trace.trace_id in seen:
            counts["known"] += 1
            continue
        seen.add(trace.trace_id)
        yield trace


def _report_skips(source: TraceImport | InspectImport) -> None:
    """List the skipped rows on stderr (the first ``SHOWN_SKIPS``, then a count)."""
    for skipped in source.skipped[:SHOWN_SKIPS]:
        print(f"skipped {skipped}", file=sys.stderr)
    rest = len(source.skipped) - SHOWN_SKIPS
    if rest > 0:
        print(f"... and {_rows(rest, source).replace(' ', ' more ', 1)} skipped", file=sys.stderr)


def _counted(traces: Iterator[Trace], counts: dict[str, int], tick: Any) -> Iterator[Trace]:
    for trace in traces:
        counts["traces"] += 1
        counts["segments"] += len(trace.segments)
        tick()
        yield trace


def _rows(count: int, source: object = None) -> str:
    """``1 row``, ``3 rows`` (an Inspect log's: samples)."""
    unit = "sample" if isinstance(source, InspectImport) else "row"
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def _traces(count: int) -> str:
    return f"{count} trace" if count == 1 else f"{count} traces"
