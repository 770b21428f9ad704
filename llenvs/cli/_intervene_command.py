r"""``llenvs intervene``: branch a stored trace at segment k and append the new trace.

The first k segments are replayed as they are; then the next segment is forced, feedback is
injected, the rest is completed in one call, generation simply resumes (resample), or the next
segment is resampled until the model writes something close to a text (substitute). The new
trace goes to the trace file's branches sidecar (``<name>.branches.jsonl``), naming its parent.
Without ``--prm`` the branch is scored by the PRM that scored the trace (``run.spec.prm``), if one
did; ``--prm none`` scores it with none. ``--prm judge`` makes the branch's own model the judge,
except on a trace a judge scored: naming the trace's own PRM rescores with it as recorded (the
judge that scored the parent, so parent and branch compare); name another with
``--prm judge:<backend>``.

Example:
    >>> from llenvs.cli._example_traces import example_traces, write_responses
    >>> traces = example_traces()  # 'Count. So 8. <answer>8</answer>' (the task's answer: 100)
    >>> responses = write_responses(traces.parent, "Count. So 100. <answer>100</answer>")
    >>> main(["intervene", str(traces), "--at", "1", "--force", "So 100. ",
    ...       "--backend", "scripted", "--responses", str(responses), "--no-progress"])
    ... # doctest: +ELLIPSIS
    [0] 'Count. ' replayed
    [1] 'So 100. ' forced
    [2] '<answer>100</answer>' generated terminal correctness=1 format=1
    success: True; branch ... appended to .../traces.branches.jsonl
    0

"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from rich.console import Console

from llenvs.cli._intervention_options import text_intervention
from llenvs.cli._model_options import add_backend_options, add_sampling_options
from llenvs.cli._model_options import sampling_params as sampling_from_args
from llenvs.cli._options import PRM_BASE_URL_HELP, bounded, prm_options
from llenvs.cli._server_options import add_server_options, recorded_backend
from llenvs.cli._substitute_options import (
    add_substitute_options,
    substitute_intervention,
    substitute_lines,
    substitute_similarity,
)
from llenvs.cli._trace_argument import add_trace_arguments
from llenvs.core import (
    COMPLETE,
    ON_POLICY_SAMPLES,
    SAMPLES,
    Complete,
    Force,
    Intervention,
    ModelBackend,
    Resample,
    SamplingParams,
    Substitute,
)
from llenvs.evaluation import BranchRequest, intervene, trace_sampling_params
from llenvs.evaluation.branching import OnPolicy
from llenvs.traces import Trace, branches_path, find_trace

__all__ = ["NO_PRM", "add_parser", "run"]

NO_PRM = "none"
"""The ``--prm`` value that scores a branch with no PRM (not even the trace's own)."""


def add_parser(subparsers: Any) -> None:
    """Add the ``intervene`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["intervene", "t.jsonl", "--at", "2", "--complete"])
        >>> args.trace, args.at, args.complete, args.backend
        ('1', 2, True, None)

    """
    parser = subparsers.add_parser(
        "intervene",
        help="branch a trace at segment k: force, feedback, complete, resample or substitute",
        description=(
            "Replay the first --at segments of a trace, intervene, generate the rest, and "
            "append the new trace (which names its parent) to the branches sidecar."
        ),
    )
    add_trace_arguments(parser)
    parser.add_argument(
        "--at", type=int, required=True, help="segments to keep (0: before the first)"
    )
    action = parser.add_argument_group("intervention").add_mutually_exclusive_group(required=True)
    action.add_argument("--force", metavar="TEXT", help="force the next segment to TEXT")
    action.add_argument("--feedback", metavar="TEXT", help="inject TEXT as a user turn")
    action.add_argument("--complete", action="store_true", help="finish the rest in one call")
    action.add_argument("--resample", action="store_true", help="generate again from there")
    action.add_argument(
        "--substitute",
        metavar="TEXT",
        help="an on-policy substitute: resample the next segment (up to --tries times) and "
        "keep the model's own segment closest in meaning to TEXT, then generate the rest",
    )
    parser.add_argument(
        "--samples",
        type=bounded(SAMPLES),
        default=1,
        help="with --resample: how many samples (1-16), generated together, each with its own "
        "seed derived from --sampling-seed",
    )
    parser.add_argument(
        "--prm",
        help="a PRM scoring every step of the branch: arithmetic, transformers/<path>, "
        "vllm/<model>, judge (the branch's model judges), judge:<backend>, or none (default: "
        "the PRM that scored the trace, as it records it, server URL included; none if none "
        "did)",
    )
    parser.add_argument(
        "--prm-base-url",
        metavar="URL",
        help=PRM_BASE_URL_HELP + "; without --prm, the trace's own vllm/<model> at this server",
    )
    add_backend_options(parser, None)
    add_server_options(parser)
    add_sampling_options(parser)
    parser.add_argument(
        "--on-policy",
        type=bounded(ON_POLICY_SAMPLES),
        default=16,
        metavar="K",
        help="with --force: first score the forced text against K continuations of the model's "
        "own from the same place (its percentile of mean log-probability per token), print it "
        "and record it on the branch as metadata.on_policy (with --substitute: the chosen text "
        "and the target, in metadata.substitute; 0: skip; default 16; needs a model that gives "
        "prompt log-probabilities, else it is skipped with a note)",
    )
    add_substitute_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="draw no spinner")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Branch the trace; print the new trace's segments; append it to the sidecar."""
    parent = find_trace(args.traces, args.trace)
    params = sampling_from_args(args, trace_sampling_params(parent))  # and the record's sampling
    intervention = _intervention(args, params)
    _check_at(args.at, parent, intervention)  # in the option's own terms: segments kept
    request = BranchRequest(parent, args.at, intervention)  # checked before a model loads
    prm = _prm(args.prm, parent)
    options = prm_options(prm, args.prm_base_url)  # vllm/<model> (given or recorded): its server
    backend = recorded_backend(args, parent.run.spec.model)  # the trace's own, as recorded
    status = Console(stderr=True).status(f"generating with {backend.name}…")
    with contextlib.nullcontext() if args.no_progress else status:
        children = intervene(
            args.traces,
            request,
            backend,
            prm=prm,  # judge: the branch's own model (backend) judges
            prm_options=options,
            sampling_params=None if isinstance(intervention, Resample) else params,
            on_policy_samples=_on_policy_samples(args, intervention, backend),
            similarity=substitute_similarity(args, intervention),
        )
    sidecar = branches_path(args.traces)
    for number, child in enumerate(children):
        if len(children) > 1:
            sampling = child.run.spec.sampling
            print(f"sample {number} (seed {None if sampling is None else sampling.seed}):")
        for segment in child.segments:
            flags = " ".join(sorted(flag.value for flag in segment.flags))
            scores = " ".join(f"{k}={v:g}" for k, v in segment.rewards.items())
            terminal = " terminal" if segment.terminal else ""
            print(f"[{segment.index}] {segment.text!r} {flags}{terminal} {scores}".rstrip())
        if "on_policy" in child.metadata and number == 0:
            print(_on_policy_line(child.metadata["on_policy"]))
        if "substitute" in child.metadata:
            print(substitute_lines(child.metadata["substitute"]))
        error = f"; error: {child.error}" if child.error else ""
        print(f"success: {child.success}{error}; branch {child.trace_id} appended to {sidecar}")
    return 0


