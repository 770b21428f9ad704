r"""``llenvs evaluate``: run a model on tasks segment by segment and write the traces.

Rerunning with the same ``--output`` resumes: finished tasks are kept, the rest are run (and
when none is left, no model is loaded). Every argument, the ``--responses`` file and the tasks are
checked before the backend is built, so a mistake fails at once. Ctrl-C keeps the finished traces
and prints the command that resumes.

With ``--backend scripted``, each response belongs to a task: a line with ``task_index``
answers that task, any other line ``i`` answers task ``i``; the backend is told each task's
prompt, so a task gets its own response whatever order or subset the tasks run in.

Example:
    >>> import json, tempfile, pathlib
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
import shlex
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llenvs.cli._model_options import (
    DEFAULT_BACKEND,
    add_backend_options,
    add_sampling_options,
    build_backend,
    check_backend_options,
    sampling_params,
)
from llenvs.cli._options import (
    NO_RESPONSE,
    add_environment_options,
    bounded,
    build_base_environment,
    positive_int,
    prm_options,
    read_responses,
)
from llenvs.cli._server_options import add_server_options, server_options
from llenvs.core import BATCH_SIZE, MAX_TOKENS, Environment, ModelBackend
from llenvs.core.run_spec import task_count, task_indices
from llenvs.core.segmenters import segmenter_from_spec, unescape_field
from llenvs.evaluation import LogConfig, LogTarget, run_segmented_evaluation, settle_results_file
from llenvs.evaluation.branching import scored_environment
from llenvs.evaluation.episodes import DEFAULT_TEXT, AnswerOpening
from llenvs.rewards.prm import provenance_of
from llenvs.traces import Trace, read_traces

__all__ = ["DEFAULT_NUM_TASKS", "add_parser", "responses_by_task", "run", "scripted_backend"]

DEFAULT_NUM_TASKS = 10
"""Tasks run without ``--num-tasks`` or ``--tasks`` (fewer when the environment has fewer): a
small model on a CPU makes 10-20 tokens/s, so every task of a 500-task dataset takes hours."""


def add_parser(subparsers: Any) -> None:
    """Add the ``evaluate`` subcommand.

    Example:
        >>> args = build_parser().parse_args(["evaluate", "--env", "leg_counting", "-o", "o.jsonl"])
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
    add_server_options(parser)
    add_sampling_options(parser)
    tasks = parser.add_argument_group("tasks").add_mutually_exclusive_group()
    tasks.add_argument(
        "--num-tasks",
        type=positive_int,
        help=f"run tasks 0..N-1 (default: {DEFAULT_NUM_TASKS}, or every task when there are fewer)",
    )
    tasks.add_argument(
        "--tasks",
        help="task indices and ranges, e.g. 0,3,7 or 0-9 or 0-4,9 (checked against the size)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="trace file to write (and resume)"
    )
    parser.add_argument(
        "--batch-size",
        type=bounded(BATCH_SIZE),
        default=8,
        help=f"trajectories per batch, 1..{BATCH_SIZE.high}",
    )
    parser.add_argument(
        "--max-steps", type=positive_int, help="most live steps per trajectory (default: no limit)"
    )
    parser.add_argument(
        "--answer-opening",
        nargs="?",
        const=DEFAULT_TEXT,
        type=unescape_field,
        metavar="TEXT",
        help=(
            "when a response ends without an answer, force TEXT (default: '\\n\\nFinal answer: "
            "<answer>') as a segment flagged forced and let the model complete it"
        ),
    )
    parser.add_argument(
        "--answer-tokens",
        type=bounded(MAX_TOKENS),
        default=AnswerOpening().max_tokens,
        help="tokens the model may add after a forced --answer-opening",
    )
    parser.add_argument(
        "--log-dir", type=Path, default=Path("llenvs_logs"), help="folder of the event log"
    )
    parser.add_argument("--no-log", action="store_true", help="write no event log")
    parser.add_argument(
        "--no-progress", action="store_true", help="draw no progress bar (nor model loading bars)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation; print the success rate and where the traces are.

    Everything that can be checked is checked before the backend is built.
    """
    check_backend_options(args.backend, args.responses)
    prm = prm_options(args.prm, args.prm_base_url)  # --prm vllm/<model>: its server
    server = server_options(args, args.backend)
    responses = None if args.responses is None else responses_by_task(args.responses)
    params = sampling_params(args)
    base = build_base_environment(args)
    tasks = _task_list(args, len(base))
    segmenter = segmenter_from_spec(args.segmenter)
    finished = _finished(args.output, base, segmenter.spec, tasks)
    todo = [i for i in tasks if i not in finished]
    if not todo:
        settle_results_file(args.output)  # a run killed before its final rewrite left it untidy
        done = list(finished.values())
        print(f"nothing to run, every task has its trace: {_summary(done, args.output)}")
        return 0
    if responses is not None:
        missing = [i for i in todo if i not in responses]
        if missing:
            listed = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
            raise ValueError(
                f"{args.responses} has no response for task{'s' if len(missing) > 1 else ''} "
                f"{listed} (line i answers task i; "
                'a line {"task_index": k, "response": ...} answers task k)'
            )
    try:
        backend = (
            build_backend(args.backend, None, progress=not args.no_progress, options=server)
            if responses is None
            else scripted_backend(responses, base, tasks)
        )
        # --prm judge: the model being evaluated judges its own steps (no second copy)
        environment = scored_environment(base, segmenter, args.prm, backend, prm)
        targets: tuple[LogTarget, ...] = (
            *(() if args.no_progress else ("console",)),
            *(() if args.no_log else ("file",)),
        )
        result = run_segmented_evaluation(
            environment,
            backend,
            task_indices=tasks,
            sampling_params=params,
            log=LogConfig(targets=targets, directory=args.log_dir),
            batch_size=args.batch_size,
            max_steps=args.max_steps,
            results_file=args.output,
            prm=provenance_of(args.prm, environment.reward_functions),
            answer_opening=(
                None
                if args.answer_opening is None
                else AnswerOpening(args.answer_opening, args.answer_tokens)
            ),
        )
    except KeyboardInterrupt:
        kept = len(_finished(args.output, base, segmenter.spec, tasks))
        command = shlex.join(getattr(args, "command_line", ("llenvs", "evaluate", "…")))
        print(
            f"llenvs evaluate: interrupted; {kept} of {len(tasks)} traces kept in "
            f"{args.output}; resume with: {command}",
            file=sys.stderr,
        )
        return 130
    resumed = f", {result.resumed} resumed" if result.resumed else ""
    print(_summary(list(result.traces), args.output, f", errors {len(result.errors)}{resumed}"))
    if result.log_path is not None:
        print(f"event log: {result.log_path}")
    return 0


def responses_by_task(path: Path) -> dict[int, str]:
    r"""The responses of a ``--responses`` file by task: ``task_index`` when given, else the line.

    An empty file, or two responses for one task, is refused.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
        >>> _ = p.write_text('"A."\n{"task_index": 5, "response": "B."}\n')
        >>> responses_by_task(p)
        {0: 'A.', 5: 'B.'}
        >>> _ = p.write_text("\n")
        >>> responses_by_task(p)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../r.jsonl holds no response (one JSON string, or object with 'response', per line)

    """  # noqa: E501
    found: dict[int, str] = {}
    for line, (index, text) in enumerate(read_responses(path)):
        task = line if index is None else index
        if task in found:
            raise ValueError(f"{path}: response {line + 1} is the second one for task {task}")
        found[task] = text
    if not found:
        raise ValueError(f"{path} {NO_RESPONSE}")
    return found


def scripted_backend(
    responses: Mapping[int, str], environment: Environment, tasks: Sequence[int]
) -> ModelBackend:
    """A scripted backend that answers each task's prompt with that task's response.

    Example:
        >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
        >>> backend = scripted_backend({0: "A.", 2: "C."}, env, [2, 0])
        >>> sorted(backend.by_prompt.values())
        ['A.', 'C.']

    """
    from llenvs.inference import get_backend

    by_prompt: dict[str, str] = {}
    owner: dict[str, int] = {}
    for task in tasks:
        if task not in responses:
            continue
        state, _ = environment.reset(options={"task_index": task})
        prompt = state.observation.prompt
        if prompt in by_prompt and by_prompt[prompt] != responses[task]:
            raise ValueError(
                f"tasks {owner[prompt]} and {task} have the same prompt but different responses; "
                "the scripted backend tells tasks apart by their prompts"
            )
        by_prompt[prompt], owner[prompt] = responses[task], task
    return get_backend("scripted", by_prompt=by_prompt)


def _task_list(args: argparse.Namespace, size: int) -> list[int]:
    """The tasks ``--num-tasks`` / ``--tasks`` name, checked against the environment's size."""
    if args.tasks is not None:
        return list(task_indices(args.tasks, size, "--tasks"))
    count = min(DEFAULT_NUM_TASKS, size) if args.num_tasks is None else args.num_tasks
    return list(task_count(count, size, "--num-tasks"))


def _finished(
    path: Path, environment: Environment, segmenter: str, tasks: Sequence[int]
) -> dict[int, Trace]:
    """The finished (unerrored) traces in ``path`` of ``tasks`` made on this environment."""
    if not path.exists():
        return {}
    spec = environment.spec
    wanted = (spec.name, spec.adapter, dict(spec.kwargs), segmenter)
    found: dict[int, Trace] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the evaluation reports unreadable lines itself
        traces = list(read_traces(path))
    for trace in traces:
        task = trace.task
        cut = trace.run.spec.segmenter
        found_run = (task.environment, task.adapter, dict(task.adapter_kwargs), cut and cut.text)
        if found_run != wanted:
            return {}  # another run's file: the evaluation explains
        if trace.error is None:
            found[task.task_index] = trace
        else:
            found.pop(task.task_index, None)
    return {i: found[i] for i in tasks if i in found}


def _summary(traces: Sequence[Trace], output: Path, extra: str = "") -> str:
    """``success 50.0% (1/2)…; 2 traces in out.jsonl``."""
    done = sum(bool(t.success) for t in traces)
    rate = done / len(traces) if traces else 0.0
    noun = "trace" if len(traces) == 1 else "traces"
    return f"success {rate:.1%} ({done}/{len(traces)}){extra}; {len(traces)} {noun} in {output}"
