"""Home's import box takes Thought Anchors data as a folder path or as a ``.zip`` of folders."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from llenvs.analysis import analysis_path, read_published
from llenvs.analysis.sidecar import ThoughtAnchorsError
from llenvs.traces import read_traces
from llenvs.workbench.files import import_into
from tests.conftest import EXTERNAL

INCORRECT = (
    EXTERNAL / "thought_anchors" / "deepseek-r1-distill-llama-8b" / "incorrect_base_solution"
)


def test_a_folder_path_imports_with_arithmetic_scores_and_published_values(tmp_path):
    outcome = import_into(tmp_path, "thought-anchors", INCORRECT / "problem_2189")
    assert outcome.path.name == "imported-problem_2189.jsonl" and outcome.count == 1
    [trace] = read_traces(outcome.path)
    assert len(trace.segments) == 24 and all("prm" in s.prm_scores for s in trace.segments)
    [published] = read_published(analysis_path(outcome.path), trace.trace_id)
    assert len(published.tallies) == 24


def test_a_zip_of_problem_folders_imports_every_folder(tmp_path):
    archive = tmp_path / "ta.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name in ("problem_2189", "problem_2236"):
            for file in (INCORRECT / name).iterdir():
                zipped.write(file, f"model-x/incorrect_base_solution/{name}/{file.name}")
    folder = tmp_path / "traces"
    folder.mkdir()
    outcome = import_into(folder, "thought-anchors", archive, score_arithmetic=False)
    traces = list(read_traces(outcome.path))
    assert outcome.count == 2 and outcome.path.name == "imported-ta.jsonl"
    assert {t.run.model_name for t in traces} == {"model-x"}
    assert {len(t.segments) for t in traces} == {24, 26}


def test_a_broken_folder_writes_nothing(tmp_path):
    source = tmp_path / "src" / "problem_2189"
    shutil.copytree(INCORRECT / "problem_2189", source)
    (source / "base_solution.json").write_text("{")
    folder = tmp_path / "traces"
    folder.mkdir()
    with pytest.raises(ThoughtAnchorsError, match=r"base_solution\.json: not JSON"):
        import_into(folder, "thought-anchors", source)
    assert list(folder.iterdir()) == []
