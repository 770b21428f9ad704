r"""``llenvs search PATH... QUERY``: every step of the traces under some paths, by text or meaning.

A PATH is a trace file or a folder (its trace files and its subfolders'). The query is found in
each step's text in any case (``--regex``: a Python regular expression; ``--meaning``: the
steps nearest it in meaning, by all-MiniLM-L6-v2, the nearest first, after embedding the steps
not embedded yet). ``--where`` filters on the steps' numbers (``Where``). The step index and the
meaning index are kept in ``.llenvs-search/`` beside the files and rebuilt only for files that
changed. Text output: one hit per line, ``FILE:N step K`` (N the trace's line, as ``--trace``
counts) and the snippet with the match marked, then the step's numbers; ``--json``: one JSON
object per hit per line (``file``, ``trace``, ``step``, ``text``, ``snippet``, the numbers).
``--queue FILE`` also writes the hits as a label queue.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import write_traces
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_traces(folder / "t.jsonl", [leg_counting_trace("Cows have 4 legs. So 8."),
    ...                                      leg_counting_trace("Birds have 2 legs. So 4.")])
    >>> main(["search", str(folder), r"\d legs", "--regex"])  # doctest: +ELLIPSIS
    /...t.jsonl:1 step 0  Cows have «4 legs».·
        environment leg_counting · model scripted · success false
    /...t.jsonl:2 step 0  Birds have «2 legs».·
        environment leg_counting · model scripted · success false
    2 steps found
    0

"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from llenvs.workbench.search import (
    FACT_FIELDS,
    MeaningProgress,
    QueueEntry,
    SearchMode,
    StepHit,
    build_meaning_index,
    search_steps,
    write_label_queue,
)

__all__ = ["add_parser", "hit_lines", "run"]

LIMIT = 50
"""Hits shown when ``--limit`` is not given."""


def add_parser(subparsers: Any) -> None:
    """Add the ``search`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["search", "a.jsonl", "out", "legs", "--json"])
        >>> args.paths, args.query, args.json, args.limit
        (['a.jsonl', 'out'], 'legs', True, 50)

    """
    parser = subparsers.add_parser(
        "search",
        help="every step of the traces under some paths, by text, regex or meaning",
        description="Search every step of the trace files under PATH (files or folders) for "
        "QUERY: its text in any case, a regular expression (--regex) or the nearest in meaning "
        "(--meaning), filtered by the steps' numbers (--where). The index is kept in "
        ".llenvs-search/ beside the files and rebuilt only for files that changed.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a trace file or a folder")
    parser.add_argument("query", metavar="QUERY", help="the text, pattern or meaning to find")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--regex", action="store_true", help="QUERY is a Python regular expression")
    how.add_argument(
        "--meaning",
        action="store_true",
        help="the steps nearest QUERY in meaning (all-MiniLM-L6-v2; steps not embedded yet are "
        "embedded first, which takes a while the first time)",
    )
    parser.add_argument(
        "--where",
        metavar="EXPR",
        default="",
        help="keep the steps whose numbers pass EXPR, e.g. 'prm < 0.5 and label == \"wrong\"', "
        f"'moved', 'model ~ \"smol\"'; the fields: {', '.join(FACT_FIELDS)}",
    )
    parser.add_argument(
        "--limit", type=int, default=LIMIT, metavar="N", help="show at most N hits (0: all)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per hit per line")
    parser.add_argument(
        "--queue", metavar="FILE", help="also write the hits to FILE as a label queue"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Search and print the hits as they come."""
    if args.limit < 0:
        raise ValueError(f"--limit must be >= 0, got {args.limit}")
    mode = SearchMode.REGEX if args.regex else SearchMode.TEXT
    if args.meaning:
        mode = SearchMode.MEANING
        build_meaning_index(args.paths, _Progress())
    hits = search_steps(args.paths, args.query, mode, args.where, limit=args.limit or None)
    found: list[StepHit] = []
    for hit in hits:
        found.append(hit)
        if args.json:
            print(json.dumps(hit.record(), ensure_ascii=False, allow_nan=False), flush=True)
        else:
            print("\n".join(hit_lines(hit)), flush=True)
    if args.queue:
        write_label_queue(args.queue, (QueueEntry(h.file, h.trace, h.step) for h in found))
    if not args.json:
        more = "" if args.limit == 0 or len(found) < args.limit else " (the first; --limit 0: all)"
        print(f"{len(found)} step{'s' * (len(found) != 1)} found{more}")
        if args.queue:
            print(f"label queue: {args.queue}")
    return 0


def hit_lines(hit: StepHit) -> list[str]:
    """A hit as the text output shows it: where and the snippet, then its numbers."""
    score = "" if hit.score is None else f"  ({hit.score:.2f})"
    shown = hit.snippet[:-1] + "·" if hit.snippet.endswith(" ") else hit.snippet
    numbers = []
    for name, value in hit.record().items():
        if name in FACT_FIELDS and value not in (None, ""):
            numbers.append(f"{name} {_shown(value)}")
    return [f"{hit.file}:{hit.trace} step {hit.step}{score}  {shown}", "    " + " · ".join(numbers)]


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


class _Progress:
    """The meaning index's build on stderr, a line every few thousand steps."""

    def __init__(self) -> None:
        self.shown = -1

    def __call__(self, progress: MeaningProgress) -> None:
        step = progress.steps_done // 5000
        if step != self.shown or progress.steps_done == progress.steps:
            self.shown = step
            print(
                f"embedding steps: {progress.steps_done:,} of {progress.steps:,} "
                f"({progress.files_done} of {progress.files} files)",
                file=sys.stderr,
                flush=True,
            )
