r"""``llenvs import``: turn an outside file (eval logs, step files, chat JSONL) into traces.

Example:
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> source, out = os.path.join(folder, "chat.jsonl"), os.path.join(folder, "out.jsonl")
    >>> _ = open(source, "w").write('{"messages": [{"role": "user", "content": "q"}, '
    ...                             '{"role": "assistant", "content": "One. Two."}]}\n')
    >>> parser = argparse.ArgumentParser(prog="llenvs")
    >>> add_parser(parser.add_subparsers())
    >>> args = parser.parse_args(
    ...     ["import", "openai_chat", source, "-o", out, "--prm", "arithmetic"])
    >>> args.func(args)  # doctest: +ELLIPSIS
    imported 1 trace (2 segments) to ...out.jsonl
    0

"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from llenvs.traces import IMPORT_FORMATS, Trace, TraceImport, write_traces

__all__ = ["add_parser", "run"]

SHOWN_SKIPS = 10
"""How many skipped rows are listed one by one before a count."""


def add_parser(subparsers: Any) -> None:
    """Add the ``import`` subcommand to ``subparsers``.

    Example:
        >>> parser = argparse.ArgumentParser(prog="llenvs")
        >>> add_parser(parser.add_subparsers())
        >>> args = parser.parse_args(["import", "prm800k", "in.jsonl", "-o", "o.jsonl"])
        >>> args.format, args.segmenter, args.prm
        ('prm800k', 'steps', None)

    """
    parser = subparsers.add_parser(
        "import",
        help="import reasoning-gym logs, ProcessBench/PRM800K step files or chat JSONL as traces",
        description=(
            "Read an outside file and write its traces (one JSON line each) for the app and "
            "the other commands. Step files keep their own steps; other responses are cut by "
            "--segmenter. Rows that cannot be read are listed and skipped."
        ),
    )
    parser.add_argument("format", choices=sorted(IMPORT_FORMATS), help="the input's format")
    parser.add_argument("input", help="the file to read (JSONL, or one JSON document)")
    parser.add_argument("-o", "--output", required=True, help="the trace file to write (.jsonl)")
    parser.add_argument(
        "--segmenter", default="steps", help="segmenter spec for responses without steps"
    )
    parser.add_argument(
        "--prm", default=None, help="add this PRM's step scores (a name get_prm knows: arithmetic)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r"""Import ``args.input`` into ``args.output``; 0 when at least one trace was written.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
        >>> _ = open(path, "w").write("oops\n")
        >>> run(argparse.Namespace(format="openai_chat", input=path, output=path + ".out",
        ...                        segmenter="steps", prm=None))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: no trace could be read from ...bad.jsonl: 1 row skipped (see above)

    """
    source = TraceImport(args.format, args.input, segmenter=args.segmenter)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    counts = {"traces": 0, "segments": 0}
    with Progress(
        SpinnerColumn(),
        TextColumn("importing {task.fields[name]}: {task.completed} traces"),
        TimeElapsedColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task("import", name=args.input, total=None)
        traces = _counted(_scored(source, args.prm), counts, lambda: progress.advance(task))
        written = write_traces(args.output, traces)
    for skipped in source.skipped[:SHOWN_SKIPS]:
        print(f"skipped {skipped}", file=sys.stderr)
    rest = len(source.skipped) - SHOWN_SKIPS
    if rest > 0:
        print(f"... and {rest} more rows skipped", file=sys.stderr)
    skips = _rows(len(source.skipped))
    if written == 0 and source.skipped:
        raise ValueError(f"no trace could be read from {args.input}: {skips} skipped (see above)")
    note = f", {skips} skipped" if source.skipped else ""
    plural = "" if written == 1 else "s"
    print(
        f"imported {written} trace{plural} ({counts['segments']} segments) to {args.output}{note}"
    )
    return 0


def _scored(traces: TraceImport, prm: str | None) -> Iterator[Trace]:
    if prm is None:
        yield from traces
        return
    from llenvs.rewards import get_prm
    from llenvs.ui.trace_scoring import with_prm_scores

    model = get_prm(prm)
    for trace in traces:
        yield with_prm_scores(trace, model, f"{prm}_prm")


def _counted(traces: Iterator[Trace], counts: dict[str, int], tick: Any) -> Iterator[Trace]:
    for trace in traces:
        counts["traces"] += 1
        counts["segments"] += len(trace.segments)
        tick()
        yield trace


def _rows(count: int) -> str:
    return f"{count} row" if count == 1 else f"{count} rows"
