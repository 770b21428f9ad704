"""``llenvs export``: write traces in an outside format (a PRM800K-style step file).

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.cli.main import main
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 3. ",
    ...           segments=(SegmentRecord(0, 0, 11, "1 + 1 = 3. ", prm_scores={"p": 0.0}),))
    >>> _ = write_traces(folder / "t.jsonl", [t])
    >>> main(["export", "prm800k", str(folder / "t.jsonl"), "-o", str(folder / "steps.jsonl")])
    ... # doctest: +ELLIPSIS
    exported 1 trace to .../steps.jsonl (llenvs import prm800k gives it back)
    0

"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from llenvs.traces import Trace, TraceReader, write_step_file
from llenvs.traces.importers.exported_trace import dropped_fields

__all__ = ["EXPORT_FORMATS", "add_parser", "run"]

EXPORT_FORMATS = ("prm800k",)
"""The formats ``llenvs export`` writes."""


def add_parser(subparsers: Any) -> None:
    """Add the ``export`` subcommand.

    Example:
        >>> parser = argparse.ArgumentParser(prog="llenvs")
        >>> add_parser(parser.add_subparsers())
        >>> parser.parse_args(["export", "prm800k", "t.jsonl", "-o", "s.jsonl"]).format
        'prm800k'

    """
    parser = subparsers.add_parser(
        "export",
        help="write traces as a PRM800K-style step file",
        description=(
            "One row per trace: the problem, its steps, their human labels (null where a step "
            "has none, and after the first wrong step) and apart their model scores "
            "(prm_scores, never made labels), plus an 'llenvs' object with the rest a step "
            "file can hold (task and run records, the text between steps, final rewards, "
            "verdict, metadata), so that 'llenvs import prm800k' gives the traces back; what "
            "it cannot hold (token ids, where each step came from, branch parents) is named. "
            "Written atomically. An existing output file is refused (left as it is) unless "
            "--overwrite, which replaces it."
        ),
    )
    parser.add_argument("format", choices=EXPORT_FORMATS, help="the output's format")
    parser.add_argument("traces", type=Path, help="the trace file to read")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help="the file to write; an existing one is refused unless --overwrite",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing output file (atomically)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r"""Export the traces; unreadable lines are skipped with a warning naming them.

    An existing output is refused unless ``args.overwrite``; when no trace can be read it is an
    error and nothing is written. What the step file cannot hold is named, with how many
    traces lost it.

    Example:
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "steps.jsonl"
        >>> _ = out.write_text("mine\n")
        >>> run(argparse.Namespace(traces=out, output=out, overwrite=False))
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../steps.jsonl exists: give --overwrite to replace it

    """
    if args.output.exists() and not args.overwrite:
        raise ValueError(f"{args.output} exists: give --overwrite to replace it")
    dropped: Counter[str] = Counter()
    traces = _tallied(_at_least_one(TraceReader(args.traces), args.traces), dropped)
    count = write_step_file(args.output, traces)
    them = "it" if count == 1 else "them"
    print(
        f"exported {count} trace{'' if count == 1 else 's'} to {args.output} "
        f"(llenvs import prm800k gives {them} back)"
    )
    if dropped:
        lost = "; ".join(f"{what} ({_traces(n)})" for what, n in dropped.items())
        print(f"not in a step file, so not given back: {lost}")
    return 0


def _tallied(traces: Iterable[Trace], dropped: Counter[str]) -> Iterator[Trace]:
    """``traces``, counting in ``dropped`` what of each a step file cannot hold."""
    for trace in traces:
        dropped.update(dropped_fields(trace))
        yield trace


def _traces(count: int) -> str:
    return f"{count} trace" if count == 1 else f"{count} traces"


def _at_least_one(traces: Iterable[Trace], source: Path) -> Iterator[Trace]:
    """``traces``; when there were none, an error naming ``source`` (so nothing is written)."""
    count = 0
    for trace in traces:
        count += 1
        yield trace
    if count == 0:
        raise ValueError(f"no trace could be read from {source}: nothing was written")
