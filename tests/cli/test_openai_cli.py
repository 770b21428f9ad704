"""``llenvs evaluate --backend openai/<model> --base-url URL``, then ``intervene`` on its trace.

The trace records the server (not the key), so ``intervene`` reaches the same server without
being told; the key is in no file the commands wrote, nor in their output.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from llenvs.inference._backends.embedded_model import embedded_model_path
from llenvs.traces import read_branches, read_traces
from tests.cli.test_commands import LLENVS

pytestmark = pytest.mark.vllm

SECRET = "sk-llenvs-test-secret-4242"


def _llenvs(*args, cwd):
    env = {**os.environ, "COLUMNS": "120", "OPENAI_API_KEY": SECRET}
    done = subprocess.run(
        [str(LLENVS), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, f"llenvs {args} failed ({done.returncode}):\n{done.stderr}"
    return done


def test_evaluate_on_a_vllm_server_then_intervene_on_the_same_server(vllm_server, tmp_path):
    out = tmp_path / "runs.jsonl"
    folder = embedded_model_path(progress=False)
    first = _llenvs(
        "evaluate",
        "--env",
        "leg_counting",
        "--num-tasks",
        "2",
        "--max-tokens",
        "32",
        "--backend",
        "openai/smollm2",
        "--base-url",
        vllm_server.base_url,
        "--tokenizer",
        folder,
        "--no-progress",
        "--log-dir",
        tmp_path / "logs",
        "-o",
        out,
        cwd=tmp_path,
    )
    traces = list(read_traces(out))
    assert [t.task.task_index for t in traces] == [0, 1]
    assert all(t.error is None and t.response for t in traces)
    run = traces[0].run
    assert run.model_name == "openai/smollm2"
    assert run.spec.model.base_url == vllm_server.base_url
    assert run.spec.model.tokenizer == str(folder)

    second = _llenvs(
        "intervene", out, "--trace", "1", "--at", "1", "--complete", "--no-progress", cwd=tmp_path
    )
    (child,) = list(read_branches(out))
    assert child.error is None and child.run.model_name == run.model_name
    assert child.response.startswith(traces[0].segments[0].text)

    # Made again from the record alone (the server, the tokenizer, greedy sampling): identical.
    reruns = [
        _llenvs("rerun", out, "--trace", which, "--no-progress", cwd=tmp_path)
        for which in ("1", child.trace_id)
    ]
    for done, trace in zip(reruns, (traces[0], child), strict=True):
        assert done.stdout.splitlines()[-1] == (
            f"identical: {len(trace.segments)} segments, the same text"
        ), done.stdout

    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) >= 3  # traces, branches, event log
    for path in written:
        assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
    for done in (first, second, *reruns):
        assert SECRET not in done.stdout + done.stderr
