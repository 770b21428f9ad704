"""A traces folder for the app tests: real imported traces, an HTML trace and a broken file."""

from __future__ import annotations

from pathlib import Path

import pytest

from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
from llenvs.ui.trace_source import TRACES_DIR_ENV, import_into
from tests.conftest import EXTERNAL

SCRIPT = "<script>alert(1)</script>"


def html_trace() -> Trace:
    texts = ["Let me think. ", f"The page says {SCRIPT} here. ", "<b>bold?</b> <answer>4</answer>"]
    segments, offset = [], 0
    for index, text in enumerate(texts):
        segments.append(
            SegmentRecord(index, offset, offset + len(text), text, prm_scores={"prm": 0.2 * index})
        )
        offset += len(text)
    return Trace(
        task=TaskRecord("html_env", "test", {}, 0, "What does <i>it</i> say?"),
        response="".join(texts),
        segments=tuple(segments),
        final_rewards={"correctness": 1.0},
        success=True,
    )


def make_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    import_into(folder, "reasoning_gym", EXTERNAL / "real_responses.jsonl")
    write_traces(folder / "html.jsonl", [html_trace()])
    good = (folder / "html.jsonl").read_text()
    (folder / "broken.jsonl").write_text(
        good
        + "not json at all\n"
        + '{"task": 3}\n'
        + good.replace('"terminal": false', '"terminal": "no"', 1)
    )
    return folder


@pytest.fixture(scope="session")
def traces_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("traces"))


@pytest.fixture()
def app_env(traces_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces_folder))
    return traces_folder
