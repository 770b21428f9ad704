r"""``llenvs evaluate``: run a model on tasks segment by segment and write the traces.

Rerunning with the same ``--output`` resumes: finished tasks are kept, the rest are run.

Example:
    >>> import json, tempfile, pathlib
    >>> from llenvs.cli.main import main
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> responses = folder / "responses.jsonl"
    >>> _ = responses.write_text(json.dumps("Count. So 100. <answer>100</answer>") + "\n")
    >>> main(["evaluate", "--env", "leg_counting", "--size", "100", "--seed", "42",
    ...       "--backend", "scripted", "--responses", str(responses), "--num-tasks", "1",
    ...       "--output", str(folder / "out.jsonl"), "--no-progress", "--no-log",
    ... ])  # doctest: +ELLIPSIS
    success 100.0% (1/1), errors 0; 1 trace in .../out.jsonl
    0

"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from llenvs.cli.options import (
    DEFAULT_BACKEND,
    add_backend_options,
    add_environment_options,
    add_sampling_options,
    build_backend,
    build_environment,
    sampling_params,
)
from llenvs.evaluation import LogConfig, LogTarget, run_segmented_evaluation

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand.

    Example:
        >>> parser = argparse.ArgumentParser(prog="llenvs")
        >>> add_parser(parser.add_subparsers())
        >>> args = parser.parse_args(["evaluate", "--env", "leg_counting", "-o", "o.jsonl"])
        >>> args.backend, args.num_tasks, args.batch_size, args.log_dir
        ('transformers', None, 8, PosixPath('llenvs_logs'))

    """
    parser = subparsers.add_parser(
        "evaluate",
        help="run a model on tasks, segment by segment, and write traces",
        description=(
            "Generate a response per task one segment at a time, scoring every step, with a "
            "progress bar and a JSONL event log. Rerun with the same --output to resume."
        ),
    )
    add_environment_options(parser)
    add_backend_options(parser, DEFAULT_BACKEND)
    add_sampling_options(parser)
    tasks = parser.add_argument_group("tasks").add_mutually_exclusive_group()
    tasks.add_argument("--num-tasks", type=int, help="run tasks 0..N-1 (default: all)")
    tasks.add_argument("--tasks", type=_indices, help="comma-separated task indices, e.g. 0,3,7")
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="trace file to write (and resume)"
    )
    parser.add_argument("--batch-size", type=int, default=8, help="trajectories per batch")
    parser.add_argument("--max-steps", type=int, help="most live steps per trajectory")
    parser.add_argument(
        "--log-dir", type=Path, default=Path("llenvs_logs"), help="folder of the event log"
    )
    parser.add_argument("--no-log", action="store_true", help="write no event log")
    parser.add_argument("--no-progress", action="store_true", help="draw no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation; print the success rate and where the traces are."""
    backend = build_backend(args.backend, args.responses)
    environment = build_environment(args, backend)
    targets: tuple[LogTarget, ...] = (
        *(() if args.no_progress else ("console",)),
        *(() if args.no_log else ("file",)),
    )
    result = run_segmented_evaluation(
        environment,
        backend,
        num_tasks=args.num_tasks,
        task_indices=args.tasks,
        sampling_params=sampling_params(args),
        log=LogConfig(targets=targets, directory=args.log_dir),
        batch_size=args.batch_size,
        max_steps=args.max_steps,
        results_file=args.output,
    )
    done = sum(bool(t.success) for t in result.traces)
    resumed = f", {result.resumed} resumed" if result.resumed else ""
    noun = "trace" if result.num_tasks == 1 else "traces"
    print(
        f"success {result.success_rate:.1%} ({done}/{result.num_tasks}), errors "
        f"{len(result.errors)}{resumed}; {result.num_tasks} {noun} in {args.output}"
    )
    if result.log_path is not None:
        print(f"event log: {result.log_path}")
    return 0


def _indices(text: str) -> list[int]:
    """Task indices from ``"0,3,7"``.

    Example:
        >>> _indices("0, 3,7")
        [0, 3, 7]

    """
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--tasks must be comma-separated integers, got {text!r}"
        ) from None
