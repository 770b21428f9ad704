"""Inside a local model: attention suppression between steps, and receiver heads.

White-box instruments of Thought Anchors (arXiv 2506.19143), on a model whose weights are in
this process (``BackendCapabilities.weights``: the transformers backend, the embedded model
included; a served model has none, and is refused by name).

**Attention suppression.** The trace (its messages through the chat template, then its
response) is run once as it is and once per step i with every head of every layer kept from
attending to step i's tokens from any later token (a 4-D attention mask; one forward pass per
step, ``batch`` at a time, each batch starting from the unmasked run's keys and values up to
where its first masked step ends, since nothing before that changes). Cell ``(i, j)``, i < j,
is the mean over step j's tokens of the KL
divergence from the unmasked next-token distribution to the masked one: how much the model's
reading of step j leans on step i. A KL is a change in the model's predictions, not a causal
effect on the answer.

**Receiver heads.** Per head, each step's *vertical score*: the mean attention its tokens
receive from the tokens of steps at least ``NEAR`` steps later (blocks of token attentions
averaged per pair of steps). A head whose scores are heavy-tailed across steps (high kurtosis)
points at a few steps; the heads with the largest kurtosis are listed with the steps they
point at. A trace of fewer than ``MIN_SCORES + NEAR`` steps lists none (too few scores to tell
a heavy tail).

Example:
    >>> step_of_tokens([(0, 3), (3, 5), (5, 9), (9, 12)], [(0, 4), (4, 12)])
    [0, 0, 1, 1]

"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.core import LocalWeights, ModelBackend, StopToken
from llenvs.core.errors import LlenvsError
from llenvs.evaluation.branching import prefix_prompt
from llenvs.traces.records import Trace

__all__ = [
    "MIN_SCORES",
    "NEAR",
    "AttentionError",
    "ReceiverHead",
    "Suppression",
    "attention_suppression",
    "step_of_tokens",
]

NEAR = 4
"""Steps closer than this to a step do not count toward its vertical score (Thought Anchors
set the nearest 4 sentences aside: nearby text is attended to whatever it says)."""

TOP_HEADS = 10
"""How many receiver heads are listed."""

MIN_SCORES = 8
"""The fewest vertical scores a head's kurtosis is computed over: a trace needs
``MIN_SCORES + NEAR`` steps. On fewer the kurtosis saturates (on n scores it is at most about
n - 3, reached by any head that looks at one step), so every head ties and none is listed."""

_Pace = tuple[int, Callable[[int, int], None] | None, StopToken | None]
"""Masked steps per forward pass, who is told of progress, and the stop asked for."""


class AttentionError(LlenvsError, ValueError):
    """A backend without weights in this process, or a trace with nothing to read.

    Example:
        >>> issubclass(AttentionError, ValueError)
        True

    """

    __module__ = "llenvs.analysis.instruments"  # tracebacks name the public face


@dataclass(frozen=True)
class ReceiverHead:
    """One attention head whose attention from later steps falls on a few steps."""

    layer: int
    """Its layer (0: the first)."""
    head: int
    """Its index in the layer."""
    kurtosis: float
    """The excess kurtosis of its vertical scores across steps (0 for a normal spread)."""
    steps: tuple[int, ...]
    """The steps with its largest vertical scores, largest first (at most 3)."""


@dataclass(frozen=True)
class Suppression:
    """Attention suppression and receiver heads of one trace on one model (see the module)."""

    model: str
    """The backend's name."""
    steps: int
    """The trace's steps (n)."""
    tokens: int
    """The response's tokens read."""
    kl: tuple[tuple[float | None, ...], ...]
    """n by n: row i, column j, the mean KL (nats) over step j's tokens with step i masked;
    None where j <= i or a step has no tokens."""
    receiver_heads: tuple[ReceiverHead, ...]
    """The heads with the largest kurtosis, largest first."""

    def rows(self) -> list[list[float | None]]:
        """``kl`` as lists."""
        return [list(row) for row in self.kl]

    def strongest(self, k: int = 10) -> list[tuple[int, int, float]]:
        """The ``k`` largest cells as ``(i, j, kl)``, largest first."""
        cells = [
            (i, j, value)
            for i, row in enumerate(self.kl)
            for j, value in enumerate(row)
            if value is not None
        ]
        return sorted(cells, key=lambda cell: -cell[2])[:k]


