"""``llenvs analyze`` plans on the imported R1 trace and warns, on stderr, what the plan measures.

The sample trace (line 3, 321 steps) was written by R1-Distill-Llama-8B, which also made its
published values; the rollouts here are another model's, capped at 256 tokens, where the trace
wrote thousands after most boundaries. Both are said under the plan, before any rollout.
"""

from __future__ import annotations

import json
import shutil

import pytest

from llenvs.analysis import analysis_path
from llenvs.cli.main import main
from llenvs.traces import read_traces
from tests.app.test_pages import REPO

R1 = REPO / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"


@pytest.fixture
def r1(tmp_path):
    """A copy of the R1 sample with its published values, and a scripted model's answer."""
    shutil.copy(R1, tmp_path / "r1.jsonl")
    shutil.copy(analysis_path(R1), analysis_path(tmp_path / "r1.jsonl"))
    (tmp_path / "answers.jsonl").write_text(json.dumps("So \\boxed{5}.") + "\n")
    return tmp_path


def _analyze(folder, *options):
    return main(
        [
            "analyze",
            str(folder / "r1.jsonl"),
            *("--trace", "3", "--backend", "scripted"),
            *("--responses", str(folder / "answers.jsonl")),
            *("--budget", "2", "--tokens-per-second", "100", "--no-progress", *options),
        ]
    )


def test_the_plan_says_whose_values_these_are_and_how_far_256_tokens_reach(r1, capsys):
    trace = list(read_traces(r1 / "r1.jsonl"))[2]
    sizes = [-(-len(s.text) // 4) for s in trace.segments]  # no token ids: 4 characters each
    written = [sum(sizes[b:]) for b in range(len(sizes))]
    median, longest = sorted(written)[(len(written) - 1) // 2], max(written)
    assert _analyze(r1) == 0
    out, err = capsys.readouterr()
    assert out.startswith("planned: up to 2 rollouts at 321 boundaries")
    warnings = err.splitlines()
    assert warnings[0] == (
        "llenvs analyze: warning: The published values came from deepseek-r1-distill-llama-8b, "
        "the model that wrote this trace: rollouts with scripted measure scripted's chance of a "
        "right answer from these prefixes, not deepseek-r1-distill-llama-8b's."
    )
    reached = sum(tokens <= 256 for tokens in written)
    assert warnings[1].startswith(
        f"llenvs analyze: warning: 256 tokens reach the end from {reached} of 321 boundaries; "
        f"the trace wrote a median of {median:,} tokens after a boundary, at most {longest:,}"
    )
    assert warnings[1].endswith(
        f"--max-tokens {longest} reaches the end from every boundary, as far as the trace went."
    )
    assert _analyze(r1, "--max-tokens", str(longest)) == 0
    err = capsys.readouterr().err
    assert "reach the end" not in err and "chance of a right answer" in err
