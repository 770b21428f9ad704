"""Prefix forking benchmark: rollouts from shared prefixes, prefilled once against every time.

Run from the repository root::

    .venv/bin/python bench/prefix_fork.py            # both cases, written to docs/benchmarks.md
    .venv/bin/python bench/prefix_fork.py --k 4 --tokens 16 --repeat 1 --no-write

Measures, in one run, with the transformers backend on the embedded SmolLM2-135M-Instruct, two
batches, each sent as one ``generate`` call (temperature 0.8, one seed per rollout, as the
rollouts engine sends them):

1. k rollouts of ``--tokens`` tokens from one prompt of about ``--prefix`` tokens (the same
   token ids k times);
2. the shape of ``analyze_trace``: ``--per-cut`` rollouts of ``--rollout-tokens`` tokens from each
   of ``--cuts`` boundaries of one greedy response of ``--response`` tokens to that prompt (cut
   evenly, the first cut before the response), each prompt continuing the response's own token
   ids, so the prefixes are prefixes of one another.

Each batch is served by a backend that forks shared prefixes (``fork_prefixes=True``, the
default) and by one that prefills every row (``fork_prefixes=False``); case 2 also by one that
forks only identical prefixes (the backend before nested prefixes were shared: ``nest_sources``
replaced by the identity). Every backend starts with an empty session store; the best of
``--repeat`` runs is kept (the order rotates). Reported: seconds, prefill tokens (rows times width
of every forward call that feeds more than one token), and how many rollouts every mode gave the
same (the same seeds: the same rollouts, up to rounding). Prints a markdown section and, unless
``--no-write``, replaces that section of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench_common import publish

from llenvs.core import Generation, GenerationRequest, Message, Prompt, SamplingParams
from llenvs.inference._backends import padded_batch
from llenvs.inference._backends.transformers_backend import TransformersBackend
from llenvs.inference._backends.transformers_loading import get_embedded_backend, make_backend

HEADING = "## Rollouts from one prefix (`bench/prefix_fork.py`)"
STORY = (
    "A farmer keeps cows, hens, ducks and goats on a small farm beside a river. Every morning "
    "she counts the animals in each pen and writes the numbers in a notebook. "
)
QUESTION = "How many legs do all the animals on the farm have together? Think step by step."
Result = tuple[float, int, list[Generation]]
"""Seconds, prefill tokens fed, and the generations of one call."""


def prefix_prompt(backend: TransformersBackend, target: int) -> Prompt:
    """A one-turn prompt whose rendered token ids are about ``target`` long."""
    story = ""
    index = 0
    while True:
        index += 1
        line = f"Day {index}: {index + 2} cows, {index + 5} hens, {index} ducks, 2 goats. "
        candidate = story + (STORY if index % 4 == 1 else "") + line
        prompt = Prompt((Message("user", candidate + QUESTION),))
        if len(backend.render(prompt.messages)) > target:
            return Prompt((Message("user", story + QUESTION),))
        story = candidate


def boundary_prompts(backend: TransformersBackend, prompt: Prompt, args: Any) -> list[Prompt]:
    """``prompt`` continued by its greedy response cut at ``args.cuts`` even points."""
    request = GenerationRequest(prompt, SamplingParams(), args.response)
    ids = _backend(backend, fork=True).generate([request])[0].token_ids
    cuts = [round(i * len(ids) / (args.cuts - 1)) for i in range(args.cuts)]
    decode = backend.tokenizer.decode
    return [Prompt(prompt.messages, decode(ids[:cut]), ids[:cut]) for cut in cuts]


@contextmanager
def _nested_sharing(on: bool) -> Iterator[None]:
    """Within, with ``on`` False: only identical prefixes are forked (``nest_sources`` off)."""
    original = padded_batch.nest_sources
    if not on:
        padded_batch.nest_sources = lambda rows, sources: sources
    try:
        yield
    finally:
        padded_batch.nest_sources = original


def run(backend: TransformersBackend, requests: list[GenerationRequest], nest: bool) -> Result:
    """Seconds, prefill tokens fed, and the generations of one batched call."""
    fed: list[int] = []

    def spy(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
        shape = kwargs["input_ids"].shape
        if shape[1] > 1:
            fed.append(int(shape[0] * shape[1]))

    handle = backend.model.register_forward_pre_hook(spy, with_kwargs=True)
    try:
        with _nested_sharing(nest):
            started = time.perf_counter()
            generations = backend.generate(requests)
            seconds = time.perf_counter() - started
    finally:
        handle.remove()
    return seconds, sum(fed), generations


def _backend(embedded: TransformersBackend, *, fork: bool) -> TransformersBackend:
    """A backend on the embedded model with an empty session store."""
    return TransformersBackend(
        embedded.model, embedded.tokenizer, name=embedded.name, fork_prefixes=fork
    )


def best_of(
    embedded: TransformersBackend,
    requests: list[GenerationRequest],
    modes: dict[str, tuple[bool, bool]],
    repeat: int,
) -> dict[str, Result]:
    """The fastest of ``repeat`` runs of each mode (fork, nest), the order rotating."""
    results: dict[str, Result] = {}
    names = list(modes)
    for attempt in range(repeat):
        shift = attempt % len(names)
        for name in names[shift:] + names[:shift]:
            fork, nest = modes[name]
            result = run(_backend(embedded, fork=fork), requests, nest)
            if name not in results or result[0] < results[name][0]:
                results[name] = result
    return results


def table(results: dict[str, Result], baseline: str) -> list[str]:
    """Markdown rows: each mode's seconds and prefill tokens, and its ratio to ``baseline``."""
    base_seconds, base_tokens, _ = results[baseline]
    rows = [
        "| transformers backend | seconds | prefill tokens | speed-up over no fork |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, (seconds, tokens, _) in results.items():
        ratio = f"{base_seconds / seconds:.2f}× time, {base_tokens / max(tokens, 1):.2f}× tokens"
        rows.append(f"| {name} | {seconds:.2f} | {tokens:,} | {ratio} |")
    return rows


def agreement(results: dict[str, Result]) -> str:
    """How many rollouts every mode gave the same, and how many distinct rollouts there are."""
    outputs = [[g.token_ids for g in r[2]] for r in results.values()]
    rows = len(outputs[0])
    same = sum(all(o[i] == outputs[0][i] for o in outputs) for i in range(rows))
    return f"the same in every mode: {same} of {rows}; distinct: {len(set(outputs[0]))}"


def sampled(prompts: list[Prompt], tokens: int) -> list[GenerationRequest]:
    """One rollout per prompt at temperature 0.8, seeded by its position."""
    params = [SamplingParams(temperature=0.8, seed=seed) for seed in range(len(prompts))]
    return [GenerationRequest(p, s, tokens) for p, s in zip(prompts, params, strict=True)]


def main() -> None:
    """Run both cases, print the section and write it unless ``--no-write``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=8, help="case 1: rollouts from the prefix")
    parser.add_argument("--tokens", type=int, default=32, help="case 1: tokens per rollout")
    parser.add_argument("--prefix", type=int, default=300, help="prompt length in tokens")
    parser.add_argument("--response", type=int, default=80, help="case 2: response tokens")
    parser.add_argument("--cuts", type=int, default=6, help="case 2: boundaries (>= 2)")
    parser.add_argument("--per-cut", type=int, default=2, help="case 2: rollouts per boundary")
    parser.add_argument("--rollout-tokens", type=int, default=16, help="case 2: rollout tokens")
    parser.add_argument("--repeat", type=int, default=2, help="runs per mode (best kept)")
    parser.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    embedded = (
        get_embedded_backend()
        if args.dtype is None
        else make_backend(dtype=args.dtype, progress=False)
    )
    section = measure(args, embedded)
    publish(HEADING, section, write=not args.no_write)


def measure(args: Any, embedded: TransformersBackend) -> str:
    """Both cases' section (see the module docstring)."""
    started = time.perf_counter()
    prompt = prefix_prompt(embedded, args.prefix)
    length = len(embedded.render(prompt.messages))
    warm = GenerationRequest(Prompt((Message("user", "Hi"),)), SamplingParams(), 2)
    embedded.generate([warm, warm])
    fork, no_fork = "`fork_prefixes=True`", "`fork_prefixes=False`: every row fed"
    one = best_of(
        embedded,
        sampled([prompt] * args.k, args.tokens),
        {fork + ": the prefix fed once": (True, True), no_fork: (False, True)},
        args.repeat,
    )
    cuts = boundary_prompts(embedded, prompt, args)
    nested = [p for p in cuts for _ in range(args.per_cut)]
    two = best_of(
        embedded,
        sampled(nested, args.rollout_tokens),
        {
            fork + ": the longest prefix fed once": (True, True),
            "identical prefixes forked only (before nesting)": (True, False),
            no_fork: (False, True),
        },
        args.repeat,
    )
    return _section(args, length, cuts, (one, two), time.perf_counter() - started, embedded)


def _section(
    args: Any,
    length: int,
    cuts: list[Prompt],
    cases: tuple[dict[str, Result], dict[str, Result]],
    total: float,
    embedded: TransformersBackend,
) -> str:
    """The markdown section of both cases."""
    one, two = cases
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    ids = [len(c.continuation_token_ids or ()) for c in cuts]
    rows = len(cuts) * args.per_cut
    command = " ".join(["bench/prefix_fork.py", *sys.argv[1:]]).strip()
    dtype = str(embedded.model.dtype).removeprefix("torch.")
    blocks: list[list[str]] = [
        [
            HEADING,
            "",
            f"Command: `.venv/bin/python {command}` — run {now} on {platform.machine()}, "
            f"Python {platform.python_version()}, {embedded.device} ({dtype}), {total:.0f} s "
            f"in all. The embedded model; every call is one `generate` call at temperature "
            f"0.8 (one seed per rollout), best of {args.repeat}, the order of the modes "
            "rotating. Prefill tokens: rows times width of every forward call feeding more "
            "than one token.",
            "",
            f"**k rollouts from one prefix**: {args.k} rollouts of {args.tokens} tokens from one "
            f"{length}-token prompt.",
            "",
        ],
        table(one, no_fork_name(one)),
        [
            "",
            f"Rollouts {agreement(one)}.",
            "",
            f"**Rollouts from every boundary of one response** (the shape of `analyze_trace`): "
            f"{args.per_cut} rollouts of {args.rollout_tokens} tokens from each of {len(cuts)} "
            f"cuts of a greedy {max(ids)}-token response to that prompt (after {ids} of its "
            f"tokens), {rows} rows; the longest prompt is {length + max(ids)} tokens.",
            "",
        ],
        table(two, no_fork_name(two)),
        [
            "",
            f"Rollouts {agreement(two)}. A row cut from a longer row's cache computes the same "
            "sums in another layout than when fed itself, so in bfloat16 its numbers differ "
            "by rounding (a near-tie late in a rollout may then sample another token); "
            "`--dtype float32` shows how close they are. Token counts are exact; seconds vary "
            "with the shared machine's load.",
            "",
        ],
    ]
    return "\n".join(line for block in blocks for line in block)


def no_fork_name(results: dict[str, Result]) -> str:
    """The name of the mode that feeds every row (the last one)."""
    return list(results)[-1]


if __name__ == "__main__":
    main()
