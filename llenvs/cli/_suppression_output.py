"""``llenvs analyze FILE --trace N --suppression``: attention suppression and receiver heads.

On a model loaded here (``--model``/``--backend``: the trace's own by default; the embedded
model, ``transformers/<folder>``), ``attention_suppression`` masks each step from every later
token and measures, for each later step, the mean KL divergence of the model's next-token
distributions over its tokens; and lists the heads whose attention from later steps falls on a
few steps (receiver heads, by kurtosis). A served model is refused by name. Text: the strongest
cells and the receiver heads with the steps they point at. ``--json``: one object, ``{"kl": n
lists of n numbers (null where j <= i), "receiver_heads": [{"layer", "head", "kurtosis",
"steps"}], "model", "steps", "tokens", "trace_id"}``.

Example:
    >>> from llenvs.analysis.instruments import ReceiverHead, Suppression
    >>> heads = (ReceiverHead(3, 1, 2.0, (0,)),)
    >>> found = Suppression("m", 2, 5, ((None, 0.5), (None, None)), heads)
    >>> suppression_json("t", found)["receiver_heads"]
    [{'layer': 3, 'head': 1, 'kurtosis': 2.0, 'steps': [0]}]

"""

from __future__ import annotations

import json
from typing import Any

from llenvs.analysis.instruments import MIN_SCORES, NEAR, Suppression

__all__ = ["print_suppression", "suppression_json"]

SHOWN = 10
"""How many of the largest cells and receiver heads the text output lists."""


def suppression_json(trace_id: str, found: Suppression) -> dict[str, Any]:
    """The JSON object ``--json`` prints (see the module)."""
    return {
        "trace_id": trace_id,
        "model": found.model,
        "steps": found.steps,
        "tokens": found.tokens,
        "kl": found.rows(),
        "receiver_heads": [
            {"layer": h.layer, "head": h.head, "kurtosis": h.kurtosis, "steps": list(h.steps)}
            for h in found.receiver_heads
        ],
    }


def print_suppression(trace_id: str, found: Suppression, *, as_json: bool) -> None:
    """Print the suppression matrix and the receiver heads: JSON, or the strongest of each."""
    if as_json:
        print(json.dumps(suppression_json(trace_id, found), ensure_ascii=False, allow_nan=False))
        return
    print(
        f"Attention suppression on {found.model}: {found.steps} steps, {found.tokens} response "
        "tokens; cell (i, j): the mean KL (nats) of step j's next-token distributions with "
        "step i masked, a change in the model's reading, not an effect on the answer"
    )
    for i, j, value in found.strongest(SHOWN):
        print(f"  step {i} → step {j}: {value:.3f}")
    if not found.receiver_heads:
        print(
            f"receiver heads: none listed: a head's spread is scored over the steps at least "
            f"{NEAR} before the end, at least {MIN_SCORES} of them, so a trace needs "
            f"{MIN_SCORES + NEAR} steps (this one has {found.steps})"
        )
    for head in found.receiver_heads:
        steps = ", ".join(map(str, head.steps))
        print(
            f"  receiver head layer {head.layer} head {head.head}: kurtosis {head.kurtosis:.2f}, "
            f"points at steps {steps}"
        )
