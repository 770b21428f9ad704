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
    exported 1 trace to .../steps.jsonl
    0

"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from llenvs.traces import TraceReader, write_step_file

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
            "One row per trace: the problem, its steps and their labels (a step's human label "
            "where it has one, else its PRM score: above 0.5 right, 0.5 neutral, below wrong; "
            "null after the first wrong step), written atomically."
        ),
    )
    parser.add_argument("format", choices=EXPORT_FORMATS, help="the output's format")
    parser.add_argument("traces", type=Path, help="the trace file to read")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the file to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export the traces; unreadable lines are skipped with a warning naming them."""
    count = write_step_file(args.output, TraceReader(args.traces))
    print(f"exported {count} trace{'' if count == 1 else 's'} to {args.output}")
    return 0
