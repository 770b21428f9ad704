"""The ``llenvs`` entry point: one subcommand per module, each with ``add_parser``.

Each command module defines ``add_parser(subparsers)``, which adds its subparser and sets
``func`` (``run(args) -> int``) as its default. Errors a user can fix (an unknown name, a missing
file, a malformed trace) print one line on stderr and exit with status 2; no traceback.

Example:
    >>> main(["segment", "--spec", "sentence", "--text", "One. Two."])
    [0] One.
    [1] Two.
    0

"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence

from llenvs.core.errors import LlenvsError

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

COMMAND_MODULES = (
    "llenvs.cli.evaluate_command",
    "llenvs.cli.replay_command",
    "llenvs.cli.segment_command",
    "llenvs.cli.intervene_command",
    "llenvs.cli.import_command",
    "llenvs.cli.export_command",
)
"""The modules that add a subcommand, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand.

    Example:
        >>> sorted(build_parser()._subparsers._group_actions[0].choices)[:2]
        ['evaluate', 'export']

    """
    parser = argparse.ArgumentParser(
        prog="llenvs", description="Segment, score and intervene on LLM reasoning, step by step."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Example:
        >>> main(["segment", "--spec", "nope", "--text", "x"])
        2

    """
    args = build_parser().parse_args(argv)
    warnings.formatwarning = _one_line_warning
    try:
        status: int = args.func(args)
    except (LlenvsError, OSError, ValueError) as error:
        print(f"llenvs {args.command}: error: {error}", file=sys.stderr)
        return 2
    return status


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """A warning as the CLI shows it: one line, no source."""
    return f"llenvs: warning: {message}\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
