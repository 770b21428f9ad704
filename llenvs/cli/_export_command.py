"""``llenvs export``: write traces, with one labeller's step labels, in an outside format.

``llenvs export FILE --labels LABELLER --format prm800k|processbench|hf|inspect -o OUT`` writes
the traces of FILE with the labels LABELLER gave them in FILE's label store
(``FILE.labels.jsonl``): a PRM800K-style step file, ProcessBench rows, a Hugging Face dataset
folder, or an Inspect AI log (``llenvs.cli``). Traces the
labeller labelled no step of are skipped and counted, never written as all-correct. Without
``--labels`` (PRM800K only) every trace is written with its steps and model scores and no
labels. The old spelling ``llenvs export prm800k FILE -o OUT`` still works: it is ``llenvs
export FILE --format prm800k -o OUT``.

Example:
    >>> from llenvs.cli._example_traces import example_traces
    >>> traces = example_traces()
    >>> main(["export", "prm800k", str(traces), "-o", str(traces.parent / "steps.jsonl")])
    ... # doctest: +ELLIPSIS
    exported 1 trace to .../steps.jsonl (llenvs import prm800k gives it back)
    not in a step file, so not given back: token ids and logprobs (1 trace); ...
    0

"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from llenvs.cli._inspect_export_command import export_inspect
from llenvs.traces.importers import INSPECT_FORMAT, ExportFormat, LabelExport, export_labels

__all__ = ["EXPORT_FORMATS", "add_parser", "run"]

EXPORT_FORMATS = (*(kind.value for kind in ExportFormat), INSPECT_FORMAT)
"""The formats ``llenvs export`` writes."""


def add_parser(subparsers: Any) -> None:
    """Add the ``export`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["export", "t.jsonl", "--labels", "ada",
        ...                                   "--format", "hf", "-o", "out"])
        >>> args.first, args.second, args.labels, args.format
        ('t.jsonl', None, 'ada', 'hf')

    """
    parser = subparsers.add_parser(
        "export",
        usage=f"llenvs export FILE [--labels LABELLER] [--format {{{','.join(EXPORT_FORMATS)}}}] "
        "-o OUT [--overwrite]\n       llenvs export prm800k FILE -o OUT [--overwrite]  "
        "(the old form)",
        help="write traces and one labeller's step labels as PRM800K, ProcessBench, a Hugging "
        "Face dataset or an Inspect AI log",
        description=(
            "Write the traces of FILE with the step labels LABELLER gave them (the latest of each"
            " step, from FILE's label store FILE.labels.jsonl; labels are never in the trace "
            "file). prm800k: one row per trace with every step's label (-1, 0, 1 or null) and "
            "apart its model scores (prm_scores, never made labels), plus an 'llenvs' object with"
            " the rest a step file can hold, so that 'llenvs import prm800k' gives the traces "
            "back; what it cannot hold (token ids, where each step came from, branch parents) is "
            "named. processbench: ProcessBench rows, 'label' the first wrong step or -1, only for"
            " traces whose labels settle it (every step before the first -1 labelled; with no -1,"
            " every step). hf: a Hugging Face datasets dataset saved to the folder OUT "
            "(save_to_disk), steps and labels as columns. inspect: an Inspect AI log (.eval, "
            "written with Inspect's writer: inspect view opens it), one sample per trace with its "
            "steps, PRM scores, stored step values and, with --labels, the labels and the first "
            "wrong step they settle. Each row keeps its trace id, so 'llenvs"
            " import FORMAT OUT' gives the same trace ids and the same labels under the same "
            "labeller (processbench holds the first error only: it gives +1 before it, -1 on it, "
            "nothing after). Traces the labeller labelled no step of are skipped and counted, "
            "never written as all-correct. Without --labels (prm800k and inspect) every trace is "
            "written without labels. Written atomically. An existing output is refused (left as "
            "it is) unless --overwrite, which replaces it. The old form 'llenvs export prm800k "
            "FILE' is 'llenvs export FILE --format prm800k'."
        ),
    )
    parser.add_argument("first", metavar="FILE", help="the trace file to read")
    parser.add_argument("second", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument(
        "--labels",
        metavar="LABELLER",
        default=None,
        help="whose step labels to export (a labeller in FILE.labels.jsonl: a person, or "
        "processbench / prm800k for imported labels); required for processbench and hf",
    )
    parser.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        default=None,
        help="the output's format (default: prm800k)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help="the file (hf: the folder; inspect: a .eval log) to write; an existing one is "
        "refused unless --overwrite",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing output (atomically)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    r"""Export the traces; unreadable lines are skipped with a warning naming them.

    An existing output is refused unless ``args.overwrite``; when no trace can be written it is
    an error and nothing is written. The message counts the traces skipped (no label by the
    labeller; for processbench, labels that do not settle the first error) and names what the
    step file cannot hold, with how many traces lost it.

    Example:
        >>> import tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "steps.jsonl"
        >>> _ = out.write_text("mine\n")
        >>> run(argparse.Namespace(first=str(out), second=None, labels=None, format=None,
        ...                        output=out, overwrite=False))
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../steps.jsonl exists: give --overwrite to replace it
        >>> run(argparse.Namespace(first="hf", second="t.jsonl", labels=None, format=None,
        ...                        output=out, overwrite=False))
        Traceback (most recent call last):
        ...
        ValueError: the old form is 'llenvs export prm800k FILE'; for other formats give 'llenvs export FILE --format hf'

    """  # noqa: E501
    if args.format == INSPECT_FORMAT and args.second is None:
        return export_inspect(
            Path(args.first), Path(args.output), args.labels, overwrite=args.overwrite
        )
    source, format = _source_and_format(args)
    done = export_labels(source, args.output, format, args.labels, overwrite=args.overwrite)
    count = done.written
    them = "it" if count == 1 else "them"
    whose = f" with the labels of {args.labels}" if args.labels is not None else ""
    print(
        f"exported {_traces(count)}{whose} to {args.output} "
        f"(llenvs import {format.value} gives {them} back)"
    )
    skipped = _skipped(done, args.labels)
    if skipped:
        print(f"skipped {skipped}")
    if done.dropped:
        lost = "; ".join(f"{what} ({_traces(n)})" for what, n in done.dropped.items())
        print(f"not in a step file, so not given back: {lost}")
    return 0


def _source_and_format(args: argparse.Namespace) -> tuple[Path, ExportFormat]:
    """The trace file and the format, from either spelling of the command."""
    if args.second is None:
        return Path(args.first), ExportFormat(args.format or ExportFormat.PRM800K.value)
    if args.first != ExportFormat.PRM800K.value:
        raise ValueError(
            "the old form is 'llenvs export prm800k FILE'; for other formats give "
            f"'llenvs export FILE --format {args.first}'"
        )
    if args.format not in (None, args.first):
        raise ValueError(
            f"'llenvs export prm800k FILE' writes prm800k, not --format {args.format}: give "
            f"'llenvs export FILE --format {args.format}'"
        )
    return Path(args.second), ExportFormat.PRM800K


def _skipped(done: LabelExport, labeller: str | None) -> str:
    """What an export left out, in words ("" for nothing)."""
    parts = []
    if done.unlabelled:
        parts.append(f"{_traces(done.unlabelled)} with no step labelled by {labeller}")
    if done.unsettled:
        parts.append(
            f"{_traces(done.unsettled)} whose labels do not settle the first error (a step "
            "before the first -1, or with no -1 some step, is unlabelled)"
        )
    if done.outside:
        parts.append(f"{done.outside} labels of segments their trace does not have")
    return "; ".join(parts)


def _traces(count: int) -> str:
    return f"{count} trace" if count == 1 else f"{count} traces"
