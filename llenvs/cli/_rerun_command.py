r"""``llenvs rerun``: make a stored trace again from its record and say whether it is the same.

The model, sampling parameters and seed, segmenter and answer opening all come from the trace's
run record (a branch: from its record and its parent), never from flags: this is the check that
a trace can be reproduced. It prints ``identical`` or where the new response parts from the
recorded one, and exits 0 when identical, 1 when not. Nothing is written. A scripted trace needs
its ``--responses`` again; an openai trace's server can be pointed elsewhere with the server
flags (the recorded URL otherwise).

Example:
    >>> from llenvs.cli._example_traces import example_traces, responses_file
    >>> traces = example_traces()  # made by the scripted backend, playing responses_file
    >>> responses = responses_file(traces.parent)
    >>> main(["rerun", str(traces), "--responses", str(responses), "--no-progress"])
    ... # doctest: +ELLIPSIS
    trace 1 (...): made again with scripted, greedy, 256 tokens
    identical: 2 segments, the same text
    0

"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from rich.console import Console

from llenvs.cli._server_options import add_server_options, server_options
from llenvs.cli._trace_argument import add_trace_arguments
from llenvs.core import SamplingParams
from llenvs.core.run_spec import ModelSpec, Provider
from llenvs.evaluation.branching import recorded_model, rerun, trace_sampling_params
from llenvs.traces import Trace, find_trace

__all__ = ["add_parser", "describe_sampling", "run"]

DIFFERENT = 1
"""The exit status when the trace made again differs from the recorded one."""


def add_parser(subparsers: Any) -> None:
    """Add the ``rerun`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["rerun", "t.jsonl", "--trace", "3"])
        >>> args.trace, args.responses
        ('3', None)

    """
    parser = subparsers.add_parser(
        "rerun",
        help="make a stored trace again from its record; say whether it is identical",
        description=(
            "Generate a stored trace again with the model, sampling, segmenter and answer "
            "opening its run record names (a branch: from its parent and intervention), and "
            "compare: exit 0 when identical, 1 when the response differs. Nothing is written."
        ),
    )
    add_trace_arguments(parser)
    parser.add_argument(
        "--responses",
        type=Path,
        help="for a trace of the scripted backend: the JSONL file of responses it played",
    )
    add_server_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="draw no spinner")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Make the trace again; print how it compares; 0 when identical, 1 when not."""
    trace = find_trace(args.traces, args.trace)
    parent = None if trace.parent is None else find_trace(args.traces, trace.parent.parent_id)
    spec = _model(trace, args)  # checked before a model loads
    from llenvs.inference import build_backend

    backend = build_backend(spec, progress=not args.no_progress)
    precision = "" if spec.dtype is None else f" in {spec.dtype}"
    print(
        f"trace {args.trace} ({trace.trace_id}): made again with {spec.recorded_name}"
        f"{precision}, {describe_sampling(trace)}"
    )
    if trace.run.unknown:
        print(f"unknown fields: {', '.join(trace.run.unknown_fields)} (kept, not used)")
    status = Console(stderr=True).status(f"generating with {spec.recorded_name}…")
    with contextlib.nullcontext() if args.no_progress else status:
        result = rerun(trace, backend, parent=parent)
    print(result.difference.describe())
    for line in result.first_difference_lines():
        print(line)
    return 0 if result.identical else DIFFERENT


def describe_sampling(trace: Trace) -> str:
    """How the trace was sampled, in a few words (greedy, or a temperature and its seed).

    Example:
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> from llenvs.core.run_spec import RunSpec
        >>> run = RunRecord(RunSpec(sampling=SamplingParams(max_tokens=9, temperature=0.7)))
        >>> describe_sampling(Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=run,
        ...                         response="", segments=()))
        'temperature 0.7 without a seed (a new sample: it need not be the same), 9 tokens'

    """
    params = trace_sampling_params(trace) or SamplingParams()
    if params.temperature == 0:
        how = "greedy"
    elif params.seed is None:
        how = (
            f"temperature {params.temperature:g} without a seed (a new sample: it need not be "
            "the same)"
        )
    else:
        how = f"temperature {params.temperature:g}, seed {params.seed}"
    return f"{how}, {params.max_tokens} tokens"


def _model(trace: Trace, args: argparse.Namespace) -> ModelSpec:
    """The recorded model, with ``--responses`` for a scripted one and server flags for openai."""
    spec = recorded_model(trace)
    if spec.provider is Provider.OPENAI:
        if args.responses is not None:
            raise ValueError(
                f"--responses is for a trace of the scripted backend, not {spec.name!r}"
            )
        return ModelSpec.parse(spec.name, **server_options(args, spec.name, spec.options))
    server_options(args, spec.name)  # refuses server flags for a local or scripted model
    if spec.provider is Provider.SCRIPTED:
        if args.responses is None:
            raise ValueError(
                f"trace {trace.trace_id} was made by the scripted backend: give --responses "
                "FILE, the responses it played"
            )
        return ModelSpec.parse("scripted", responses=str(args.responses))
    if args.responses is not None:
        raise ValueError(f"--responses is for a trace of the scripted backend, not {spec.name!r}")
    return spec