def _on_policy_samples(
    args: argparse.Namespace, intervention: Intervention, backend: ModelBackend
) -> int:
    """How many samples the forced text is scored against (0: none; said why on stderr)."""
    if not isinstance(intervention, Force | Substitute) or args.on_policy <= 0:
        return 0
    if backend.capabilities.score is None:
        print(
            f"on-policy score skipped: {backend.name} gives no prompt log-probabilities",
            file=sys.stderr,
        )
        return 0
    return int(args.on_policy)


def _on_policy_line(record: dict[str, Any]) -> str:
    """The recorded on-policy score, as ``OnPolicy.summary`` says it."""
    return OnPolicy.from_record(record).summary()


def _prm(given: str | None, parent: Trace) -> str | None:
    """The PRM to score the branch: the one given (``none``: no PRM), else the parent's own."""
    if given is not None:
        return None if given == NO_PRM else given
    recorded = parent.run.spec.prm
    if recorded is None:
        return None
    print(f"scoring the branch with the trace's own PRM: {recorded.name}", file=sys.stderr)
    return recorded.name


def _check_at(at: int, parent: Trace, intervention: Intervention) -> None:
    """Refuse an ``--at`` the trace cannot be branched at, saying what ``--at`` counts.

    ``--at`` is how many segments are kept, 0 up to all of them; a ``--complete`` or
    ``--resample`` cannot keep all of a trace that ended (nothing is left to generate).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", terminal=True),))
        >>> _check_at(1, t, Force("B."))
        >>> _check_at(999, t, Resample(1))
        Traceback (most recent call last):
        ...
        ValueError: --at 999: --at is how many of the trace's segments to keep before the intervention, and it has 1, so give --at 0..0 (not 1: its last segment is terminal, so keeping every segment leaves nothing to resample; --feedback can go after it)

    """  # noqa: E501
    count = len(parent.segments)
    ended = count > 0 and parent.segments[-1].terminal
    generates = isinstance(intervention, Complete | Resample)
    last = count - 1 if ended and generates else count
    if 0 <= at <= last:
        return
    why = (
        f" (not {count}: its last segment is terminal, so keeping every segment leaves nothing "
        f"to {intervention.kind.value}; --feedback can go after it)"
        if last < count
        else ""
    )
    raise ValueError(
        f"--at {at}: --at is how many of the trace's segments to keep before the intervention, "
        f"and it has {count}, so give --at 0..{last}{why}"
    )


def _intervention(args: argparse.Namespace, params: SamplingParams) -> Intervention:
    """The intervention the options ask for, made once (and so checked) from them.

    Example:
        >>> ns = argparse.Namespace(force=None, feedback=None, complete=False, samples=2)
        >>> _intervention(ns, SamplingParams(seed=3))
        Resample(n=2, params=SamplingParams(max_tokens=256, temperature=0.0, top_p=1.0, top_k=None, seed=3, stop=(), logprobs=False))
        >>> _intervention(argparse.Namespace(force="", feedback=None, complete=False, samples=1),
        ...               SamplingParams())
        Traceback (most recent call last):
        ...
        ValueError: --force: the forced segment needs a text (an empty one would end the episode)
        >>> _intervention(argparse.Namespace(force=None, feedback=None, complete=True, samples=3),
        ...               SamplingParams())
        Traceback (most recent call last):
        ...
        ValueError: --samples 3 is for --resample only (a complete makes one branch)

    """  # noqa: E501
    samples = args.samples
    made = text_intervention(args) or substitute_intervention(args, params)
    if made is None:
        if not args.complete:
            return Resample(samples, params)
        made = COMPLETE
    if samples != 1:
        raise ValueError(
            f"--samples {samples} is for --resample only (a {made.kind.value} makes one branch)"
        )
    return made
