r"""``llenvs experiment``: one intervention at chosen points of every trace of a file.

``--at`` says where (``0.25,0.5,0.75``: relative positions; ``3``: segment 3; ``every``;
``prm<0.5``: the first segment scored under 0.5; ``top:3``: the 3 segments of largest stored
importance; ``regex:PATTERN``), and one of ``--force``, ``--feedback`` (texts may name
``{segment}``, ``{answer}``, ``{expected}``, ``{perturbed}``), ``--complete``, ``--resample N``
or ``--recipe`` (a ready-made name or a TOML/JSON file) says what. The branches go to the
file's branches sidecar, the recipe and each branch's outcome to ``-o``'s experiment file;
the same command run again resumes. ``--json`` prints, last, one summary object.

Example:
    >>> from llenvs.cli._example_traces import example_traces, write_responses
    >>> traces = example_traces()  # one wrong answer, 8 (the task's is 100)
    >>> responses = write_responses(traces.parent, "<answer>100</answer>")
    >>> main(["experiment", str(traces), "--at", "0", "--feedback", "It is {expected}.",
    ...       "--backend", "scripted", "--responses", str(responses), "-o",
    ...       str(traces.parent / "hint"), "--no-progress", "--json"])  # doctest: +ELLIPSIS
    experiment 'feedback' on ...traces.jsonl: 1 branch planned, 0 recorded before
    ...
    {"parents": 1, "branches": 1, "success_before": 0.0, "success_after": 1.0, "flips": {"fail_to_success": 1, "success_to_fail": 0}, "answer_changed": 1}
    0

"""  # noqa: E501

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from llenvs.cli._intervention_options import text_intervention
from llenvs.cli._model_options import add_backend_options
from llenvs.cli._options import bounded, given_options, positive_int
from llenvs.cli._server_options import add_server_options, recorded_backend
from llenvs.core import (
    COMPLETE,
    MAX_TOKENS,
    ON_POLICY_SAMPLES,
    SAMPLES,
    SEED,
    Intervention,
    Resample,
    RunControl,
    RunEvent,
    SamplingParams,
)
from llenvs.experiments import (
    BranchRecorded,
    EveryBoundary,
    ExperimentError,
    ExperimentSummary,
    MapBin,
    MatchingRegex,
    ParentFilter,
    ParentOutcome,
    PRMBelow,
    Recipe,
    RelativePositions,
    SegmentAt,
    TopImportance,
    Where,
    experiment_path,
    load_recipe,
    plan_file,
    read_experiment,
    ready_recipe,
    run_experiment,
    summarize,
)

__all__ = ["add_parser", "parse_where", "run"]

_PARENTS_OPTIONS = {"limit": "limit", "environment": "environment"}
"""The ``ParentFilter`` field each option sets over the recipe's."""

_HOW_OPTIONS = {
    "samples": "samples",
    "sampling_seed": "seed",
    "on_policy": "on_policy",
    "max_tokens": "max_tokens",
    "backend": "model",
}
"""The ``How`` field each option sets over the recipe's."""


