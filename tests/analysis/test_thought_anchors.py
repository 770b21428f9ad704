"""Thought Anchors' published traces: imported losslessly, with their published step values.

Every test reads the shared folders of ``../shared/external/thought_anchors`` (20 problem folders
of DeepSeek-R1-Distill-Llama-8B, 24 to 321 chunks each); the broken-input tests copy one folder
and break the copy.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from llenvs.analysis import (
    CHANCES_CHECKED,
    AnalysisParams,
    analysis_path,
    analyze_trace,
    published_step_analysis,
    read_published,
)
from llenvs.analysis.sidecar import (
    ThoughtAnchorsError,
    read_thought_anchors,
    thought_anchors_folders,
)
from llenvs.cli.main import main
from llenvs.core import Resample
from llenvs.core.run_spec import SegmenterSpec
from llenvs.evaluation import BranchRequest, branch, trace_base_environment
from llenvs.inference import get_backend
from llenvs.traces import SegmentFlag, read_traces
from tests.conftest import EXTERNAL, REPO

DATA = EXTERNAL / "thought_anchors"
FOLDERS = thought_anchors_folders(DATA) if DATA.is_dir() else []
SHORT = DATA / "deepseek-r1-distill-llama-8b" / "incorrect_base_solution" / "problem_2189"


def _chunks(folder: Path) -> list[dict]:
    return json.loads((folder / "chunks_labeled.json").read_text(encoding="utf-8"))


def _where(trace) -> tuple[str, str]:
    return trace.metadata["base_solution"], trace.metadata["problem"]


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("ta") / "thought_anchors.jsonl"
    assert main(["import", "thought-anchors", str(DATA), "-o", str(out)]) == 0
    return out


def test_the_shared_data_has_twenty_problem_folders():
    assert len(FOLDERS) == 20
    assert {len(_chunks(f)) for f in FOLDERS} >= {24, 321}


def test_every_folder_imports_losslessly_with_its_chunks_as_segments(imported):
    traces = {
        (t.metadata["base_solution"], t.metadata["problem"]): t for t in read_traces(imported)
    }
    assert len(traces) == 20
    for folder in FOLDERS:
        trace = traces[(folder.parent.name, folder.name)]
        base = json.loads((folder / "base_solution.json").read_text(encoding="utf-8"))
        chunks = _chunks(folder)
        assert trace.response == base["solution"] and trace.task.prompt == base["prompt"]
        assert "".join(s.text for s in trace.segments) == trace.response
        assert len(trace.segments) == len(chunks)
        for segment, chunk in zip(trace.segments, chunks, strict=True):
            # a segment is its chunk, plus the whitespace (and, last, the answer) after it
            assert _words(segment.text).startswith(_words(chunk["chunk"]))
            assert segment.annotations["function_tags"] == chunk["function_tags"]
            assert segment.annotations["depends_on"] == sorted(int(d) for d in chunk["depends_on"])
            assert segment.annotations["summary"] == chunk["summary"]
            assert segment.flags == {SegmentFlag.REPLAYED}
        assert trace.run.spec.segmenter == SegmenterSpec("imported:thought-anchors")
        assert trace.run.model_name == "deepseek-r1-distill-llama-8b"
        assert trace.success == base["is_correct"]  # math-verify agrees on all 20
        # we sampled nothing; the study states temperature and top-p, no budget nor seed
        assert trace.run.spec.sampling is None
        stated = trace.run.spec.stated_sampling
        assert (stated.temperature, stated.top_p) == (0.6, 0.95)
        assert stated.max_tokens is None and stated.seed is None
        assert "2506.19143" in stated.source


def test_the_stored_step_values_are_the_published_accuracies(imported):
    traces = {
        (t.metadata["base_solution"], t.metadata["problem"]): t for t in read_traces(imported)
    }
    for folder in FOLDERS:
        trace = traces[(folder.parent.name, folder.name)]
        [published] = read_published(analysis_path(imported), trace.trace_id)
        chunks = _chunks(folder)
        assert [t.boundary for t in published.tallies] == list(range(len(chunks)))
        for tally, chunk in zip(published.tallies, chunks, strict=True):
            assert tally.inferred and 50 <= tally.trials <= 100
            assert tally.successes / tally.trials == pytest.approx(chunk["accuracy"], abs=1e-9)
        column = published.measures["resampling_importance_accuracy"]
        assert list(column) == [c["resampling_importance_accuracy"] for c in chunks]
        assert published.key["published"] == "thought-anchors"
        assert published.key["temperature"] == 0.6 and published.key["top_p"] == 0.95


def test_budget_0_json_prints_the_published_values_without_a_model(imported, capsys):
    longest = next(t for t in read_traces(imported) if len(t.segments) == 321)
    capsys.readouterr()
    command = ["analyze", str(imported), "--trace", longest.trace_id, "--budget", "0", "--json"]
    assert main(command) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    folder = DATA / "deepseek-r1-distill-llama-8b" / "incorrect_base_solution" / "problem_4164"
    chunks = _chunks(folder)
    assert [row["boundary"] for row in rows] == list(range(322))  # and the end, exact
    assert [row["value"] for row in rows[:321]] == pytest.approx([c["accuracy"] for c in chunks])
    assert rows[321]["value"] == float(longest.success)
    assert all("importance" in row and "moved" in row for row in rows[:321])
    assert all(row["source"] == "Thought Anchors, imported" for row in rows)
    assert all(row["low"] <= row["value"] <= row["high"] for row in rows)
    assert rows[5]["forced_importance_accuracy"] == chunks[5]["forced_importance_accuracy"]


def test_budget_0_prints_the_importances_and_the_steps_that_moved_as_the_app_does(imported, capsys):
    """The CLI and the workbench read one ``StepAnalysis`` of the published values: the same
    importances, the same chances of having moved, the same verdict."""
    longest = next(t for t in read_traces(imported) if len(t.segments) == 321)
    [published] = read_published(analysis_path(imported), longest.trace_id)
    analysis = published_step_analysis(longest, published)
    capsys.readouterr()
    assert main(["analyze", str(imported), "--trace", longest.trace_id, "--budget", "0"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "Thought Anchors, imported:"
    assert "importance [95% CI]" in printed[1] and "moved" in printed[1]
    verdict = analysis.top_steps(3).headline()
    assert printed[-2] == verdict and verdict.startswith("most important steps: 158 (sure)")
    # a failed trace: where it went wrong, read from the published values by the bisection
    assert printed[-1] == "where it went wrong (first drop): step 158: the value falls 0.49 → 0.00"
    step = next(s for s in analysis.importances if s.step == 158)
    row = next(line for line in printed if line.startswith("158 "))
    assert f"{step.importance:+.2f}" in row and f"{analysis.moved[158]:.2f}" in row
    assert printed[-3] == f"{analysis.calls_summary()} ({CHANCES_CHECKED})"
    assert "|Δv| ≥ 0.2" in printed[-3]


def test_delta_sets_the_size_of_a_move_in_the_cli(imported, capsys):
    longest = next(t for t in read_traces(imported) if len(t.segments) == 321)
    [published] = read_published(analysis_path(imported), longest.trace_id)
    small = dataclasses.replace(published_step_analysis(longest, published), delta=0.1)
    capsys.readouterr()
    command = ["analyze", str(imported), "--trace", longest.trace_id, "--budget", "0"]
    assert main([*command, "--delta", "0.1"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-3] == f"{small.calls_summary()} ({CHANCES_CHECKED})"
    assert "|Δv| ≥ 0.1" in printed[-3]
    assert main([*command, "--delta", "0.1", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    moved = {row["boundary"]: row["moved"] for row in rows if "moved" in row}
    assert moved == pytest.approx(small.moved, abs=1e-12)
    assert {row["delta"] for row in rows if "moved" in row} == {0.1}
    with pytest.raises(SystemExit):
        main([*command, "--delta", "0"])
    assert "expected a number in (0, 1], got 0" in capsys.readouterr().err


def test_importing_again_writes_nothing_new(imported, capsys):
    before = imported.read_bytes(), analysis_path(imported).read_bytes()
    assert main(["import", "thought-anchors", str(DATA), "-o", str(imported)]) == 0
    assert "imported nothing" in capsys.readouterr().out
    assert (imported.read_bytes(), analysis_path(imported).read_bytes()) == before


def test_raw_rollouts_give_exact_tallies(tmp_path):
    folder = tmp_path / "m" / "correct_base_solution" / "problem_1"
    shutil.copytree(SHORT, folder)
    (folder / "chunk_3").mkdir()
    solutions = [{"is_correct": n < 7} for n in range(10)] + [{"is_correct": None}]
    (folder / "chunk_3" / "solutions.json").write_text(json.dumps(solutions))
    published = read_thought_anchors(folder).published
    assert published.tallies[3].successes == 7 and published.tallies[3].trials == 10
    assert not published.tallies[3].inferred and published.inferred == 23
    assert published.model == "m"


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("chunk", r"problem_2189, chunk_idx 4: chunk 4 \('No such sentence here\.'\) is not in"),
        ("missing", r"base_solution\.json: missing"),
        ("not json", r"chunks_labeled\.json: not JSON"),
        ("order", r"chunks_labeled\.json, entry 2: expected chunk_idx 2"),
    ],
)
def test_a_broken_folder_is_named_and_nothing_is_written(tmp_path, capsys, breakage, message):
    data = tmp_path / "data"
    folder = data / "deepseek-r1-distill-llama-8b" / "incorrect_base_solution" / "problem_2189"
    shutil.copytree(SHORT.parent, folder.parent)
    chunks = _chunks(folder)
    if breakage == "chunk":
        chunks[4]["chunk"] = "No such sentence here."
        (folder / "chunks_labeled.json").write_text(json.dumps(chunks))
    elif breakage == "missing":
        (folder / "base_solution.json").unlink()
    elif breakage == "not json":
        (folder / "chunks_labeled.json").write_text('[{"chunk": ')
    else:
        chunks[2]["chunk_idx"] = 7
        (folder / "chunks_labeled.json").write_text(json.dumps(chunks))
    out = tmp_path / "out.jsonl"
    out.write_text("")  # an existing output is left as it was
    with pytest.raises(ThoughtAnchorsError, match=message):
        read_thought_anchors(folder)
    assert main(["import", "thought-anchors", str(data), "-o", str(out)]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert out.read_text() == "" and not analysis_path(out).exists()


def test_a_branch_of_an_imported_trace_cuts_its_new_text_into_sentences():
    item = read_thought_anchors(SHORT)
    kept = "".join(s.text for s in item.trace.segments[:10])
    script = kept + "Let me check. The answer is 8. \\boxed{8}"
    backend = get_backend("scripted", outputs=[script])
    [child] = branch(BranchRequest(item.trace, 10, Resample()), backend)
    new = [s.text for s in child.segments[10:]]
    assert new == ["Let me check. ", "The answer is 8. \\boxed{8}"]
    assert child.parent.segment_index == 10
    assert child.run.spec.segmenter == SegmenterSpec("sentence")  # what cut its new text
    environment, why = trace_base_environment(item.trace)
    assert environment.spec.adapter == "task_record"  # its own prompt, math-verify on gt_answer
    assert why is not None and why.startswith("it was imported ('thought-anchors' data")


def test_the_sample_file_is_what_the_example_script_imports(tmp_path):
    """``sample_traces/`` holds the three traces ``examples/import_thought_anchors.sh`` names."""
    sample = REPO / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
    traces = list(read_traces(sample))
    assert [(_where(t), len(t.segments), t.success) for t in traces] == [
        (("correct_base_solution", "problem_2189"), 204, True),
        (("incorrect_base_solution", "problem_2189"), 24, False),
        (("incorrect_base_solution", "problem_4164"), 321, False),
    ]
    for trace in traces:
        folder = DATA / "deepseek-r1-distill-llama-8b" / trace.metadata["base_solution"]
        fresh = read_thought_anchors(folder / trace.metadata["problem"])
        assert fresh.trace.trace_id == trace.trace_id and fresh.trace.response == trace.response
        assert read_published(analysis_path(sample), trace.trace_id) == [fresh.published]
        assert all("prm" in s.prm_scores for s in trace.segments)  # scored on import


def test_our_rollouts_go_beside_the_published_values_never_into_them(tmp_path, capsys):
    out = tmp_path / "ta.jsonl"
    assert main(["import", "thought-anchors", str(SHORT), "-o", str(out)]) == 0
    [trace] = read_traces(out)
    [before] = read_published(analysis_path(out), trace.trace_id)
    kept = "".join(s.text for s in trace.segments[:2])
    backend = get_backend("scripted", outputs=[kept + "So the answer is \\boxed{588}."])
    ours = analyze_trace(
        trace,
        backend,
        AnalysisParams(budget=4, width=0.5),
        store=analysis_path(out),
        boundaries=[2],
    )
    assert [r.boundary for r in ours.rollouts] == [2] * 4 and all(r.success for r in ours.rollouts)
    assert read_published(analysis_path(out), trace.trace_id) == [before]  # untouched
    capsys.readouterr()
    assert main(["analyze", str(out), "--trace", trace.trace_id, "--budget", "0", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    sources = {row["source"] for row in rows}
    assert sources == {"Thought Anchors, imported", "rollouts of scripted"}
    published_2 = next(r for r in rows if r["boundary"] == 2 and r["source"].startswith("Th"))
    ours_2 = next(r for r in rows if r["boundary"] == 2 and r["source"] == "rollouts of scripted")
    assert published_2["value"] == pytest.approx(_chunks(SHORT)[2]["accuracy"])
    assert (ours_2["value"], ours_2["rollouts"]) == (1.0, 4)
