"""``llenvs agreement``: labellers and PRMs against the label store, from the command line.

The ProcessBench test imports ``shared/external/step_traces.jsonl`` with ``llenvs import
processbench`` (its labels go to the store: ProcessBench rows under ``processbench``, the
PRM800K rows under ``prm800k``) and checks that ArithmeticPRM's agreement with each labeller is
what ``bench/prm.py``'s ``evaluate`` computes from the raw rows of that labeller's dataset.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from llenvs.cli.main import main
from llenvs.rewards import ArithmeticPRM
from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
from llenvs.traces.labels import StepLabel, append_labels
from tests.conftest import EXTERNAL, REPO, read_jsonl

STEP_FILE = EXTERNAL / "step_traces.jsonl"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """``bench/prm.py`` as a module (it imports ``bench_common`` as a sibling)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_prm", REPO / "bench" / "prm.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up by name
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module


def _agreement(capsys: pytest.CaptureFixture[str], *args: object) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["agreement", *(str(a) for a in args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _trace(texts: list[str], scores: list[float] | None = None) -> Trace:
    segments, start = [], 0
    for i, text in enumerate(texts):
        stored = {} if scores is None else {"p": scores[i]}
        segments.append(SegmentRecord(i, start, start + len(text), text, prm_scores=stored))
        start += len(text)
    task = TaskRecord("e", "a", {}, 0, "What is 2 + 2?")
    return Trace(task=task, response="".join(texts), segments=tuple(segments))


def test_arithmetic_agreement_with_processbench_labels_equals_the_bench(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bench: ModuleType
) -> None:
    out = tmp_path / "steps.jsonl"
    assert main(["import", "processbench", str(STEP_FILE), "-o", str(out)]) == 0
    found = _agreement(
        capsys, out, "--labels", "processbench", "--labels", "prm800k", "--prm", "arithmetic",
        "--resamples", "200",
    )  # fmt: skip
    rows = read_jsonl("step_traces.jsonl")
    prm = ArithmeticPRM()
    # like with like: each labeller's traces are the rows of its dataset
    for labeller, dataset in (("processbench", "processbench/"), ("prm800k", "prm800k")):
        picked = [r for r in rows if r["dataset"].startswith(dataset)]
        expected = bench.evaluate(
            labeller, picked, [prm.score_steps(r["problem"], r["steps"]) for r in picked]
        )
        [got] = [p for p in found["prms"] if p["labeller"] == labeller]
        assert (got["prm"], got["source"], got["traces"]) == (
            "arithmetic",
            "scored now",
            len(picked),
        )
        for field in ("accuracy", "accuracy_error", "accuracy_correct", "f1", "auroc"):
            want = getattr(expected, field)
            value = got[field]["value"]
            assert value is None if want != want else value == pytest.approx(want), field
        labelled = sum(label is not None for r in picked for label in r["labels"])
        assert found["labellers"][labeller]["steps_labelled"] == labelled
    assert [p["traces"] for p in found["prms"]] == [188, 9]
    assert found["labellers"]["processbench"]["traces_with_error"] == sum(
        r["first_error_step"] != -1 for r in rows if r["dataset"].startswith("processbench/")
    )
    [pair] = found["pairs"]  # the two labellers share no trace
    assert (pair["traces"], pair["kappa"]["value"]) == (0, None)
    processbench = found["prms"][0]
    assert processbench["f1"]["low"] <= processbench["f1"]["value"] <= processbench["f1"]["high"]


def test_stored_scores_against_two_labellers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    one = _trace(["2 + 2 = 4. ", "So 5. ", "Done."], [0.9, 0.2, 0.6])
    two = _trace(["2 + 2 = 4. ", "So 4."], [0.8, 0.7])
    write_traces(path, [one, two])
    labels = [
        (one.trace_id, 0, 1),
        (one.trace_id, 1, -1),
        (two.trace_id, 0, 1),
        (two.trace_id, 1, 1),
    ]
    append_labels(path, [StepLabel(t, s, label, "ada") for t, s, label in labels])
    append_labels(path, [StepLabel(t, s, label, "bo") for t, s, label in labels])
    append_labels(path, [StepLabel(two.trace_id, 1, -1, "bo"), StepLabel(two.trace_id, 1, 1, "bo")])
    found = _agreement(capsys, path, "--labels", "ada", "--labels", "bo", "--prm", "p")
    [pair] = found["pairs"]
    assert (pair["steps"], pair["kappa"]["value"], pair["first_error"]["value"]) == (4, 1.0, 1.0)
    assert [p["labeller"] for p in found["prms"]] == ["ada", "bo"]
    prm = found["prms"][0]
    assert (prm["prm"], prm["source"], prm["traces"]) == ("p", "stored", 2)
    # one: error at 1, first score below 0.5 at 1; two: no error, none below 0.5
    assert (prm["f1"]["value"], prm["accuracy"]["value"], prm["auroc"]["value"]) == (1.0, 1.0, 1.0)
    assert prm["disagreements"] == []
    assert found["labellers"]["ada"] == {
        "traces": 2,
        "traces_with_error": 1,
        "steps_labelled": 4,
        "steps": 5,
        "coverage": 0.8,
        "counts": {"-1": 1, "0": 0, "1": 3},
    }


def test_text_output_has_a_table_per_labeller_pair_and_prm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    trace = _trace(["2 + 2 = 5. ", "So 5."])
    write_traces(path, [trace])
    append_labels(
        path, [StepLabel(trace.trace_id, 0, -1, "ada"), StepLabel(trace.trace_id, 1, 1, "bo")]
    )
    assert (
        main(["agreement", str(path), "--labels", "ada", "--labels", "bo", "--prm", "arithmetic"])
        == 0
    )
    text = capsys.readouterr().out
    assert "ada vs bo: 1 traces both labelled, 0 steps both labelled" in text
    assert "arithmetic (scored now) vs ada: 1 traces (1 with an error)" in text
    assert "step AUROC" in text and "ProcessBench F1" in text and "calibration" in text


def test_judge_scores_now_with_the_model_of_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, replies = tmp_path / "t.jsonl", tmp_path / "replies.jsonl"
    trace = _trace(["2 + 2 = 4. ", "So 5."])
    write_traces(path, [trace])
    append_labels(
        path, [StepLabel(trace.trace_id, 0, 1, "ada"), StepLabel(trace.trace_id, 1, -1, "ada")]
    )
    replies.write_text('"Yes."\n"No."\n')
    found = _agreement(
        capsys, path, "--labels", "ada", "--prm", "judge",
        "--backend", "scripted", "--responses", replies,
    )  # fmt: skip
    [prm] = found["prms"]
    assert (prm["source"], prm["accuracy"]["value"], prm["auroc"]["value"]) == (
        "scored now",
        1.0,
        1.0,
    )
    assert main(["agreement", str(path), "--labels", "ada", "--prm", "judge"]) == 2
    assert "--prm judge asks a model: give --backend NAME" in capsys.readouterr().err


def test_a_labeller_without_labels_or_an_unknown_prm_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    trace = _trace(["One. ", "Two."], [0.5, 0.5])
    write_traces(path, [trace])
    assert main(["agreement", str(path), "--labels", "ada"]) == 2
    assert f"{tmp_path / 't.labels.jsonl'} holds no labels" in capsys.readouterr().err
    append_labels(
        path, [StepLabel(trace.trace_id, 0, 1, "ada"), StepLabel(trace.trace_id, 0, 1, "bo")]
    )
    assert main(["agreement", str(path), "--labels", "cy"]) == 2
    assert "no labels by 'cy'" in (err := capsys.readouterr().err) and "are ada, bo" in err
    assert main(["agreement", str(path), "--labels", "ada", "--prm", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown prm 'nope'" in err and "arithmetic" in err and ", p," in err  # p: stored
