"""The ``llenvs`` entry point: one subcommand per module, each with ``add_parser``.

Each command module defines ``add_parser(subparsers)``, which adds its subparser and sets
``func`` (``run(args) -> int``) as its default; ``args.command_line`` holds the command as typed
(``("llenvs", *argv)``), for a command that says how to rerun itself. Every ``--help`` shows each
option's default. Errors a user can fix (an unknown name, a missing file, a malformed trace)
print one line on stderr and exit with status 2; Ctrl-C prints one line and exits with 130; no
traceback.

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
from typing import Any

from llenvs.core.errors import LlenvsError

__all__ = ["COMMAND_MODULES", "DefaultsHelpFormatter", "build_parser", "main", "os_error_in_words"]

COMMAND_MODULES = (
    "llenvs.cli._evaluate_command",
    "llenvs.cli._replay_command",
    "llenvs.cli._segment_command",
    "llenvs.cli._intervene_command",
    "llenvs.cli._experiment_command",
    "llenvs.cli._rerun_command",
    "llenvs.cli._diff_command",
    "llenvs.cli._search_command",
    "llenvs.cli._analyze_command",
    "llenvs.cli._import_command",
    "llenvs.cli._export_command",
    "llenvs.cli._labels_command",
    "llenvs.cli._agreement_command",
    "llenvs.cli._score_command",
)
"""The modules that add a subcommand, in the order ``--help`` lists them."""


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Help that ends an option's line with ``(default: …)`` when it has a default to show.

    Options without a default (None, False, an empty list) and help that already names its
    default are left as they are.

    Example:
        >>> parser = argparse.ArgumentParser(formatter_class=DefaultsHelpFormatter)
        >>> _ = parser.add_argument("--batch-size", type=int, default=8, help="rows per batch")
        >>> "rows per batch (default: 8)" in parser.format_help()
        True

    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.default not in (None, False, [], argparse.SUPPRESS)
        if not action.option_strings or not shown or "(default" in text:
            return action.help
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose help shows defaults (every subcommand's parser is one)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand.

    Example:
        >>> sorted(build_parser()._subparsers._group_actions[0].choices)[:2]
        ['agreement', 'analyze']

    """
    parser = _Parser(
        prog="llenvs", description="Segment, score and intervene on LLM reasoning, step by step."
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Example:
        >>> main(["segment", "--spec", "nope", "--text", "x"])
        2

    """
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(words)
    args.command_line = ("llenvs", *words)
    warnings.formatwarning = _one_line_warning
    try:
        status: int = args.func(args)
    except OSError as error:
        print(f"llenvs {args.command}: error: {os_error_in_words(error)}", file=sys.stderr)
        return 2
    except (LlenvsError, ValueError) as error:
        print(f"llenvs {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"llenvs {args.command}: interrupted", file=sys.stderr)
        return 130
    return status


def os_error_in_words(error: OSError) -> str:
    """What went wrong with a file, in words, naming it (not ``[Errno 2] ...``).

    Example:
        >>> os_error_in_words(FileNotFoundError(2, "No such file or directory", "/no.jsonl"))
        '/no.jsonl does not exist'
        >>> os_error_in_words(IsADirectoryError(21, "Is a directory", "/tmp"))
        '/tmp is a folder, not a file'
        >>> os_error_in_words(OSError("disk on fire"))
        'disk on fire'

    """
    name = error.filename
    if name is None:
        return str(error)
    match error:
        case FileNotFoundError():
            return f"{name} does not exist"
        case IsADirectoryError():
            return f"{name} is a folder, not a file"
        case NotADirectoryError():
            return f"{name}: a part of this path is a file, not a folder"
        case PermissionError():
            return f"{name}: permission denied (this user may not read or write it)"
    reason = error.strerror or str(error)
    return f"{name}: {reason[0].lower()}{reason[1:]}" if reason else str(name)


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
