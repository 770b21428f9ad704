"""Browse on an imported Thought Anchors trace: the published step values beside the trace.

The longest shared trace (321 chunks) is imported; Browse opens it, and the step values panel
draws the published accuracies, values and intervals equal to the sidecar's as the library reads
them (``published_step_analysis``), with where they came from.
"""

from __future__ import annotations

import json
import math

import pytest

from llenvs.analysis import analysis_path, published_step_analysis, read_published
from llenvs.cli.main import main
from llenvs.traces import read_traces
from llenvs.ui.trace_source import TRACES_DIR_ENV
from tests.app.test_pages import open_page, texts
from tests.conftest import EXTERNAL

LONGEST = (
    EXTERNAL
    / "thought_anchors"
    / "deepseek-r1-distill-llama-8b"
    / "incorrect_base_solution"
    / "problem_4164"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    out = folder / "ta.jsonl"
    assert main(["import", "thought-anchors", str(LONGEST), "-o", str(out)]) == 0
    return out


def test_browse_shows_the_published_step_values_of_a_321_step_trace(imported, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(imported.parent))
    [trace] = read_traces(imported)
    at = open_page("browse", file=str(imported), trace="1", segment="158")
    assert not at.exception, at.exception
    shown = texts(at)
    assert "Published values (Thought Anchors, imported): 321 boundaries" in shown
    assert "inferred from the published accuracy" in shown
    [published] = read_published(analysis_path(imported), trace.trace_id)
    expected = published_step_analysis(trace, published)
    table = next(d.value for d in at.dataframe if "importance low" in d.value.columns)
    assert len(table) == 322  # 321 boundaries and the end
    values = [v.value for v in expected.values]
    shown_values = table["value"].tolist()
    assert all(math.isclose(a, b) for a, b in zip(shown_values, values, strict=True))
    [chart] = [c for c in at.get("plotly_chart") if "sv-chart" in c.proto.id]
    figure = json.loads(chart.proto.spec)
    assert len(figure["data"][0]["x"]) == 322
