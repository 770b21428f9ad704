"""Two sessions on one model: an intervention's first segment beside a 64-rollout job.

The workbench's case from issue 25: one browser session runs a step-values job (64 rollouts,
``AnalysisParams(budget=64)``) on the embedded model; another forces a segment of a trace on
the same loaded model. Both run as the workbench runs them: background jobs on the shared,
session-fair queue (``InterventionJob``, ``StepValuesJob``), the model from the shared pool.
The intervention's first new segment is timed from the click (the job queued) to the job's own
mark, solo (nothing else running) and beside the job (started once the job's first batch is
decoding); each intervention is stopped after its first segment. Before the transformers
backend took turns per decode step, the intervention waited for the job's whole batch call.

Goal (issue 25): beside the job, the first new segment arrives within 2x its solo time.
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import ROOT, main

from llenvs.analysis import AnalysisParams
from llenvs.core import Force
from llenvs.evaluation import BranchRequest
from llenvs.inference._backends.kv_sessions import KVSessionStore
from llenvs.traces import find_trace
from llenvs.ui.common import load_backend
from llenvs.workbench.jobs import InterventionJob, StepValuesJob
from llenvs.workbench.models import ModelChoice, ModelKind

HEADING = "## Fairness: an intervention beside a 64-rollout job"
SAMPLE = ROOT / "sample_traces" / "leg_counting-smollm2.jsonl"
LINE = "3"
AT = 1
FORCED = "Deer have 4 legs, so 12 deer have 48 legs. "
REPEAT = 3
GOAL = 2.0


def _first_segment(backend: Any, path: Path) -> float:
    """Seconds from queueing the intervention to its first new segment; then it is stopped."""
    parent = find_trace(path, LINE)
    job = InterventionJob(path, BranchRequest(parent, AT, Force(FORCED)), backend)
    while job.first_segment is None and job.running:
        time.sleep(0.005)
    job.stop()
    if not job.wait(900):
        raise RuntimeError("the intervention did not stop")
    if job.error is not None or job.first_segment is None or job.queued is None:
        raise RuntimeError(f"the intervention failed: {job.error}")
    return job.first_segment - job.queued


def _beside(backend: Any, path: Path, folder: Path) -> tuple[float, int]:
    """The first segment beside a running 64-rollout job; and the job's tokens by then."""
    trace = find_trace(path, "1")
    job = StepValuesJob(folder / "other.jsonl", trace, backend, AnalysisParams(budget=64))
    while job.tokens() == 0 and job.running:  # its first batch is decoding
        time.sleep(0.005)
    if not job.running:
        raise RuntimeError(f"the 64-rollout job ended before the intervention: {job.error}")
    seconds = _first_segment(backend, path)
    tokens = job.tokens()
    job.stop()
    job.wait(900)
    return seconds, tokens


def run() -> str:
    """Time the intervention's first segment solo and beside the job; the docs section."""
    folder = Path(tempfile.mkdtemp(prefix="bench-fairness-"))
    os.environ["LLENVS_TRACES_DIR"] = str(folder)
    path = folder / "lc.jsonl"
    shutil.copy(SAMPLE, path)
    shutil.copy(SAMPLE, folder / "other.jsonl")
    backend: Any = load_backend(ModelChoice(ModelKind.EMBEDDED))  # the app's shared model
    _first_segment(backend, path)  # warm-up: the first call decodes the vocabulary for healing
    solo, beside, tokens = [], [], []
    for _ in range(REPEAT):
        backend.sessions = KVSessionStore(backend.max_sessions)  # a cold intervention
        solo.append(_first_segment(backend, path))
        backend.sessions = KVSessionStore(backend.max_sessions)
        seconds, made = _beside(backend, path, folder)
        beside.append(seconds)
        tokens.append(made)
    alone, shared = statistics.median(solo), statistics.median(beside)
    ratio = shared / alone
    lines = [
        HEADING,
        "",
        "Command: `.venv/bin/python bench/fairness.py` — run "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPU cores shared with other work.",
        "",
        "Embedded SmolLM2-135M-Instruct, float32, this machine (2 CPU "
        "cores, shared with other work). Session A runs a step-values job of 64 rollouts on "
        f"line 1 of `sample_traces/leg_counting-smollm2.jsonl`; session B forces segment {AT} "
        f"of line {LINE} on the same loaded model, timed from the click (job queued) to its "
        f"first new segment; medians of {REPEAT} runs, each intervention cold (an empty "
        "KV-session store).",
        "",
        "| intervention | first new segment (s) | runs (s) |",
        "|---|---|---|",
        f"| solo | {alone:.2f} | {', '.join(f'{s:.2f}' for s in solo)} |",
        f"| beside the 64-rollout job | {shared:.2f} | {', '.join(f'{s:.2f}' for s in beside)} |",
        "",
        f"- Beside the job the first segment takes {ratio:.2f}x its solo time (goal: at most "
        f"{GOAL:.0f}x: {'met' if ratio <= GOAL else 'not met'}); the job generated "
        f"{statistics.median(tokens):.0f} tokens (median) by then, so both ran at once.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main(run, HEADING, __doc__)
