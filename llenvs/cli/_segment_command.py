r"""``llenvs segment``: print the segments of a text under any segmenter spec.

Example:
    >>> main(["segment", "--spec", "line", "--exact", "--text", "a\n  b"])
    [0] 'a\n'
    [1] '  b'
    0

"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from llenvs.core.segmenters import segmenter_from_spec

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``segment`` subcommand.

    Example:
        >>> build_parser().parse_args(["segment", "--text", "x"]).spec
        'steps'

    """
    parser = subparsers.add_parser(
        "segment",
        help="print the segments of a text under a segmenter spec",
        description="Cut a text (--text, --file in UTF-8, or stdin) and print one segment per "
        "line.",
    )
    parser.add_argument(
        "--spec", default="steps", help="segmenter spec: steps, sentence, line:\\n\\n, …"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--text", help="the text to cut")
    source.add_argument("--file", type=Path, help="a file holding the text")
    parser.add_argument(
        "--exact",
        action="store_true",
        help="print the lossless pieces (with their whitespace, as Python strings)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the segments.

    Example:
        >>> run(argparse.Namespace(spec="sentence", text="Hi. Bye.", file=None, exact=False))
        [0] Hi.
        [1] Bye.
        0

    """
    segmenter = segmenter_from_spec(args.spec)
    if args.text is not None:
        text = args.text
    elif args.file is not None:
        text = _read_text(args.file)
    else:
        text = sys.stdin.read()
    pieces = segmenter.pieces(text) if args.exact else segmenter.segment(text)
    for index, piece in enumerate(pieces):
        print(f"[{index}] {piece!r}" if args.exact else f"[{index}] {piece}")
    return 0


def _read_text(path: Path) -> str:
    """The UTF-8 text of ``path``; bytes that are not UTF-8 are an error naming file and line."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ValueError(
            f"{path}, line {line}: not UTF-8 text (byte 0x{data[error.start]:02x} at column "
            f"{column})"
        ) from None
