r"""``llenvs score FILE --prm SPEC [--name NAME]``: store a PRM's step scores in a trace file.

Every trace of FILE (or those of the environments ``--environment`` names) is scored now by
the PRM SPEC names, as ``llenvs agreement --prm SPEC`` scores it, and each score is stored in
its segment under NAME (default: SPEC), in ``rewards`` and ``prm_scores``; a step the PRM does
not rate keeps no score under NAME. The file is rewritten atomically, its traces in order
with their ids, so its sidecars (branches, labels, analyses) still name them. A file with an
unreadable line is refused (rewriting it would drop the line), and so is a file another
writer changed while the PRM scored. ``llenvs agreement FILE --prm NAME`` then reads the stored
scores, and the workbench's Labels page offers them.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace, read_traces, write_traces
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 3. ",
    ...           segments=(SegmentRecord(0, 0, 11, "1 + 1 = 3. "),))
    >>> _ = write_traces(path, [t])
    >>> main(["score", str(path), "--prm", "arithmetic"])  # doctest: +ELLIPSIS
    scored 1 trace (1 step, all rated) with arithmetic, stored as 'arithmetic' in ...t.jsonl
    0
    >>> [back] = read_traces(path)
    >>> back.trace_id == t.trace_id, back.segments[0].prm_scores
    (True, {'arithmetic': 0.0})

"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from llenvs.cli._prm_scores import add_prm_model_options, scored_now
from llenvs.evaluation import prm_kind
from llenvs.rewards.prm import with_step_scores
from llenvs.traces import TraceReader, write_traces
from llenvs.traces.files import file_lock

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``score`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["score", "t.jsonl", "--prm", "judge:transformers"])
        >>> args.prm, args.name, args.environment
        ('judge:transformers', None, [])

    """
    parser = subparsers.add_parser(
        "score",
        help="store a PRM's step scores in a trace file, under a name",
        description=(
            "Score the steps of a trace file's traces now with a PRM and store the scores in "
            "the file, under a name (each segment's rewards and prm_scores), beside any scores "
            "it holds; a step the PRM does not rate gets none. The file is rewritten "
            "atomically, trace ids kept, so its labels and branches still apply. "
            "'llenvs agreement FILE --prm NAME' then reads them."
        ),
    )
    parser.add_argument("traces", type=Path, help="the trace file to score and rewrite")
    parser.add_argument(
        "--prm",
        required=True,
        metavar="SPEC",
        help="the PRM: arithmetic, judge:<backend>, judge or mc (the model of --backend), "
        "vllm/<model> (see --prm-base-url), transformers/<path>",
    )
    parser.add_argument(
        "--name", help="the name the scores are stored under (default: the PRM's SPEC)"
    )
    parser.add_argument(
        "--environment",
        action="append",
        default=[],
        metavar="ENV",
        help="score only the traces of this task environment (give it again for more); the "
        "others keep what they hold",
    )
    add_prm_model_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Score ``args.traces`` with ``args.prm`` and rewrite it with the scores; 0.

    Example:
        >>> run(argparse.Namespace(traces=Path("/no/such.jsonl"), prm="arithmetic"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: no trace file /no/such.jsonl

    """
    path: Path = args.traces
    if not path.is_file():
        raise FileNotFoundError(f"no trace file {path}")
    prm_kind(args.prm)  # an unknown PRM fails before the file is read
    name = args.name or args.prm
    before = _stamp(path)
    reader = TraceReader(path)
    traces = list(reader)
    if reader.skipped:
        raise ValueError(
            f"{path} has {len(reader.skipped)} unreadable line(s) (the first: "
            f"{reader.skipped[0]}); rewriting it would drop them, so it was left as it was"
        )
    wanted = set(args.environment)
    chosen = [t for t in traces if not wanted or t.task.environment in wanted]
    if not chosen:
        there = sorted({t.task.environment for t in traces})
        raise ValueError(
            f"no trace of {path} to score: its environments are {', '.join(there) or 'none'}"
        )
    scored = scored_now(args.prm, chosen, args).scores
    rewritten = [
        with_step_scores(t, name, scored[t.trace_id]) if t.trace_id in scored else t for t in traces
    ]
    with file_lock(path):
        if _stamp(path) != before:
            raise RuntimeError(
                f"{path} changed while the PRM scored it (another writer); it was left as it "
                "was: run the command again"
            )
        write_traces(path, rewritten)
    steps = sum(len(scores) for scores in scored.values())
    unrated = sum(score is None for scores in scored.values() for score in scores)
    rated = "all rated" if not unrated else f"{unrated} unrated"
    print(
        f"scored {_count(len(chosen), 'trace')} ({_count(steps, 'step')}, {rated}) with "
        f"{args.prm}, stored as {name!r} in {path}"
    )
    return 0


def _stamp(path: Path) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
