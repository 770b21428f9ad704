"""Both precisions for the exactness tests, forced rather than left to the machine.

float32 (the default on every CPU) gives the same tokens: a row's token ids do not depend on the
batch it ran in, nor on whether its prefix was prefilled or decoded; its log-probabilities agree
within ``tests.floats.FLOAT_TOLERANCE`` (float32 sums are not bitwise stable across batch rows,
shapes and CPUs). bfloat16 is exact only up to rounding, as
``DType`` in ``llenvs.inference._backends.transformers_loading`` states: two rows may part where
the model's two best tokens are within rounding of each other, never where it is sure. The
tests run on CPUs with and without native bfloat16, so they force each precision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import torch

from llenvs.core import Generation
from llenvs.inference._backends.transformers_backend import TransformersBackend
from llenvs.inference._backends.transformers_loading import make_backend

PRECISIONS = ("float32", "bfloat16")
NEAR_TIE = math.log(0.65)
"""A token chosen with a higher log-probability was no near-tie: the model was sure of it."""
ROUNDING = 0.5
"""How far two computations of one log-probability may differ in bfloat16 before they part:
bfloat16 keeps 8 significant bits, so a logit near 20 rounds by about 0.1, and the embedded
model's log-probabilities computed in two layouts were seen to differ by up to 0.21."""


@cache
def _model_in(model: Any, precision: str) -> Any:
    """The embedded model as ``dtype=precision`` loads it (what a user who asks gets)."""
    if precision == "float32" and model.dtype == torch.float32:
        return model
    return make_backend(dtype=precision, progress=False).model  # type: ignore[arg-type]


def backend_in(embedded_backend: TransformersBackend, precision: str) -> TransformersBackend:
    """The embedded model in ``precision``, with an empty session store."""
    model = _model_in(embedded_backend.model, precision)
    return TransformersBackend(model, embedded_backend.tokenizer, name=f"transformers/{precision}")


def first_difference(got: Sequence[int], want: Sequence[int]) -> int | None:
    """The first index where two token sequences differ; None when equal."""
    for index, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return index
    return None if len(got) == len(want) else min(len(got), len(want))


def assert_rows_agree(
    got: Sequence[Generation],
    want: Sequence[Generation],
    precision: str,
    *,
    greedy: bool = True,
) -> None:
    """float32: the same token ids row by row. bfloat16: the same up to rounding.

    In bfloat16 each row's log-probabilities agree with its reference's to ``ROUNDING`` until
    the rows part, if they do, and (greedy) they part only at a near-tie: both rows' chosen
    tokens there below ``NEAR_TIE``. A broken cache or a misaligned row fails both.
    """
    assert len(got) == len(want)
    for row, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        if precision == "float32":
            assert mine.token_ids == theirs.token_ids, row
            continue
        parted = first_difference(mine.token_ids, theirs.token_ids)
        end = len(mine.token_ids) if parted is None else parted
        assert mine.logprobs is not None and theirs.logprobs is not None, "ask for logprobs"
        for index in range(min(end, len(theirs.logprobs))):
            assert abs(mine.logprobs[index] - theirs.logprobs[index]) < ROUNDING, (row, index)
        if parted is not None and greedy and parted < min(len(mine.logprobs), len(theirs.logprobs)):
            assert mine.logprobs[parted] < NEAR_TIE and theirs.logprobs[parted] < NEAR_TIE, (
                f"row {row} parts at token {parted}, where the model was sure"
            )
