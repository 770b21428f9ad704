"""``llenvs import inspect``: logs written by Inspect itself (its ``mockllm`` model), read back.

Every log here is made by running a small task with Inspect (``inspect_ai.eval``), its model
``mockllm`` answering with outputs whose messages carry ``ContentReasoning`` blocks (plain,
redacted, or none): never a hand-made imitation of the format. Each output states its token
usage, so mockllm counts nothing with a tokenizer (it would download one).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# inspect-ai is the extra `inspect`, which make install always installs: a missing one fails.
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import Score, Target, accuracy, includes, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver

from llenvs.cli.main import main
from llenvs.traces import read_traces
from llenvs.traces.importers import InspectImport
from llenvs.traces.records import TaskIdentity

COWS = Sample(input="How many legs do 2 cows have?", target="8", id="cows")
SUM = Sample(input="What is 3 + 4?", target="7", id=2)
BAD = Sample(input="This sample fails.", target="0", id="bad")


def _output(*blocks) -> ModelOutput:
    output = ModelOutput.from_message(
        ChatMessageAssistant(content=list(blocks), model="mockllm/model")
    )
    output.usage = ModelUsage(input_tokens=10, output_tokens=20, total_tokens=30)
    return output


@solver
def fail_on(sample_id):
    """Raise on one sample (a log with an errored sample), pass the others on."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id == sample_id:
            raise RuntimeError("this sample breaks")
        return state

    return solve


@scorer(metrics=[accuracy()])
def labelled():
    """A score whose value is a dict: a number and a label (the label is not numeric)."""

    async def score(state: TaskState, target: Target) -> Score:
        right = target.text in state.output.completion
        return Score(value={"right": 1 if right else 0, "label": "agrees" if right else "no"})

    return score


def write_log(folder: Path, samples, outputs, *, name="legs", solvers=(), scorers=None) -> Path:
    """Run a task on Inspect's mockllm and return the log it wrote (``.eval``)."""
    model = get_model(
        "mockllm/model",
        custom_outputs=list(outputs),
        config=GenerateConfig(temperature=0.6, max_tokens=512),
    )
    task = Task(
        dataset=list(samples),
        solver=[*solvers, generate()],
        scorer=scorers or [includes()],
        name=name,
    )
    [log] = inspect_eval(
        task, model=model, log_dir=str(folder), display="none", fail_on_error=False
    )
    return Path(log.location)


REASONED = [
    _output(ContentReasoning(reasoning="Two cows. Each has 4 legs. So 8."), ContentText(text="8")),
    _output(ContentReasoning(reasoning="3 plus 4 is 7."), ContentText(text="The sum is 7.")),
]


def test_each_sample_becomes_a_trace_with_its_reasoning_then_its_answer(tmp_path):
    log = write_log(tmp_path, [COWS, SUM], REASONED)
    imported = InspectImport(log, segmenter="sentence")
    cows, total = list(imported)
    assert imported.skipped == []
    assert cows.response == "<think>\nTwo cows. Each has 4 legs. So 8.\n</think>\n\n8"
    # lossless: the segments cover the response, and the parts' spans find each block again
    assert "".join(s.text for s in cows.segments) == cows.response
    note = cows.metadata["inspect"]
    [reasoning, text] = note["parts"]
    assert (
        cows.response[reasoning["start"] : reasoning["end"]] == "Two cows. Each has 4 legs. So 8."
    )
    assert cows.response[text["start"] : text["end"]] == "8"
    assert (note["reasoning"], note["sample_id"], note["epoch"]) == ("present", "cows", 1)
    # the task: the log's task, the sample's input and target
    assert (cows.task.environment, cows.task.adapter) == ("legs", "inspect")
    assert cows.task.prompt == COWS.input and cows.task.expected_answer == "8"
    assert (cows.task.task_index, total.task.task_index) == (0, 1)
    # scores: includes() says C (correct) for both
    assert cows.final_rewards == {"includes": 1.0} and cows.success is True
    # the run: the model and the sampling the log states; what it does not hold stays unknown
    assert cows.run.model_name == "mockllm/model"
    stated = cows.run.spec.stated_sampling
    assert (stated.temperature, stated.max_tokens, stated.top_p, stated.seed) == (
        0.6,
        512,
        None,
        None,
    )
    assert cows.run.spec.segmenter.text == "sentence"
    assert total.response.endswith("</think>\n\nThe sum is 7.")


