"""Precision benchmark: float32 against bfloat16 on this CPU, for speed and for exactness.

Run from the repository root::

    .venv/bin/python bench/precision.py                 # written to docs/benchmarks.md
    .venv/bin/python bench/precision.py --prompts 4 --tokens 32 --no-write

Measures, in one run, the embedded SmolLM2-135M-Instruct loaded twice by the transformers
backend, once in each precision (``dtype=``), on the same CPU:

- speed: the prefill of one prompt of about ``--prefix`` tokens (best of 3), and greedy decoding
  of up to ``--tokens`` tokens at batch size 1 and at batch size ``--batch`` (tokens generated per
  second over the whole call, prefill included);
- exactness, on ``--prompts`` leg_counting prompts, greedy, each compared with its own answer at
  batch size 1 in the same precision: the same prompt run in a padded batch beside other prompts
  (batch shape); the same prompt k times in one batch with prefix forking (forked = unforked); and
  a resample from half-way, whose prefix is fed as the response's own token ids and prefilled
  (a greedy resample reproduces its parent). A row counts as exact when its tokens equal the
  reference's; the first divergence is the token index where they first differ.

Prints a markdown section and, unless ``--no-write``, replaces that section of
``docs/benchmarks.md``. The CPU's flags (``avx512_bf16``, ``amx_bf16``) are printed with it:
the answer differs between CPUs with and without native bfloat16.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

from bench_common import ROOT, publish

sys.path.insert(0, str(ROOT))  # tests.inference.precisions

from llenvs.core import GenerationRequest, Message, Prompt, SamplingParams
from llenvs.core.registry import environment_registry
from llenvs.inference._backends.transformers_backend import TransformersBackend
from llenvs.inference._backends.transformers_loading import DType, make_backend
from tests.inference.precisions import first_difference

HEADING = "## Precision on the CPU (`bench/precision.py`)"
STORY = "A farmer counts the animals in every pen each morning and writes them in a notebook. "


def cpu_flags() -> str:
    """Native bfloat16 flags of the CPU, or 'none'."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text(encoding="utf-8").split())
    except OSError:
        return "unknown"
    native = sorted(flags & {"avx512_bf16", "amx_bf16"})
    return ", ".join(native) or "none"


def fresh(backend: TransformersBackend) -> TransformersBackend:
    """The same weights with an empty session store (no cache carried between measurements)."""
    return TransformersBackend(backend.model, backend.tokenizer, name=backend.name)


def greedy(prompt: Prompt, tokens: int) -> GenerationRequest:
    """A greedy request for ``tokens`` tokens."""
    return GenerationRequest(prompt, SamplingParams(temperature=0.0), tokens)


def timed(backend: TransformersBackend, requests: list[GenerationRequest]) -> tuple[float, int]:
    """Seconds one ``generate`` call takes on a fresh session store, and the tokens it made."""
    started = time.perf_counter()
    generations = fresh(backend).generate(requests)
    return time.perf_counter() - started, sum(len(g.token_ids) for g in generations)


def long_prompt(backend: TransformersBackend, target: int) -> Prompt:
    """A one-turn prompt of about ``target`` rendered tokens."""
    story = ""
    while len(backend.prompt_ids(Prompt((Message("user", story + "How many legs?"),)))) < target:
        story += STORY
    return Prompt((Message("user", story + "How many legs?"),))


def speed(backend: TransformersBackend, args: argparse.Namespace) -> dict[str, float]:
    """Prefill seconds and decode rates of one precision."""
    prompt = long_prompt(backend, args.prefix)
    prefill = min(timed(backend, [greedy(prompt, 1)])[0] for _ in range(3))
    short = Prompt((Message("user", "Count to twenty, one number per line."),))
    seconds, tokens = timed(backend, [greedy(short, args.tokens)])
    batch = [
        greedy(Prompt((Message("user", f"Count to {20 + i}, one number per line."),)), args.tokens)
        for i in range(args.batch)
    ]
    many_seconds, many_tokens = timed(backend, batch)
    return {"prefill": prefill, "one": tokens / seconds, "many": many_tokens / many_seconds}


