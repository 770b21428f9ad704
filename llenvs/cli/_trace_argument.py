"""The trace file and ``--trace`` of the commands that work on one stored trace.

``intervene``, ``rerun`` and ``analyze`` name a trace the same way: the file, then its trace_id
(in the file or its branches sidecar) or its line number, as ``find_trace`` reads them.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_trace_arguments(parser)
    >>> args = parser.parse_args(["t.jsonl", "--trace", "3"])
    >>> str(args.traces), args.trace
    ('t.jsonl', '3')

"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_trace_arguments"]


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``traces`` file and ``--trace`` (default: the file's first line).

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_trace_arguments(parser)
        >>> parser.parse_args(["t.jsonl"]).trace
        '1'

    """
    parser.add_argument("traces", type=Path, help="the trace file")
    parser.add_argument(
        "--trace",
        default="1",
        help="which trace: its trace_id (in the file or its branches), or its line number in "
        "the file (from 1, as Browse shows it and as messages about the file name it)",
    )
