"""A served PRM's throughput against the same weights in-process: VllmPRM, TransformersPRM.

Builds the tests' tiny random ``Qwen2ForProcessRewardModel`` (2 layers, hidden size 128, the
embedded model's tokenizer plus ``<extra_0>``), serves it with the vLLM CPU server the tests use
(``tests/vllm_server.py``, float32, ``--runner pooling``), scores the tests' 20 traces with both
(best of ``--repeat`` after a warm-up) and prints steps/s, their ratio and the largest score
difference. Prints only; writes nothing.

    .venv/bin/python bench/prm_served.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench_common import ROOT, best_seconds

sys.path.insert(0, str(ROOT))
from llenvs.rewards.prm import TransformersPRM, VllmPRM
from tests.rewards.test_vllm_prm import (
    TINY_NAME,
    build_tiny_prm,
    sample_traces,
    tiny_prm_server,
)


def main() -> None:
    """Build, serve, time both, print one markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=20, help="how many traces to score")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (best kept)")
    parser.add_argument("--in-flight", type=int, default=8, help="VllmPRM requests at once")
    parser.add_argument("--batch-size", type=int, default=8, help="TransformersPRM traces/pass")
    args = parser.parse_args()

    traces = sample_traces(args.traces)
    steps = sum(len(s) for _, s in traces)
    with tempfile.TemporaryDirectory(prefix="tiny-prm-") as temporary:
        folder = Path(temporary)
        separator = build_tiny_prm(folder)
        local = TransformersPRM.from_pretrained(
            folder, convention="qwen2.5-math-prm", trust_remote_code=True,
            batch_size=args.batch_size,
        )  # fmt: skip
        server = tiny_prm_server(folder, separator)
        server.start()
        try:
            served = VllmPRM(TINY_NAME, server.base_url, max_in_flight=args.in_flight)
            served_scores = served.score_traces(traces)
            served_s = best_seconds(lambda: served.score_traces(traces), args.repeat)
        finally:
            server.stop()
        local_scores = local.score_traces(traces)
        local_s = best_seconds(lambda: local.score_traces(traces), args.repeat)
    gap = max(
        abs(a - b)
        for s, t in zip(served_scores, local_scores, strict=True)
        for a, b in zip(s, t, strict=True)
    )
    print(f"## Served PRM throughput ({len(traces)} traces, {steps} steps, tiny random PRM)\n")
    print("| PRM | seconds | steps/s | vs in-process |")
    print("|---|---:|---:|---:|")
    print(
        f"| VllmPRM (vLLM CPU server, {args.in_flight} in flight) | {served_s:.3f} | "
        f"{steps / served_s:.0f} | {local_s / served_s:.2f}x |"
    )
    print(
        f"| TransformersPRM (in-process, batch {args.batch_size}) | {local_s:.3f} | "
        f"{steps / local_s:.0f} | 1.00x |"
    )
    print(f"\nlargest score difference: {gap:.2e}")


if __name__ == "__main__":
    main()
