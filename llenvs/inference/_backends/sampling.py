"""Choosing the next token from a model's logits: greedy, or sampled with temperature/top-k/top-p.

The log-probability reported with a token is that of the model's own distribution (the raw
logits' log-softmax), whatever the sampling settings, as OpenAI-compatible servers report it.

Example:
    >>> import torch
    >>> logits = torch.tensor([[0.0, 2.0, 1.0]])
    >>> choose_tokens(logits, SamplingParams(), [None])
    [1]
    >>> [round(x, 3) for x in token_logprobs(logits, [1])]
    [-0.408]

"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from llenvs.core import SamplingParams

__all__ = ["choose_tokens", "new_generator", "token_logprobs"]


def new_generator(seed: int | None, device: torch.device | str = "cpu") -> torch.Generator:
    """A random generator seeded with ``seed`` (from the OS when None).

    Example:
        >>> new_generator(7).initial_seed()
        7

    """
    generator = torch.Generator(device=device)
    if seed is None:
        generator.seed()
    else:
        generator.manual_seed(seed)
    return generator


def choose_tokens(
    logits: torch.Tensor,
    params: SamplingParams,
    generators: Sequence[torch.Generator | None],
) -> list[int]:
    """One next token per row of ``logits`` (``[batch, vocab]``), each row with its generator.

    Greedy (argmax, ties to the lowest id) when ``params.temperature`` is 0.

    Example:
        >>> import torch
        >>> params = SamplingParams(temperature=1.0, top_k=1)
        >>> choose_tokens(torch.tensor([[0.0, 5.0]]), params, [new_generator(0)])
        [1]

    """
    if params.temperature == 0:
        return [int(i) for i in logits.argmax(dim=-1).tolist()]
    chosen: list[int] = []
    for row, generator in zip(logits.float(), generators, strict=True):
        scores = row / params.temperature
        if params.top_k is not None and params.top_k < scores.shape[-1]:
            kth = torch.topk(scores, params.top_k).values[-1]
            scores = scores.masked_fill(scores < kth, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        if params.top_p < 1.0:
            ordered, order = torch.sort(probs, descending=True)
            before = torch.cumsum(ordered, dim=-1) - ordered
            ordered = ordered.masked_fill(before >= params.top_p, 0.0)
            probs = torch.zeros_like(probs).scatter(-1, order, ordered)
        chosen.append(int(torch.multinomial(probs, 1, generator=generator).item()))
    return chosen


def token_logprobs(logits: torch.Tensor, tokens: Sequence[int]) -> list[float]:
    """The log-probability of ``tokens[i]`` under row ``i`` of ``logits``.

    Example:
        >>> import torch
        >>> token_logprobs(torch.tensor([[0.0, 0.0]]), [0])[0] == torch.log(torch.tensor(0.5))
        tensor(True)

    """
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    index = torch.tensor(list(tokens), device=logits.device).unsqueeze(-1)
    return [float(x) for x in logprobs.gather(-1, index).squeeze(-1).tolist()]