def test_two_logs_of_the_same_task_pair_by_task_and_prompt(tmp_path):
    first = write_log(tmp_path / "a", [COWS, SUM], REASONED)
    wrong = [_output(ContentText(text="6")), _output(ContentText(text="12"))]
    second = write_log(tmp_path / "b", [COWS, SUM], wrong)
    a, b = list(InspectImport(first)), list(InspectImport(second))
    identity = [TaskIdentity.of(t.task.environment, t.task.prompt) for t in a]
    assert identity == [TaskIdentity.of(t.task.environment, t.task.prompt) for t in b]
    assert [t.success for t in b] == [False, False]
    assert [t.metadata["inspect"]["reasoning"] for t in b] == ["absent", "absent"]
    assert {t.trace_id for t in a}.isdisjoint(t.trace_id for t in b)


def test_redacted_reasoning_and_non_numeric_scores_are_said(tmp_path):
    redacted = ContentReasoning(reasoning="gAAAAB-encrypted", redacted=True, summary="Legs.")
    outputs = [_output(redacted, ContentText(text="8")), _output(ContentText(text="7"))]
    log = write_log(tmp_path, [COWS, SUM], outputs, scorers=[labelled()])
    imported = InspectImport(log)
    cows, _ = list(imported)
    assert cows.response == "<think>\nLegs.\n</think>\n\n8"  # the summary stands in
    assert "encrypted" not in cows.response
    assert cows.metadata["inspect"]["reasoning"] == "redacted"
    assert cows.final_rewards == {"labelled.right": 1.0}
    assert cows.metadata["inspect"]["scores"] == {"labelled.label": "agrees"}
    assert imported.summary.notes() == [
        "reasoning redacted in 1",
        "reasoning absent in 1",
        "2 non-numeric scores of 'labelled.label' kept in the metadata",
    ]