def step_of_tokens(
    offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> list[int]:
    """The step each token belongs to: the span holding the token's first character.

    A token that starts in no span (whitespace after the last) goes to the last step before
    it (or the first).
    """
    steps, step = [], 0
    for start, _ in offsets:
        while step + 1 < len(spans) and start >= spans[step + 1][0]:
            step += 1
        steps.append(step)
    return steps


def attention_suppression(
    trace: Trace,
    backend: ModelBackend,
    *,
    batch: int = 4,
    top_heads: int = TOP_HEADS,
    progress: Callable[[int, int], None] | None = None,
    stop: StopToken | None = None,
) -> Suppression:
    """Attention suppression between the steps of ``trace`` on ``backend``'s model.

    ``progress(done, total)`` is told after each batch of masked steps; once ``stop`` is set,
    no further batch runs and ``AttentionError`` says so (nothing is kept).

    Raises ``AttentionError`` for a backend whose weights are not in this process.
    """
    if backend.capabilities.weights is None:
        raise AttentionError(
            f"{backend.name} exposes no attention: attention suppression and receiver heads "
            "need a model loaded here (the embedded model, or transformers/<folder>), not a "
            "served one"
        )
    if not trace.segments:
        raise AttentionError("the trace has no steps to mask")
    weights = backend.capabilities.weights()
    ids, prompt, step_of = _layout(trace, weights)
    n = len(trace.segments)
    with weights.turn():
        kl = _suppression(weights.model, ids, prompt, step_of, n, (batch, progress, stop))
        heads = _receiver_heads(weights.model, ids, prompt, step_of, n, top_heads)
    return Suppression(backend.name, n, len(ids) - prompt, kl, heads)


def _layout(trace: Trace, weights: LocalWeights) -> tuple[list[int], int, list[int]]:
    """The token ids read, the prompt's length, and the step of each of the response's tokens.

    The prompt is the conversation before the response as an episode asks it
    (``prefix_prompt``), rendered as the backend renders it.
    """
    prompt = weights.render(prefix_prompt(trace, 0).messages)
    encoded = weights.tokenizer(
        trace.response, add_special_tokens=False, return_offsets_mapping=True
    )
    spans = [(segment.start, segment.end) for segment in trace.segments]
    return (
        [*prompt, *encoded["input_ids"]],
        len(prompt),
        step_of_tokens(encoded["offset_mapping"], spans),
    )


def _suppression(
    model: Any,
    ids: list[int],
    prompt: int,
    step_of: list[int],
    n: int,
    pace: _Pace,
    *,
    share_prefix: bool = True,
) -> tuple[tuple[float | None, ...], ...]:
    """The KL matrix; with ``share_prefix``, each batch starts from the unmasked run's cache.

    Masking step i changes nothing before step i's last token, so a batch's forward pass
    starts where its earliest-ending masked step ends, from the unmasked run's keys and values
    (cropped there, one copy per row), and reads the unmasked run's predictions before that.
    """
    import torch

    batch, progress, stop = pace
    total = len(ids)
    tokens = {step: [prompt + t for t, s in enumerate(step_of) if s == step] for step in range(n)}
    low = torch.finfo(torch.float32).min
    causal = torch.triu(torch.full((total, total), low), diagonal=1)
    tensor = torch.tensor([ids])
    with torch.inference_mode():
        unmasked = model(input_ids=tensor, use_cache=share_prefix)
        base = torch.log_softmax(unmasked.logits[0].float(), -1)
        kl: list[list[float | None]] = [[None] * n for _ in range(n)]
        masked_steps = [i for i in range(n - 1) if tokens[i]]
        for start in range(0, len(masked_steps), batch):
            if stop is not None and stop.stopped:
                raise AttentionError(
                    f"stopped after {start} of {len(masked_steps)} masked steps; nothing was kept"
                )
            chunk = masked_steps[start : start + batch]
            shared = min(tokens[i][-1] + 1 for i in chunk) if share_prefix else 0
            masks = causal[shared:].repeat(len(chunk), 1, 1, 1)
            for row, i in enumerate(chunk):
                first, last = tokens[i][0], tokens[i][-1] + 1
                masks[row, 0, last - shared :, first:last] = low
            logits = _masked_logits(model, tensor, masks, unmasked, shared)
            for row, i in enumerate(chunk):
                masked = torch.cat([base[:shared], torch.log_softmax(logits[row].float(), -1)])
                for j in range(i + 1, n):
                    where = [t - 1 for t in tokens[j]]  # the positions that predict j's tokens
                    if not where:
                        continue
                    p = base[where]
                    divergence = (p.exp() * (p - masked[where])).sum(-1).clamp(min=0)
                    kl[i][j] = float(divergence.mean())
            if progress is not None:
                progress(min(start + batch, len(masked_steps)), len(masked_steps))
    return tuple(tuple(row) for row in kl)


def _masked_logits(model: Any, tensor: Any, masks: Any, unmasked: Any, shared: int) -> Any:
    """The logits of positions ``shared`` on, one row per mask (the prefix from the cache)."""
    import torch

    rows = masks.shape[0]
    if shared == 0:
        return model(input_ids=tensor.repeat(rows, 1), attention_mask=masks).logits
    cache = copy.deepcopy(unmasked.cache)
    cache.crop(shared - tensor.shape[1])  # a negative count: the tokens removed from the end
    cache.batch_repeat_interleave(rows)
    positions = torch.arange(shared, tensor.shape[1])
    return model(
        input_ids=tensor[:, shared:].repeat(rows, 1),
        attention_mask=masks,
        cache=cache,
        position_ids=positions.repeat(rows, 1),
        cache_position=positions,
        use_cache=False,
    ).logits


def _receiver_heads(
    model: Any, ids: list[int], prompt: int, step_of: list[int], n: int, top: int
) -> tuple[ReceiverHead, ...]:
    import torch
    from scipy.stats import kurtosis

    order = torch.tensor([prompt + t for t in range(len(step_of))])
    member = torch.zeros((n, len(step_of)))
    for t, step in enumerate(step_of):
        member[step, t] = 1.0
    sizes = member.sum(1).clamp(min=1)
    previous = model.config._attn_implementation
    model.set_attn_implementation("eager")  # sdpa gives no attention weights
    try:
        with torch.inference_mode():
            attentions = model(input_ids=torch.tensor([ids]), output_attentions=True).attentions
    finally:
        model.set_attn_implementation(previous)
    heads = []
    for layer, weights in enumerate(attentions):
        response = weights[0][:, order][:, :, order].float()  # heads x tokens x tokens
        blocks = member @ response @ member.T / sizes[:, None] / sizes[None, :]  # heads x n x n
        for head in range(blocks.shape[0]):
            scores = [
                float(blocks[head, step + NEAR :, step].mean())
                for step in range(n)
                if step + NEAR < n
            ]
            if len(scores) < MIN_SCORES:
                continue
            spread = float(kurtosis(scores))
            if math.isfinite(spread):
                pointed = sorted(range(len(scores)), key=lambda s: -scores[s])[:3]
                heads.append(ReceiverHead(layer, head, spread, tuple(pointed)))
    return tuple(sorted(heads, key=lambda h: -h.kurtosis)[:top])
