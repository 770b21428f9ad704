r"""``llenvs agreement FILE --labels LABELLER [--prm SPEC …]``: PRMs and labellers against labels.

The labels are the file's label store (``FILE.labels.jsonl``: each labeller's latest label of
each step). For each labeller: the traces and steps labelled, coverage and the count of each
label; for each pair of labellers: Cohen's kappa on the steps both labelled and first-error
agreement; for each PRM against each labeller: step AUROC, ProcessBench F1 (accuracies on the
traces with and without an error), first-error localisation accuracy, each with a percentile
bootstrap interval over the traces (seeded), a calibration table and the steps where they
disagree. ``--json`` prints one object instead of tables.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
    >>> from llenvs.traces.labels._store import StepLabel, append_labels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 3. ",
    ...           segments=(SegmentRecord(0, 0, 11, "1 + 1 = 3. "),))
    >>> _ = write_traces(path, [t])
    >>> _ = append_labels(path, [StepLabel(t.trace_id, 0, -1, "ada")])
    >>> import contextlib, io, json
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main(["agreement", str(path), "--labels", "ada", "--prm", "arithmetic",
    ...                    "--json"])
    >>> found = json.loads(out.getvalue())["prms"][0]
    >>> status, found["prm"], found["source"], found["traces"], found["accuracy"]["value"]
    (0, 'arithmetic', 'scored now', 1, 1.0)
    >>> main(["agreement", str(path), "--labels", "bo"])  # stderr: ... labellers there are ada
    2

"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from llenvs.cli._prm_scores import add_prm_model_options, prm_scores
from llenvs.rewards.agreement import (
    BINS,
    LEVEL,
    RESAMPLES,
    THRESHOLD,
    Estimate,
    LabelComparison,
    StepDisagreement,
    compare_labels,
    labelling,
)
from llenvs.traces import read_traces
from llenvs.traces.labels import read_labels

__all__ = ["SHOWN_DISAGREEMENTS", "add_parser", "run"]

SHOWN_DISAGREEMENTS = 10
"""How many disagreements the text output lists before a count (``--json`` lists them all)."""


def add_parser(subparsers: Any) -> None:
    """Add the ``agreement`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["agreement", "t.jsonl", "--labels", "ada",
        ...                                   "--prm", "prm"])
        >>> args.labels, args.prm, args.resamples, args.seed, args.threshold, args.json
        (['ada'], ['prm'], 1000, 0, 0.5, False)

    """
    parser = subparsers.add_parser(
        "agreement",
        help="how PRMs and labellers agree with a labeller's step labels",
        description=(
            "Compare step labels (FILE.labels.jsonl, each labeller's latest label of each step) "
            "with one another and with PRM scores. Per labeller: traces and steps labelled, "
            "coverage, label counts. Per pair of labellers: Cohen's kappa on the steps both "
            "labelled (classes -1, 0, 1) and first-error agreement (the first step labelled "
            "-1, or -1 when none, is the same). Per PRM and labeller: step AUROC (positive: a "
            "step labelled -1; predictor 1 - score; ties count one half), ProcessBench F1 "
            "(harmonic mean of the first-error accuracies on the traces with an error and on "
            "those without; predicted first error: the first step scored below --threshold), "
            "localisation accuracy on all traces, each with a percentile bootstrap interval "
            "over the traces; a calibration table; the steps where they disagree."
        ),
    )
    parser.add_argument("traces", type=Path, help="the trace file (its labels file beside it)")
    parser.add_argument(
        "--labels",
        action="append",
        required=True,
        metavar="LABELLER",
        help="a labeller whose labels to compare (give it again for more; each pair is compared)",
    )
    parser.add_argument(
        "--prm",
        action="append",
        default=[],
        metavar="SPEC",
        help="step scores to compare with each labeller: a score name the file's segments "
        "store (prm_scores), else a PRM that scores them now: arithmetic, judge:<backend>, "
        "judge or mc (the model of --backend), vllm/<model> (see --prm-base-url), "
        "transformers/<path>; give it again for more",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help="a step scored below it is predicted wrong",
    )
    parser.add_argument(
        "--resamples", type=int, default=RESAMPLES, help="bootstrap resamples (0: no interval)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument("--bins", type=int, default=BINS, help="score bins of the calibration")
    add_prm_model_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compare the labels and PRMs ``args`` names; print tables (or JSON); 0.

    A labeller with no label on the file's traces is an error (exit 2) naming those there.
    The comparison is the library's (``compare_labels``), as the workbench's Labels page draws
    it.
    """
    traces = list(read_traces(args.traces))
    labels = read_labels(args.traces, {t.trace_id for t in traces})
    for name in dict.fromkeys(args.labels):
        labelling(labels, name, args.traces)  # a labeller without labels fails before scoring
    scored = [prm_scores(spec, traces, args) for spec in dict.fromkeys(args.prm)]
    found = compare_labels(
        traces,
        labels,
        args.labels,
        scored,
        trace_file=args.traces,
        threshold=args.threshold,
        resamples=args.resamples,
        seed=args.seed,
        level=LEVEL,
        bins=args.bins,
    )
    if args.json:
        print(json.dumps({"file": str(args.traces), **found.as_record()}, allow_nan=False))
    else:
        print(_text(args, found))
    return 0


def _text(args: argparse.Namespace, found: LabelComparison) -> str:
    """The comparison as compact tables, intervals in brackets."""
    level = f"{LEVEL:.0%}"
    lines = [
        f"{args.traces}: {found.traces} traces, {found.steps} steps; intervals: {level} "
        f"bootstrap over traces ({args.resamples} resamples, seed {args.seed})",
        "",
        f"{'labeller':<20} {'traces':>7} {'w/ error':>8} {'labelled':>9} {'coverage':>8} "
        f"{'-1':>6} {'0':>6} {'1':>6}",
    ]
    for name, c in found.labellers.items():
        lines.append(
            f"{name:<20} {c.traces:>7} {c.traces_with_error:>8} {c.steps_labelled:>9} "
            f"{_number(c.coverage):>8} {c.counts[-1]:>6} {c.counts[0]:>6} {c.counts[1]:>6}"
        )
    for (first, second), agreement in found.pairs.items():
        lines += [
            "",
            f"{first} vs {second}: {agreement.traces} traces both labelled, {agreement.steps} "
            "steps both labelled",
            f"  Cohen's kappa            {_estimate(agreement.kappa)}",
            f"  first-error agreement    {_estimate(agreement.first_error)}",
            *_disagreements(agreement.disagreements, first, second),
        ]
    for (prm, name), a in found.prms.items():
        lines += [
            "",
            f"{prm} ({found.sources[prm]}) vs {name}: {a.traces} traces ({a.traces_with_error} "
            f"with an error), {a.steps} labelled steps rated ({a.first_errors} labelled -1)",
            f"  step AUROC               {_estimate(a.auroc)}",
            f"  ProcessBench F1          {_estimate(a.f1)}",
            f"  localisation accuracy    {_estimate(a.accuracy)}",
            f"    on traces with error   {_estimate(a.accuracy_error)}",
            f"    on traces without      {_estimate(a.accuracy_correct)}",
            f"  calibration: {'score':<12} {'steps':>6} {'labelled 1':>10} {'share':>6}",
            *(
                f"               [{b.low:.2f}, {b.high:.2f}{']' if b.high >= 1 else ')'} "
                f"{b.steps:>6} {b.correct:>10} {_number(b.share_correct):>6}"
                for b in a.calibration
                if b.steps
            ),
            *_disagreements(a.disagreements, name, prm),
        ]
    return "\n".join(lines)


def _disagreements(found: tuple[StepDisagreement, ...], first: str, second: str) -> list[str]:
    """The first ``SHOWN_DISAGREEMENTS`` disagreements, one a line, then how many more."""
    lines = [f"  disagreements: {len(found)}"]
    for d in found[:SHOWN_DISAGREEMENTS]:
        other = f"{d.other:.3f}" if isinstance(d.other, float) else str(d.other)
        lines.append(
            f"    {d.trace_id} segment {d.segment}: {first} {d.label:+d}, {second} {other}"
        )
    if len(found) > SHOWN_DISAGREEMENTS:
        lines.append(f"    … and {len(found) - SHOWN_DISAGREEMENTS} more (--json lists them all)")
    return lines


def _estimate(estimate: Estimate) -> str:
    """``0.516 [0.487, 0.546]``; ``n/a`` for what could not be measured."""
    if math.isnan(estimate.value):
        return "n/a"
    if math.isnan(estimate.low):
        return _number(estimate.value)
    return f"{estimate.value:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"
