"""Browse shows branches and reads well: branch counts in the list, "–" for no reward, plurals.

On copies of the sample traces (their sidecars hold one branch of each kind) through AppTest.
"""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from llenvs.traces import read_branches, read_traces, write_traces
from llenvs.workbench.browse import segment_table, styled_segments
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page, texts

SAMPLES = REPO / "sample_traces"


@pytest.fixture
def samples(tmp_path, monkeypatch):
    folder = tmp_path / "traces"
    shutil.copytree(SAMPLES, folder)
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    return folder


def test_the_trace_list_counts_each_traces_branches(samples):
    path = samples / "basic_arithmetic-smollm2.jsonl"
    expected = {}
    for child in read_branches(path):
        expected[child.parent.parent_id] = expected.get(child.parent.parent_id, 0) + 1
    ids = [t.trace_id for t in read_traces(path)]
    at = open_page("browse", file=str(path), trace="1")
    listed = next(d.value for d in at.dataframe if "branches" in d.value.columns)
    assert listed["branches"].tolist() == [expected.get(i, 0) for i in ids]
    assert sum(listed["branches"]) == 3  # force, feedback, complete


def test_a_trace_with_branches_links_to_each_in_its_tree(samples):
    path = samples / "leg_counting-smollm2.jsonl"
    at = open_page("browse", file=str(path), trace="1", segment="1")
    assert "Branches of this trace (8)" in texts(at)  # the resample set of 8
    links = [b.label for b in at.button if str(b.key).startswith("iv-tree-")]
    assert len(links) == 8 and all(label.startswith("↳ line ") for label in links)


def test_a_step_without_reward_shows_a_dash_and_one_segment_is_singular(samples):
    trace = next(read_traces(samples / "leg_counting-smollm2.jsonl"))
    html = styled_segments(segment_table(trace), None).to_html()
    assert "None" not in html and "nan" not in html and "–" in html
    path = samples / "one.jsonl"
    first = trace.segments[0]
    write_traces(path, [replace(trace, segments=(first,), response=first.text)])
    at = open_page("browse", file=str(path), trace="1")
    assert any("· 1 segment" in c.value and "1 segments" not in c.value for c in at.caption)