def exactness(
    backend: TransformersBackend, args: argparse.Namespace
) -> dict[str, list[int | None]]:
    """For each check, each prompt's first divergence from its batch-size-1 reference."""
    env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=50, seed=42)
    prompts = [
        Prompt((Message("user", env.reset(options={"task_index": i})[0].observation.prompt),))
        for i in range(args.prompts)
    ]
    found: dict[str, list[int | None]] = {"batch": [], "forked": [], "resample": []}
    references = [fresh(backend).generate([greedy(p, args.tokens)])[0] for p in prompts]
    together = fresh(backend).generate([greedy(p, args.tokens) for p in prompts])
    for got, want in zip(together, references, strict=True):
        found["batch"].append(first_difference(got.token_ids, want.token_ids))
    for prompt, want in zip(prompts, references, strict=True):
        forked = fresh(backend).generate([greedy(prompt, args.tokens)] * 4)
        worst = [first_difference(g.token_ids, want.token_ids) for g in forked]
        found["forked"].append(min((w for w in worst if w is not None), default=None))
        half = len(want.token_ids) // 2
        kept = want.token_ids[:half]
        resumed = Prompt(prompt.messages, backend.tokenizer.decode(kept), kept)
        rest = fresh(backend).generate([greedy(resumed, args.tokens - half)])[0]
        found["resample"].append(first_difference(kept + rest.token_ids, want.token_ids))
    return found


def describe(divergences: list[int | None]) -> str:
    """'n of N exact (first divergences at tokens a, b)'."""
    exact = sum(d is None for d in divergences)
    firsts = sorted(d for d in divergences if d is not None)
    where = f" (others first differ at tokens {', '.join(map(str, firsts))})" if firsts else ""
    return f"{exact} of {len(divergences)}{where}"


def run(args: argparse.Namespace) -> str:
    """Measure both precisions; return the markdown section."""
    started = time.perf_counter()
    results: dict[str, tuple[dict[str, float], dict[str, list[int | None]]]] = {}
    dtypes: tuple[DType, ...] = ("float32", "bfloat16")
    for dtype in dtypes:
        backend = make_backend(dtype=dtype, progress=False)
        results[dtype] = (speed(backend, args), exactness(backend, args))
        print(dtype, results[dtype], file=sys.stderr)
    total = time.perf_counter() - started
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["`.venv/bin/python", "bench/precision.py", *sys.argv[1:]]).rstrip() + "`"
    rows = []
    for dtype, (rates, found) in results.items():
        rows.append(
            f"| {dtype} | {rates['prefill']:.2f} | {rates['one']:.1f} | {rates['many']:.1f} | "
            f"{describe(found['batch'])} | {describe(found['forked'])} | "
            f"{describe(found['resample'])} |"
        )
    f32, bf16 = results["float32"][0], results["bfloat16"][0]
    return "\n".join(
        [
            HEADING,
            "",
            f"Command: {command} — run {date} on {platform.machine()}, Python "
            f"{platform.python_version()}, CPU native bfloat16: {cpu_flags()}, "
            f"{args.__dict__['threads'] or 'all'} threads, total {total:.0f} s. The embedded "
            f"SmolLM2-135M-Instruct, greedy; prefill: a {args.prefix}-token prompt; decode: up to "
            f"{args.tokens} tokens at batch 1 and {args.batch} rows; exactness on "
            f"{args.prompts} leg_counting prompts, {args.tokens} tokens each, against the same "
            "prompt alone at batch size 1 in the same precision.",
            "",
            "| precision | prefill s | tokens/s, 1 row | tokens/s, "
            f"{args.batch} rows | exact in a padded batch | exact forked (4 rows) | "
            "exact resample from half-way |",
            "|---|---:|---:|---:|---|---|---|",
            *rows,
            "",
            f"bfloat16 against float32: prefill {f32['prefill'] / bf16['prefill']:.2f}x as fast, "
            f"decode {bf16['one'] / f32['one']:.2f}x at 1 row and "
            f"{bf16['many'] / f32['many']:.2f}x at {args.batch} rows. The default precision on "
            "every CPU is float32 (`default_dtype`): the exactness docs/architecture.md states "
            "holds there; "
            'bfloat16 is a choice (`dtype="bfloat16"`) whose rows depend on the batch they ran '
            "in (they agree up to rounding, and can part at a near-tie).",
            "",
        ]
    )


def main() -> None:
    """Parse the options, run, print, write."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prefix", type=int, default=250)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default all)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    section = run(args)
    publish(HEADING, section, write=not args.no_write)


if __name__ == "__main__":
    main()
