"""Issue 15, provenance: a trace records which PRM scored it, and ``llenvs intervene`` without
``--prm`` rescores a branch with that PRM (an explicit ``--prm`` still wins).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.traces import SCHEMA_VERSION, read_branches, read_traces, write_traces

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]
ARITHMETIC = PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")


def _run(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def scored(tmp_path, capsys) -> Path:
    """Two tasks evaluated by the scripted backend with ``--prm arithmetic``."""
    out = tmp_path / "scored.jsonl"
    status, _, err = _run(
        capsys,
        "evaluate",
        *ENV,
        "--num-tasks",
        "2",
        "--segmenter",
        "sentence",
        "--prm",
        "arithmetic",
        "--backend",
        "scripted",
        "--responses",
        EXAMPLES / "leg_counting_responses.jsonl",
        "-o",
        out,
        "--no-progress",
        "--no-log",
    )
    assert status == 0, err
    return out


def _intervene(capsys, path: Path, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    fix = tmp_path / "fix.jsonl"
    fix.write_text(json.dumps("So 6 × 4 = 24 in all. <answer>24</answer>") + "\n")
    return _run(
        capsys,
        "intervene",
        path,
        "--trace",
        "2",
        "--at",
        "1",
        "--resample",
        "--backend",
        "scripted",
        "--responses",
        fix,
        "--no-progress",
        *extra,
    )


def test_evaluate_with_a_prm_records_it_in_every_trace(scored):
    traces = list(read_traces(scored))
    assert [t.run.spec.prm for t in traces] == [ARITHMETIC, ARITHMETIC]
    stored = json.loads(scored.read_text().splitlines()[0])
    assert stored["schema_version"] == SCHEMA_VERSION and stored["run"]["spec"]["prm"] == (
        ARITHMETIC.to_record()
    )


def test_evaluate_without_a_prm_records_none(tmp_path, capsys):
    out = tmp_path / "plain.jsonl"
    status, _, err = _run(
        capsys,
        "evaluate",
        *ENV,
        "--num-tasks",
        "1",
        "--backend",
        "scripted",
        "--responses",
        EXAMPLES / "leg_counting_responses.jsonl",
        "-o",
        out,
        "--no-progress",
        "--no-log",
    )
    assert status == 0, err
    [trace] = read_traces(out)
    assert trace.run.spec.prm is None


def test_intervene_without_prm_rescores_with_the_recorded_prm(scored, tmp_path, capsys):
    status, out, err = _intervene(capsys, scored, tmp_path)
    assert status == 0, err
    assert "scoring the branch with the trace's own PRM: arithmetic" in err
    [child] = read_branches(scored)
    assert child.run.spec.prm == ARITHMETIC
    assert child.segments and all("prm" in s.prm_scores for s in child.segments)
    assert child.segments[-2].prm_scores["prm"] == 1.0  # "6 × 4 = 24" checked, and right
    assert "prm=" in out


def test_an_explicit_prm_wins_and_none_scores_with_none(scored, tmp_path, capsys):
    status, _, err = _intervene(capsys, scored, tmp_path, "--prm", "none")
    assert status == 0, err
    [child] = read_branches(scored)
    assert child.run.spec.prm is None
    assert all(not s.prm_scores for s in child.segments)


def test_a_recorded_prm_that_cannot_be_made_here_is_named(scored, tmp_path, capsys):
    prm = PRMSpec(
        PRMKind.TRANSFORMERS,
        "no/such/prm-folder",
        convention="math-shepherd",
        class_name="TransformersPRM",
    )
    traces = [
        dataclasses.replace(
            t, run=dataclasses.replace(t.run, spec=dataclasses.replace(t.run.spec, prm=prm))
        )
        for t in read_traces(scored)
    ]
    moved = tmp_path / "moved.jsonl"
    write_traces(moved, traces)
    status, _, err = _intervene(capsys, moved, tmp_path)
    assert status == 2
    assert "the trace was scored by the PRM 'transformers/no/such/prm-folder'" in err
    assert "convention math-shepherd" in err and "cannot be made here" in err
    assert "--prm" in err
    assert list(read_branches(moved)) == []  # nothing written