def test_the_cli_imports_once_names_a_failed_sample_and_keeps_the_rest(tmp_path, capsys):
    log = write_log(tmp_path, [COWS, BAD, SUM], REASONED, solvers=[fail_on("bad")])
    out = tmp_path / "imported.jsonl"
    assert main(["import", "inspect", str(log), "-o", str(out)]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("imported 2 traces (") and "1 sample skipped" in said.out
    assert "sample 'bad' (epoch 1): no assistant answer" in said.err
    assert f"{log}, sample 2: " in said.err
    traces = list(read_traces(out))
    assert [t.metadata["inspect"]["sample_id"] for t in traces] == ["cows", 2]
    # importing the same log again adds nothing
    assert main(["import", "inspect", str(log), "-o", str(out)]) == 0
    assert "imported nothing: 2 traces" in capsys.readouterr().out
    assert len(list(read_traces(out))) == 2


def test_a_file_that_is_not_an_inspect_log_is_refused_by_name(tmp_path, capsys):
    other = tmp_path / "notes.eval"
    other.write_text("not a log")
    assert main(["import", "inspect", str(other), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert f"{other} is not an Inspect log Inspect can read" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_home_imports_an_inspect_log_and_browse_opens_it(tmp_path, monkeypatch):
    from llenvs.workbench.files import TRACES_DIR_ENV
    from tests.app.test_pages import open_page, texts

    folder = tmp_path / "traces"
    redacted = ContentReasoning(reasoning="gAAAAB-encrypted", redacted=True, summary="Legs.")
    outputs = [_output(redacted, ContentText(text="8")), REASONED[1]]
    log = write_log(folder / "logs", [COWS, SUM], outputs)
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    at = open_page("home")
    at.selectbox(key="import-format").select("inspect")
    at.text_input[1].input(str(log))
    at.button[0].click().run()
    assert not at.exception, at.exception
    [done] = [s.value for s in at.success if s.value.startswith("Imported 2 traces into")]
    assert done.endswith("; reasoning redacted in 1; reasoning absent in 0")
    [imported] = folder.glob("imported-*.jsonl")
    browse = open_page("browse", file=str(imported), trace="2")
    assert not browse.exception, browse.exception
    assert "legs · task 1 · line 2" in texts(browse)
    shown = "".join(browse.dataframe[1].value["text"].tolist())
    assert "3 plus 4 is 7." in shown and "The sum is 7." in shown


def test_traces_exported_as_an_inspect_log_open_with_inspect_and_import_back_unchanged(
    tmp_path, capsys
):
    import shutil

    from inspect_ai.log import read_eval_log

    from llenvs.traces import StepLabel
    from llenvs.traces.files import analysis_path
    from llenvs.traces.labels import append_labels
    from tests.analysis.conftest import REPO

    sample = REPO / "sample_traces" / "products-smollm2.jsonl"
    source = tmp_path / "products.jsonl"
    for path in (sample, analysis_path(sample)):
        shutil.copy(path, tmp_path / path.name.replace("products-smollm2", "products"))
    traces = list(read_traces(source))
    first = traces[0]
    append_labels(
        source, [StepLabel(first.trace_id, 0, 1, "ada"), StepLabel(first.trace_id, 1, -1, "ada")]
    )
    log = tmp_path / "products.eval"
    argv = ["export", str(source), "--format", "inspect", "-o", str(log), "--labels", "ada"]
    assert main(argv) == 0
    assert f"exported {len(traces)} traces with the labels of ada" in capsys.readouterr().out
    assert main(argv) == 2  # an existing output is refused
    assert "exists: give --overwrite" in capsys.readouterr().err
    # Inspect's own reader opens it
    opened = read_eval_log(str(log))
    assert opened.eval.task == "products" and len(opened.samples) == len(traces)
    assert opened.eval.model == "transformers/SmolLM2-135M-Instruct"  # the model they record
    by_id = {s.id: s for s in opened.samples}
    written = by_id[first.trace_id]
    assert written.input == first.task.prompt
    assert written.scores["first_error"].value == 1
    assert written.scores["success"].value == ("C" if first.success else "I")
    extra = written.metadata["llenvs"]
    assert extra["labels"] == {"labeller": "ada", "steps": {"0": 1, "1": -1}}
    assert extra["prm_scores"] == [dict(s.prm_scores) for s in first.segments]
    assert {row["source"] for row in extra["step_values"]} >= {
        "rollouts of transformers/SmolLM2-135M-Instruct"
    }
    assert "first_error" not in by_id[traces[1].trace_id].scores  # no labels there
    # and llenvs imports it back: the same traces
    back = tmp_path / "back.jsonl"
    assert main(["import", "inspect", str(log), "-o", str(back)]) == 0
    assert sorted(read_traces(back), key=lambda t: t.trace_id) == sorted(
        traces, key=lambda t: t.trace_id
    )


def test_the_export_names_the_recorded_model_and_is_readable_as_other_files_are(tmp_path, capsys):
    """The R1 sample records its model without a provider ("deepseek-r1-distill-llama-8b", as
    Thought Anchors names it); no labels are asked for. The log is written with the umask's
    permissions, and an overwrite keeps the replaced file's."""
    from inspect_ai.log import read_eval_log

    from tests.analysis.conftest import REPO

    source = REPO / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
    log = tmp_path / "r1.eval"
    umask = os.umask(0o022)
    try:
        assert main(["export", str(source), "--format", "inspect", "-o", str(log)]) == 0
    finally:
        os.umask(umask)
    assert "exported 3 traces to" in capsys.readouterr().out
    assert stat.S_IMODE(log.stat().st_mode) == 0o644  # not mkstemp's 0600
    opened = read_eval_log(str(log))
    assert opened.eval.model == "llenvs/deepseek-r1-distill-llama-8b"
    assert all(
        "first_error" not in s.scores and "labels" not in s.metadata["llenvs"]
        for s in opened.samples
    )
    log.chmod(0o640)
    argv = ["export", str(source), "--format", "inspect", "-o", str(log), "--overwrite"]
    assert main(argv) == 0
    assert stat.S_IMODE(log.stat().st_mode) == 0o640


def test_a_log_that_does_not_list_its_sample_ids_is_read_whole(tmp_path):
    from datetime import UTC, datetime

    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )

    answer = ChatMessageAssistant(
        content=[ContentReasoning(reasoning="4 + 4."), ContentText(text="8")]
    )
    sample = EvalSample(id="a", epoch=1, input="2 cows?", target="8", messages=[answer])
    spec = EvalSpec(
        created=datetime.now(UTC).isoformat(),
        task="legs",
        model="mockllm/model",
        dataset=EvalDataset(name="legs", samples=1),  # no sample_ids: not streamable
        config=EvalConfig(),
    )
    path = tmp_path / "hand.eval"
    write_eval_log(EvalLog(eval=spec, status="success", samples=[sample]), str(path))
    [trace] = InspectImport(path)
    assert trace.response == "<think>\n4 + 4.\n</think>\n\n8" and trace.task.prompt == "2 cows?"
