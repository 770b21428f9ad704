"""How the suite compares what a model computed: ids and texts exactly, numbers within a tolerance.

Token ids, texts, answers and verdicts are compared exactly. Log-probabilities, logits and
scores a model computed in float32 are compared within ``FLOAT_TOLERANCE``, the one constant
for the whole suite. float32 matmuls are not bitwise stable: the order in which a kernel sums
depends on the batch row, the padded width and the CPU (AVX-512 on AMD EPYC, AMX on Intel), so
the same log-probability of the same token computed in two batches was seen to differ by
2.4e-6 (``-0.4355543553829193`` against ``-0.4355519711971283`` on an AMD EPYC). The tolerance
leaves a margin of 40 over that, and stays far below what a real change does (a different
token, or a shifted cache row, moves a log-probability by more than 1e-2).

Two implementations of one model (the vLLM server's CPU kernels against the transformers
backend) differ by more than a summing order: other kernels, fused and ordered their own way.
Their numbers are compared within ``CROSS_IMPLEMENTATION_TOLERANCE`` (5e-3), and so are two
scores the server made in separate calls (other batches on the server); still below a real
change.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from llenvs.core import Generation

FLOAT_TOLERANCE = 1e-4
"""How far two float32 computations of one log-probability or score may differ (see above)."""

CROSS_IMPLEMENTATION_TOLERANCE = 5e-3
"""How far vLLM's and transformers' float32 computations of one number may differ (see above)."""


def close(value: float | Sequence[float] | None) -> object:
    """``value`` as ``pytest.approx`` within ``FLOAT_TOLERANCE`` (None stays None)."""
    return None if value is None else pytest.approx(value, abs=FLOAT_TOLERANCE)


def assert_same_generations(got: Sequence[Generation], want: Sequence[Generation]) -> None:
    """Row by row: the same text, token ids and finish reason; log-probabilities within
    ``FLOAT_TOLERANCE``."""
    assert len(got) == len(want)
    for row, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        assert mine.token_ids == theirs.token_ids, row
        assert mine.text == theirs.text, row
        assert mine.finish_reason == theirs.finish_reason, row
        assert (mine.logprobs is None) == (theirs.logprobs is None), row
        if mine.logprobs is not None:
            assert mine.logprobs == close(theirs.logprobs), row
