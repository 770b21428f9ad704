"""Prefix forking benchmark: k rollouts from one prefix, prefilled once against k times.

Run from the repository root::

    .venv/bin/python bench/prefix_fork.py            # k = 8 rollouts of 32 tokens
    .venv/bin/python bench/prefix_fork.py --k 4 --tokens 16 --repeat 1

Measures, in one run, with the transformers backend on the embedded SmolLM2-135M-Instruct: k
sampled rollouts (temperature 0.8, one seed each, as the rollouts engine sends them) of
``--tokens`` tokens from one prompt of about 300 tokens, sent as one ``generate`` call, by a
backend that forks the prefix's KV cache (``fork_prefixes=True``, the default) and by one that
prefills every row (``fork_prefixes=False``). Each backend starts with an empty session store;
the best of ``--repeat`` runs is kept (the order alternates). Prints a markdown table:
seconds, prefill tokens (rows times width of every forward call that feeds more than one token)
and the ratios. The two backends' outputs are compared too (the same seeds: the same rollouts
expected).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from llenvs.core import Message, Prompt, SamplingParams
from llenvs.core.backend import Generation, GenerationRequest
from llenvs.inference.backends.transformers_backend import TransformersBackend
from llenvs.inference.backends.transformers_loading import get_embedded_backend

STORY = (
    "A farmer keeps cows, hens, ducks and goats on a small farm beside a river. Every morning "
    "she counts the animals in each pen and writes the numbers in a notebook. "
)
QUESTION = "How many legs do all the animals on the farm have together? Think step by step."


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


def run(
    backend: TransformersBackend, prompt: Prompt, k: int, tokens: int
) -> tuple[float, int, list[Generation]]:
    """Seconds, prefill tokens fed, and the rollouts of one batched call of ``k`` rollouts."""
    requests = [
        GenerationRequest(prompt, SamplingParams(temperature=0.8, seed=seed), tokens)
        for seed in range(k)
    ]
    fed: list[int] = []

    def spy(module: Any, args: Any, kwargs: dict[str, Any]) -> None:
        shape = kwargs["input_ids"].shape
        if shape[1] > 1:
            fed.append(int(shape[0] * shape[1]))

    handle = backend.model.register_forward_pre_hook(spy, with_kwargs=True)
    try:
        started = time.perf_counter()
        generations = backend.generate(requests)
        seconds = time.perf_counter() - started
    finally:
        handle.remove()
    return seconds, sum(fed), generations


def main() -> None:
    """Print the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=8, help="rollouts from the prefix")
    parser.add_argument("--tokens", type=int, default=32, help="tokens per rollout")
    parser.add_argument("--prefix", type=int, default=300, help="prompt length in tokens")
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode (best kept)")
    args = parser.parse_args()
    embedded = get_embedded_backend()
    prompt = prefix_prompt(embedded, args.prefix)
    length = len(embedded.render(prompt.messages))
    warm = GenerationRequest(Prompt((Message("user", "Hi"),)), SamplingParams(), 2)
    embedded.generate([warm, warm])
    results: dict[bool, tuple[float, int, list[Generation]]] = {}
    for attempt in range(args.repeat):
        for fork in (True, False) if attempt % 2 else (False, True):
            backend = TransformersBackend(
                embedded.model, embedded.tokenizer, name=embedded.name, fork_prefixes=fork
            )
            result = run(backend, prompt, args.k, args.tokens)
            if fork not in results or result[0] < results[fork][0]:
                results[fork] = result
    forked, unforked = results[True], results[False]
    same = [g.token_ids for g in forked[2]] == [g.token_ids for g in unforked[2]]
    distinct = len({g.token_ids for g in forked[2]})
    print(f"k = {args.k} rollouts of {args.tokens} tokens from a {length}-token prompt ")
    print(f"(temperature 0.8, seeds 0..{args.k - 1}; best of {args.repeat}; embedded model)\n")
    print("| mode | seconds | prefill tokens |")
    print("|---|---:|---:|")
    print(f"| fork (prefilled once) | {forked[0]:.2f} | {forked[1]} |")
    print(f"| no fork (prefilled k times) | {unforked[0]:.2f} | {unforked[1]} |")
    print(
        f"| ratio no fork / fork | {unforked[0] / forked[0]:.2f}x | "
        f"{unforked[1] / max(forked[1], 1):.2f}x |"
    )
    print(f"\nsame rollouts in both modes: {same}; distinct rollouts: {distinct} of {args.k}")


if __name__ == "__main__":
    main()
