"""Importing a large Inspect log: time and peak memory, against Inspect reading the log alone.

A log of ``SAMPLES`` samples is written with Inspect's own writer (``write_eval_log``), each
sample's answer a reasoning block of ``STEPS`` sentences and a short text. Three measurements,
each in a fresh process (its peak resident memory is the process's own, ``ru_maxrss``):

- the peer: ``inspect_ai.log.read_eval_log`` reading the whole log (what a script holding the
  log would do first);
- Inspect streaming the samples (``read_eval_log_samples``), without converting them;
- ``llenvs import inspect`` (``InspectImport``): streaming, converting and segmenting every
  sample, and writing the traces.

Goal (issue 40): the import holds memory bounded by a sample, not by the log: its peak stays
near the streaming reader's, below the whole-log reader's.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench_common import ROOT, main

HEADING = "## Importing an Inspect log"
SAMPLES = 2000
STEPS = 100

MEASURE = """
import json, resource, sys, time
started = time.perf_counter()
kind, log = sys.argv[1], sys.argv[2]
if kind == "read":
    from inspect_ai.log import read_eval_log
    count = len(read_eval_log(log).samples)
elif kind == "stream":
    from inspect_ai.log import read_eval_log_samples
    count = sum(1 for _ in read_eval_log_samples(log, all_samples_required=False))
else:
    from llenvs.traces import write_traces
    from llenvs.traces.importers import InspectImport
    count = write_traces(sys.argv[3], InspectImport(log))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": time.perf_counter() - started, "peak_mb": peak, "count": count}))
"""


def _write_log(path: Path) -> None:
    """The log: ``SAMPLES`` samples of a ``STEPS``-sentence reasoning block and an answer."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageUser,
        ContentReasoning,
        ContentText,
        ModelOutput,
    )
    from inspect_ai.scorer import Score

    samples = []
    for n in range(SAMPLES):
        question = f"How many legs do {n} cows have?"
        thinking = " ".join(
            f"Step {k}: {n} cows and {k} more have {4 * (n + k)} legs." for k in range(STEPS)
        )
        text = f"The answer is {4 * n}."
        answer = ChatMessageAssistant(
            content=[ContentReasoning(reasoning=thinking), ContentText(text=text)]
        )
        samples.append(
            EvalSample(
                id=n,
                epoch=1,
                input=question,
                target=str(4 * n),
                messages=[ChatMessageUser(content=question), answer],
                output=ModelOutput.from_content("mockllm/model", text),
                scores={"match": Score(value="C")},
            )
        )
    spec = EvalSpec(
        created=datetime.now(UTC).isoformat(),
        task="legs",
        model="mockllm/model",
        dataset=EvalDataset(name="legs", samples=SAMPLES, sample_ids=list(range(SAMPLES))),
        config=EvalConfig(),
    )
    write_eval_log(EvalLog(eval=spec, status="success", samples=samples), str(path))


def _measure(kind: str, log: Path, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, kind, str(log), str(out)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def run() -> str:
    """Write the log, measure the three, and give the section."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "big.eval"
        started = time.perf_counter()
        _write_log(log)
        written = time.perf_counter() - started
        size = log.stat().st_size / 2**20
        rows = [
            ("`read_eval_log` (the whole log, Inspect)", _measure("read", log, Path(folder) / "x")),
            (
                "`read_eval_log_samples` (streamed, Inspect)",
                _measure("stream", log, Path(folder) / "x"),
            ),
            (
                "`llenvs import inspect` (streamed, converted, segmented, written)",
                _measure("import", log, Path(folder) / "traces.jsonl"),
            ),
        ]
    peer = rows[0][1]
    lines = [
        HEADING,
        "",
        f"`bench/inspect_import.py`, on {platform.machine()} (Python {platform.python_version()},"
        f" a shared machine). A log of {SAMPLES:,} samples, each a reasoning block of {STEPS} "
        f"sentences and an answer, written with Inspect's `write_eval_log` ({size:.1f} MB "
        f"compressed, {written:.0f} s); each reader in a fresh process, its peak resident "
        "memory its own (`ru_maxrss`, the Python interpreter and its imports included).",
        "",
        "| reader | samples | time (s) | peak memory (MB) | time / peer | memory / peer |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in rows:
        lines.append(
            f"| {name} | {int(row['count']):,} | {row['seconds']:.1f} | {row['peak_mb']:.0f} | "
            f"{row['seconds'] / peer['seconds']:.2f}x | {row['peak_mb'] / peer['peak_mb']:.2f}x |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main(run, HEADING, __doc__)
