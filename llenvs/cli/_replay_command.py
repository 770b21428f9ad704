r"""``llenvs replay``: segment and score a file of responses, writing one trace per response.

Example:
    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> responses = folder / "responses.jsonl"
    >>> _ = responses.write_text(json.dumps({"task_index": 0,
    ...     "response": "Count. So 100. <answer>100</answer>"}) + "\n")
    >>> main(["replay", "--env", "leg_counting", "--size", "100", "--seed", "42",
    ...       "--segmenter", "sentence", "--responses", str(responses),
    ...       "-o", str(folder / "traces.jsonl"), "--no-progress"])  # doctest: +ELLIPSIS
    replayed 1 response (2 segments, success 100.0%) into .../traces.jsonl
    0

"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import track

from llenvs.cli._options import add_environment_options, build_environment, read_responses
from llenvs.core.errors import TaskIndexError
from llenvs.evaluation import replay_trace
from llenvs.traces import Trace, write_traces
from llenvs.traces.files import append_traces

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``replay`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["replay", "--env", "leg_counting", "--responses", "r",
        ...                                   "-o", "o"])
        >>> args.segmenter, args.model, args.overwrite
        ('steps', None, False)

    """
    parser = subparsers.add_parser(
        "replay",
        help="segment and score a file of responses, writing traces",
        description=(
            "Replay each response through the environment segment by segment: every segment "
            "gets its per-step rewards (and PRM score with --prm), the last one the outcome. "
            "An existing output file is kept: the new traces are appended to it, unless "
            "--overwrite. A failed replay writes nothing."
        ),
    )
    add_environment_options(parser)
    parser.add_argument(
        "--responses",
        type=Path,
        required=True,
        help="JSONL: a string per line (line k answers task k) or objects with 'response' "
        "and 'task_index'",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help="trace file to write; if it exists, the traces are appended to it",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing output file instead of appending to it (atomically)",
    )
    parser.add_argument("--model", help="who wrote the responses, recorded in the traces")
    parser.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Replay every response; append (or, with ``--overwrite``, write) the traces atomically.

    Nothing is written unless every response replays: a failure leaves the output as it was.
    """
    environment = build_environment(args)
    responses = read_responses(args.responses)
    if not responses:
        raise ValueError(f"no response in {args.responses}: nothing was written")
    size = len(environment)
    for line, (index, _) in enumerate(responses):
        task_index = line if index is None else index
        if not 0 <= task_index < size:
            raise ValueError(
                f"{args.responses}: response {line + 1}: {TaskIndexError(task_index, size)}"
            )
    traces: list[Trace] = []
    for line, (index, response) in enumerate(
        track(
            responses,
            description="replaying",
            disable=args.no_progress,
            console=Console(stderr=True),
        )
    ):
        traces.append(
            replay_trace(environment, line if index is None else index, response, args.model)
        )
    existing = os.path.exists(args.output) and os.path.getsize(args.output) > 0
    (write_traces if args.overwrite else append_traces)(args.output, traces)
    segments = sum(len(t.segments) for t in traces)
    rate = sum(bool(t.success) for t in traces) / len(traces)
    noun = "response" if len(traces) == 1 else "responses"
    how = "into" if not existing else "replacing" if args.overwrite else "appended to"
    print(
        f"replayed {len(traces)} {noun} ({segments} segments, success {rate:.1%}) "
        f"{how} {args.output}"
    )
    return 0