def add_parser(subparsers: Any) -> None:
    """Add the ``experiment`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["experiment", "t.jsonl", "--at", "0.5", "--complete",
        ...                                   "-o", "x"])
        >>> args.at, args.complete, args.parents
        ('0.5', True, None)

    """
    parser = subparsers.add_parser(
        "experiment",
        help="one intervention at chosen points of every trace of a file, with statistics",
        description=(
            "Branch every (filtered) trace of FILE at the --at points with one intervention, "
            "in one continuously scheduled run; record the recipe and each branch's outcome "
            "in -o's experiment file (the same command resumes), and print the paired "
            "statistics and the steerability map."
        ),
    )
    parser.add_argument("traces", type=Path, help="the trace file of the parents")
    parser.add_argument(
        "--at",
        metavar="POSITIONS",
        help="where: relative positions (0.25,0.5,0.75), a segment index (3), every, "
        "prm<T, top:K (stored importance) or regex:PATTERN (default: the recipe's)",
    )
    what = parser.add_argument_group("intervention").add_mutually_exclusive_group(required=True)
    what.add_argument("--force", metavar="TEXT", help="force the segment to TEXT (a template)")
    what.add_argument("--feedback", metavar="TEXT", help="inject TEXT after the segment")
    what.add_argument("--complete", action="store_true", help="finish in one call from there")
    what.add_argument("--resample", metavar="N", type=bounded(SAMPLES), help="N resamples")
    what.add_argument(
        "--recipe", metavar="NAME|FILE", help="a ready-made recipe name or a .toml/.json file"
    )
    parser.add_argument("--samples", type=bounded(SAMPLES), help="branches per point (1)")
    parser.add_argument(
        "--on-policy",
        type=bounded(ON_POLICY_SAMPLES),
        metavar="K",
        help="with --force: score each point's text against K continuations of the model's own "
        "first; each branch records its percentile, and the summary adds the rates by it (0)",
    )
    parser.add_argument(
        "--parents", choices=[o.value for o in ParentOutcome], help="which parents (all)"
    )
    parser.add_argument("--limit", type=positive_int, help="the first N parents")
    parser.add_argument("--environment", help="only parents of this environment")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=Path,
        help="the experiment: OUT.experiment.jsonl (or OUT itself when so named); an existing "
        "one of the same recipe is resumed (its branches kept, new ones appended), one of "
        "another recipe refused unless --overwrite",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="start the experiment file again (branches already made stay in the sidecar)",
    )
    parser.add_argument(
        "--in-flight", type=positive_int, default=8, help="branches running at once"
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary, last")
    parser.add_argument("--no-progress", action="store_true", help="print no progress")
    add_backend_options(parser, None)
    add_server_options(parser)
    group = parser.add_argument_group("sampling")
    group.add_argument("--max-tokens", type=bounded(MAX_TOKENS), help="token budget per branch")
    group.add_argument("--temperature", type=float, help="with --resample: its temperature")
    group.add_argument("--sampling-seed", type=bounded(SEED), help="seed the samples derive from")
    parser.set_defaults(func=run)


def parse_where(text: str) -> Where:
    """The ``--at`` rule.

    Example:
        >>> parse_where("0.25,0.5"), parse_where("3"), parse_where("prm<0.4")
        (RelativePositions(fractions=(0.25, 0.5)), SegmentAt(index=3), PRMBelow(threshold=0.4))
        >>> parse_where("top:2"), parse_where("regex:[0-9]+"), parse_where("every")
        (TopImportance(k=2), MatchingRegex(pattern='[0-9]+'), EveryBoundary())
        >>> parse_where("1,2")
        Traceback (most recent call last):
        ...
        ValueError: --at: '1,2': give one segment index, or fractions like 0.25,0.5

    """
    spec = text.strip()
    try:
        if spec == "every":
            return EveryBoundary()
        if spec.startswith("regex:"):
            return MatchingRegex(spec[len("regex:") :])
        if spec.startswith("prm<"):
            return PRMBelow(float(spec[len("prm<") :]))
        if spec.startswith("top:"):
            return TopImportance(int(spec[len("top:") :]))
        parts = [part.strip() for part in spec.split(",")]
        if len(parts) == 1 and parts[0].isdigit():
            return SegmentAt(int(parts[0]))
        if all(part.isdigit() for part in parts):
            raise ValueError(f"{text!r}: give one segment index, or fractions like 0.25,0.5")
        return RelativePositions(tuple(float(part) for part in parts))
    except ValueError as error:
        raise ValueError(f"--at: {error}") from None


def run(args: argparse.Namespace) -> int:
    """Plan (refusing a recipe that selects nothing), run or resume, then print statistics."""
    recipe = _recipe(args)
    planned = plan_file(recipe, args.traces)  # before any model loads
    first = planned[0].request.parent
    if args.backend is None and recipe.how.model is not None:
        args.backend = recipe.how.model
    path = experiment_path(args.output)
    header, recorded = read_experiment(path) if path.exists() and not args.overwrite else (None, [])
    count = len(planned)
    print(
        f"experiment {recipe.name!r} on {args.traces}: {count} branch{'es' * (count != 1)} "
        f"planned, {len(recorded)} recorded before"
    )
    if planned.skipped:
        print(planned.note())
    if header is not None and header.recipe != recipe:  # refused before a model loads
        raise ExperimentError(
            f"{path} holds another experiment (recipe {header.recipe.name!r}): choose another "
            "-o, or start it again with --overwrite"
        )
    left = {branch.key for branch in planned} - {outcome.key for outcome in recorded}
    if left or header is None:  # else: every branch is recorded, no model to load
        backend = recorded_backend(args, first.run.spec.model, progress=not args.no_progress)
        observer = None if args.no_progress else _progress
        made = run_experiment(
            recipe,
            args.traces,
            path,
            backend,
            in_flight=args.in_flight,
            control=RunControl(observer),
            overwrite=args.overwrite,
        )
        recorded = list(made.outcomes)
    summary = summarize(recorded, seed=recipe.how.seed)
    _show(summary, path)
    if args.json:
        print(json.dumps(summary.headline()))
    return 0


def _recipe(args: argparse.Namespace) -> Recipe:
    """The recipe the options make: a given one with the options over it, or a new one."""
    if args.recipe is not None:
        base = (
            load_recipe(args.recipe)
            if args.recipe.endswith((".toml", ".json"))
            else ready_recipe(args.recipe)
        )
    else:
        if args.at is None:
            raise ValueError("--at is needed unless --recipe gives where")
        what = _intervention(args)
        base = Recipe(what.kind.value, ParentFilter(), parse_where(args.at), what)
    changes: dict[str, Any] = {}
    if args.at is not None:
        changes["where"] = parse_where(args.at)
    parents = dataclasses.replace(base.parents, **given_options(args, _PARENTS_OPTIONS))
    if args.parents is not None:
        parents = dataclasses.replace(parents, outcome=ParentOutcome(args.parents))
    how = dataclasses.replace(base.how, **given_options(args, _HOW_OPTIONS))
    return dataclasses.replace(base, parents=parents, how=how, **changes)


def _intervention(args: argparse.Namespace) -> Intervention:
    """The ``--force``/``--feedback``/``--complete``/``--resample`` intervention."""
    text = text_intervention(args)
    if text is not None:
        return text
    if args.complete:
        return COMPLETE
    params = None if args.temperature is None else SamplingParams(temperature=args.temperature)
    return Resample(args.resample, params)


def _progress(event: RunEvent) -> None:
    """One line on stderr per recorded branch."""
    if isinstance(event, BranchRecorded):
        left = "" if event.remaining_s is None else f", ~{event.remaining_s:.0f} s left"
        print(
            f"  {event.done}/{event.planned} branches, {event.flips} flips{left}",
            file=sys.stderr,
        )


def _show(summary: ExperimentSummary, path: Path) -> None:
    """The summary, the steerability map and where the file is."""
    record = summary.to_record()
    print(
        f"{summary.parents} parents, {summary.branches} branches; success "
        f"{_pct(summary.success_before)} -> {_pct(summary.success_after)}"
    )
    if summary.paired is not None:
        low, high = record["difference_interval"]
        print(
            f"paired difference {record['difference']:+.3f} [95% {low:+.3f}, {high:+.3f}], "
            f"McNemar p = {record['mcnemar_p']:.4g}"
        )
    change = summary.answer_change_interval
    print(
        f"flips: {summary.fail_to_success} fail->success, {summary.success_to_fail} "
        f"success->fail; answer changed in {summary.answer_changed}/{summary.branches} "
        f"[95% {change.low:.3f}, {change.high:.3f}]"
    )
    print("steerability map (position: flip rate, answer-change rate, same answer):")
    _print_bins(summary.map, _fraction, same_answer=True)
    for title, bins, edge in (
        ("by PRM score of the intervened segment:", summary.by_prm_score, _fraction),
        ("by on-policy percentile of the forced text:", summary.by_on_policy, _percentile),
    ):
        if bins:
            print(title)
            _print_bins(bins, edge)
    print(f"recorded in {path}")


def _print_bins(
    bins: Sequence[MapBin], edge: Callable[[float], str], *, same_answer: bool = False
) -> None:
    """One line per bin that holds a branch: its edges (as ``edge`` writes them) and rates.

    Example:
        >>> bins = [MapBin(0.0, 0.5, 2, 1, 1, 0, 1), MapBin(0.5, 1.0, 0, 0, 0, 0, 0)]
        >>> _print_bins(bins, _percentile, same_answer=True)
          [0, 50) n=2: flips 50.0%, answer changed 50.0%, same answer 50.0%

    """
    for bin_ in bins:
        if bin_.branches:
            same = f", same answer {_pct(bin_.same_answer)}" if same_answer else ""
            print(
                f"  [{edge(bin_.low)}, {edge(bin_.high)}) n={bin_.branches}: flips "
                f"{_pct(bin_.flip_rate)}, answer changed {_pct(bin_.answer_change_rate)}{same}"
            )


def _fraction(edge: float) -> str:
    return f"{edge:.2f}"


def _percentile(edge: float) -> str:
    return f"{100 * edge:.0f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
