"""Inspect logs beyond one ``.eval`` of one epoch: ``.json`` logs, several epochs, and
``llenvs export --format inspect`` without ``--labels``.

Every log is written by Inspect itself (``inspect_ai.eval`` on its ``mockllm`` model, or
Inspect's ``write_eval_log``), as in ``test_inspect_import.py``; each output states its token
usage, so mockllm counts nothing with a tokenizer.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

from llenvs.cli.main import main
from llenvs.traces import StepLabel, append_labels, read_traces
from llenvs.traces.files import analysis_path
from llenvs.traces.importers import InspectImport
from tests.analysis.conftest import REPO

COWS = Sample(input="How many legs do 2 cows have?", target="8", id="cows")
SUM = Sample(input="What is 3 + 4?", target="7", id=2)


def _output(reasoning: str, text: str) -> ModelOutput:
    output = ModelOutput.from_message(
        ChatMessageAssistant(
            content=[ContentReasoning(reasoning=reasoning), ContentText(text=text)],
            model="mockllm/model",
        )
    )
    output.usage = ModelUsage(input_tokens=10, output_tokens=20, total_tokens=30)
    return output


def _log(folder: Path, outputs, *, epochs: int = 1, log_format: str = "eval") -> Path:
    """Run the two-sample task on mockllm ``epochs`` times over; the log Inspect wrote."""
    model = get_model("mockllm/model", custom_outputs=list(outputs))
    task = Task(dataset=[COWS, SUM], solver=[generate()], scorer=[includes()], name="legs")
    [log] = inspect_eval(
        task,
        model=model,
        log_dir=str(folder),
        display="none",
        epochs=epochs,
        log_format=log_format,
        max_samples=1,  # one sample at a time: the outputs go to the samples in order
    )
    assert log.status == "success", log.error
    return Path(log.location)


def _made(traces) -> list:
    """The traces as made from the log: what they hold but when the import was run."""
    return [dataclasses.replace(t, created_at="") for t in traces]


SAME = [_output("Two cows, 4 legs each. So 8.", "8")] * 4
"""One answer for every sample and epoch: only the sample and the epoch tell the traces apart."""


def test_a_json_log_imports_as_the_eval_log_of_the_same_run(tmp_path, capsys):
    outputs = [_output("Two cows, 4 legs each. So 8.", "8"), _output("3 plus 4 is 7.", "7")]
    written = _log(tmp_path / "eval", outputs)
    assert written.suffix == ".eval"
    # the same run written by Inspect as JSON: its older, whole-file format
    as_json = tmp_path / "legs.json"
    write_eval_log(read_eval_log(str(written)), str(as_json), format="json")
    assert as_json.read_text(encoding="utf-8").lstrip().startswith("{")
    from_eval, from_json = list(InspectImport(written)), list(InspectImport(as_json))
    assert [t.trace_id for t in from_json] == [t.trace_id for t in from_eval]
    assert _made(from_json) == _made(from_eval)
    assert [t.metadata["inspect"]["sample_id"] for t in from_json] == ["cows", 2]
    assert from_json[0].response == "<think>\nTwo cows, 4 legs each. So 8.\n</think>\n\n8"
    assert [t.success for t in from_json] == [True, True]
    # the CLI reads it too, and a second import adds nothing
    out = tmp_path / "imported.jsonl"
    assert main(["import", "inspect", str(as_json), "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith("imported 2 traces (")
    assert main(["import", "inspect", str(as_json), "-o", str(out)]) == 0
    assert "imported nothing: 2 traces" in capsys.readouterr().out
    assert _made(read_traces(out)) == _made(from_eval)


def test_a_json_log_written_by_an_eval_run_imports(tmp_path):
    outputs = [_output("Two cows, 4 legs each. So 8.", "8"), _output("3 plus 4 is 7.", "7")]
    written = _log(tmp_path, outputs, log_format="json")
    assert written.suffix == ".json"
    cows, total = InspectImport(written)
    assert (cows.task.prompt, total.task.prompt) == (COWS.input, SUM.input)
    assert (cows.task.task_index, total.task.task_index) == (0, 1)
    assert total.response == "<think>\n3 plus 4 is 7.\n</think>\n\n7"


def test_each_epoch_of_each_sample_is_its_own_trace_with_a_stable_id(tmp_path, capsys):
    log = _log(tmp_path / "logs", SAME, epochs=2)
    traces = list(InspectImport(log))
    assert len(traces) == 4  # 2 samples x 2 epochs
    seen = {(t.metadata["inspect"]["sample_id"], t.metadata["inspect"]["epoch"]) for t in traces}
    assert seen == {("cows", 1), ("cows", 2), (2, 1), (2, 2)}
    assert len({t.response for t in traces}) == 1  # the same answer every time
    assert len({t.trace_id for t in traces}) == 4  # yet four traces, told apart by their ids
    # the epochs of one sample ask the same task: they pair, as repeated runs of it do
    by_sample: dict[object, set[tuple[int, str]]] = {}
    for trace in traces:
        key = trace.metadata["inspect"]["sample_id"]
        by_sample.setdefault(key, set()).add((trace.task.task_index, trace.task.prompt))
    assert by_sample == {"cows": {(0, COWS.input)}, 2: {(1, SUM.input)}}
    # read again: the same ids, in the same order
    assert [t.trace_id for t in InspectImport(log)] == [t.trace_id for t in traces]
    # a copy of the log elsewhere (moved, renamed) gives the same ids too
    moved = tmp_path / "elsewhere.eval"
    shutil.copy(log, moved)
    assert sorted(t.trace_id for t in InspectImport(moved)) == sorted(t.trace_id for t in traces)
    out = tmp_path / "imported.jsonl"
    assert main(["import", "inspect", str(log), "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith("imported 4 traces (")
    assert main(["import", "inspect", str(moved), "-o", str(out)]) == 0
    assert "imported nothing: 4 traces" in capsys.readouterr().out
    assert len(list(read_traces(out))) == 4


def _id(trace) -> str:
    return trace.trace_id


def _products(folder: Path) -> Path:
    """The products sample and its analysis sidecar, copied into ``folder``."""
    sample = REPO / "sample_traces" / "products-smollm2.jsonl"
    source = folder / "products.jsonl"
    shutil.copy(sample, source)
    shutil.copy(analysis_path(sample), analysis_path(source))
    return source


def test_export_without_labels_leaves_the_labels_out_and_imports_back(tmp_path, capsys):
    source = _products(tmp_path)
    traces = list(read_traces(source))
    # labels in the store, not asked for: none of them goes into the log
    append_labels(source, [StepLabel(traces[0].trace_id, 0, -1, "ada")])
    log = tmp_path / "products.eval"
    assert main(["export", str(source), "--format", "inspect", "-o", str(log)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"exported {len(traces)} traces to {log}")
    assert "with the labels" not in said
    opened = read_eval_log(str(log))
    assert len(opened.samples) == len(traces)
    by_id = {sample.id: sample for sample in opened.samples}
    assert set(by_id) == {t.trace_id for t in traces}
    for trace in traces:
        sample = by_id[trace.trace_id]
        assert "first_error" not in sample.scores
        extra = sample.metadata["llenvs"]
        assert "labels" not in extra
        assert extra["prm_scores"] == [dict(s.prm_scores) for s in trace.segments]
        assert sample.scores["success"].value == ("C" if trace.success else "I")
    assert any(sample.metadata["llenvs"]["step_values"] for sample in opened.samples)
    back = tmp_path / "back.jsonl"
    assert main(["import", "inspect", str(log), "-o", str(back)]) == 0
    assert sorted(read_traces(back), key=_id) == sorted(traces, key=_id)


def test_export_to_a_json_log_imports_back_unchanged(tmp_path, capsys):
    source = _products(tmp_path)
    traces = list(read_traces(source))
    log = tmp_path / "products.json"
    assert main(["export", str(source), "--format", "inspect", "-o", str(log)]) == 0
    capsys.readouterr()
    assert log.read_text(encoding="utf-8").lstrip().startswith("{")  # Inspect's JSON format
    assert len(read_eval_log(str(log)).samples) == len(traces)
    assert sorted(InspectImport(log), key=_id) == sorted(traces, key=_id)
