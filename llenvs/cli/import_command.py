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
import os
import sys
from collections.abc import Iterator
from typing import Any

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from llenvs.cli.options import PRM_BASE_URL_HELP, prm_options
from llenvs.traces import IMPORT_FORMATS, Trace, TraceImport, write_traces
from llenvs.traces.trace_writer import append_traces

__all__ = ["add_parser", "run"]

SHOWN_SKIPS = 10
"""How many skipped rows are listed one by one before a count."""


def add_parser(subparsers: Any) -> None:
    """Add the ``import`` subcommand to ``subparsers``.

    Example:
        >>> parser = argparse.ArgumentParser(prog="llenvs")
        >>> add_parser(parser.add_subparsers())
        >>> args = parser.parse_args(["import", "prm800k", "in.jsonl", "-o", "o.jsonl"])
        >>> args.format, args.segmenter, args.prm, args.overwrite
        ('prm800k', 'steps', None, False)

    """
    parser = subparsers.add_parser(
        "import",
        help="import reasoning-gym logs, ProcessBench/PRM800K step files or chat JSONL as traces",
        description=(
            "Read an outside file and write its traces (one JSON line each) for the app and "
            "the other commands. Step files keep their own steps; other responses are cut by "
            "--segmenter. Rows that cannot be read are listed and skipped. An existing "
            "output file is kept: the new traces are appended to it, unless --overwrite. "
            "When no trace can be read, it is an error and nothing is written."
        ),
    )
    parser.add_argument("format", choices=sorted(IMPORT_FORMATS), help="the input's format")
    parser.add_argument("input", help="the file to read (JSONL, or one JSON document)")
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
    parser.add_argument(
        "--segmenter", default="steps", help="segmenter spec for responses without steps"
    )
    parser.add_argument(
        "--prm",
        default=None,
        help="add this PRM's step scores as the 'prm' reward, as evaluate does (a name get_prm "
        "knows: arithmetic, vllm/<model>, ...)",
    )
    parser.add_argument("--prm-base-url", metavar="URL", help=PRM_BASE_URL_HELP)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r"""Import ``args.input`` into ``args.output``; 0 when at least one trace was written.

    The traces are appended to an existing output (``args.overwrite``: it is replaced), all at
    once and atomically: when no trace can be read, or anything fails, the output is left
    exactly as it was.

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
        ValueError: no trace could be read from ...bad.jsonl: 1 row skipped (see above)

    """
    source = TraceImport(args.format, args.input, segmenter=args.segmenter)
    existing = os.path.exists(args.output) and os.path.getsize(args.output) > 0
    write = write_traces if args.overwrite else append_traces
    counts = {"traces": 0, "segments": 0}
    try:
        with Progress(
            SpinnerColumn(),
            TextColumn("importing {task.fields[name]}: {task.completed} traces"),
            TimeElapsedColumn(),
            transient=True,
            disable=not sys.stderr.isatty(),
        ) as progress:
            task = progress.add_task("import", name=args.input, total=None)
            scored = _scored(source, args.prm, args.prm_base_url)
            traces = _counted(scored, counts, lambda: progress.advance(task))
            written = write(args.output, _at_least_one(traces, counts, source))
    finally:
        _report_skips(source)
    note = f", {_rows(len(source.skipped))} skipped" if source.skipped else ""
    plural = "" if written == 1 else "s"
    how = " to" if not existing else ", replacing" if args.overwrite else ", appended to"
    print(
        f"imported {written} trace{plural} ({counts['segments']} segments){how} {args.output}{note}"
    )
    return 0


def _at_least_one(
    traces: Iterator[Trace], counts: dict[str, int], source: TraceImport
) -> Iterator[Trace]:
    """``traces``; when there were none, an error naming the input (so nothing is written)."""
    yield from traces
    if counts["traces"] > 0:
        return
    if source.skipped:
        skips = _rows(len(source.skipped))
        raise ValueError(f"no trace could be read from {source.path}: {skips} skipped (see above)")
    raise ValueError(f"no trace in {source.path}: it holds no rows; nothing was written")


def _report_skips(source: TraceImport) -> None:
    """List the skipped rows on stderr (the first ``SHOWN_SKIPS``, then a count)."""
    for skipped in source.skipped[:SHOWN_SKIPS]:
        print(f"skipped {skipped}", file=sys.stderr)
    rest = len(source.skipped) - SHOWN_SKIPS
    if rest > 0:
        print(f"... and {rest} more rows skipped", file=sys.stderr)


def _scored(traces: TraceImport, prm: str | None, url: str | None) -> Iterator[Trace]:
    options = prm_options(prm, url)  # before the first trace is read: a wrong one fails first
    if prm is None:
        yield from traces
        return
    from llenvs.rewards import PRM_REWARD_NAME, get_prm
    from llenvs.ui.trace_scoring import with_prm_scores

    model = get_prm(prm, **options)
    for trace in traces:
        yield with_prm_scores(trace, model, PRM_REWARD_NAME)  # the name evaluate gives it


def _counted(traces: Iterator[Trace], counts: dict[str, int], tick: Any) -> Iterator[Trace]:
    for trace in traces:
        counts["traces"] += 1
        counts["segments"] += len(trace.segments)
        tick()
        yield trace


def _rows(count: int) -> str:
    return f"{count} row" if count == 1 else f"{count} rows"
