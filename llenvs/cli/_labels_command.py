"""``llenvs labels migrate FILE``: move labels older imports wrote into a trace file to its store.

Example:
    >>> args = build_parser().parse_args(["labels", "migrate", "old.jsonl"])
    >>> args.action, args.traces
    ('migrate', 'old.jsonl')

"""

from __future__ import annotations

import argparse
import os
from typing import Any

from llenvs.traces.importers import migrate_labels
from llenvs.traces.labels import labels_path

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``labels`` subcommand (its action: ``migrate``).

    Example:
        >>> build_parser().parse_args(["labels", "migrate", "t.jsonl"]).func is run
        True

    """
    parser = subparsers.add_parser(
        "labels",
        help="the label store beside a trace file (migrate: move labels out of old traces)",
        description=(
            "Human step labels live in FILE.labels.jsonl beside a trace file, never in it. "
            "'migrate' moves the labels that imports of ProcessBench / PRM800K files made "
            "before the store (each step's human_label reward) to the store, under the "
            "labeller processbench / prm800k, then rewrites FILE without them (atomically; "
            "other lines kept byte for byte). Running it again adds nothing."
        ),
    )
    parser.add_argument("action", choices=("migrate",), help="what to do")
    parser.add_argument("traces", metavar="FILE", help="the trace file")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Migrate the labels of ``args.traces``; 0.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> open(path, "w").close()
        >>> run(argparse.Namespace(action="migrate", traces=path))  # doctest: +ELLIPSIS
        no human labels in .../runs.jsonl: nothing to move
        0

    """
    if not os.path.isfile(args.traces):
        raise FileNotFoundError(f"{args.traces}: no such trace file")
    done = migrate_labels(args.traces)
    if not done.traces:
        print(f"no human labels in {args.traces}: nothing to move")
        return 0
    plural = "" if done.traces == 1 else "s"
    print(
        f"moved the labels of {done.traces} trace{plural} to {labels_path(args.traces)} "
        f"({done.labels} new) and rewrote {args.traces} without them"
    )
    return 0
