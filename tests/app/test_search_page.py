"""The Search page under AppTest: hits with Browse links, a bad filter said, a label queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from llenvs.traces import write_traces
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.search import queue_folder, read_label_queue
from tests.helpers import scored_trace

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    write_traces(
        tmp_path / "runs.jsonl",
        [
            scored_trace("farm", ("Cows have 4 legs. ", 0.9), ("So 8.", 0.9)),
            scored_trace("farm", ("Hens have 2 legs.", 0.1)),
        ],
    )
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    return tmp_path


def _search_page() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/search.py")
    at.run()
    assert not at.exception
    return at


def test_hits_link_to_browse_and_export_as_a_label_queue(folder):
    at = _search_page()
    at.text_input(key="search-query").set_value("legs").run()
    at.text_input(key="search-where").set_value("prm < 0.5").run()
    table = at.dataframe[0].value
    assert table[["file", "trace", "step", "prm"]].values.tolist() == [["runs.jsonl", 2, 0, 0.1]]
    assert table["open"].tolist() == [
        f"browse?file={str(folder / 'runs.jsonl').replace('/', '%2F')}&trace=2&segment=0"
    ]
    at.button[0].click().run()
    queue = queue_folder(folder) / "legs.queue.jsonl"
    assert [(e.trace, e.step) for e in read_label_queue(queue)] == [(2, 0)]
    links = [str(link.proto.label) for link in at.get("page_link")]
    assert "next: runs.jsonl:2 step 0 (unlabelled)" in links


def test_a_bad_filter_and_a_bad_pattern_are_said(folder):
    at = _search_page()
    at.text_input(key="search-query").set_value("legs").run()
    at.text_input(key="search-where").set_value("pmr < 1").run()
    assert "unknown field 'pmr'" in at.error[0].value
    at.text_input(key="search-where").set_value("").run()
    at.radio(key="search-mode").set_value("regex").run()
    at.text_input(key="search-query").set_value("(").run()
    assert "--regex '('" in at.error[0].value
