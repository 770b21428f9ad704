"""The step values table and chart: the engine's numbers, per segment, in the segment colours."""

from __future__ import annotations

import math

import pytest

from llenvs.analysis import AnalysisParams, analyze_trace
from llenvs.workbench.browse import score_colour, value_rows
from llenvs.workbench.charts import (
    SCORE_COLOURS,
    SELECTED,
    importance_colour,
    layer_names,
    selected_segment,
    step_values_figure,
)
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import TRUE_VALUES, open_trace
from tests.chart_specs import layer
from tests.chart_specs import rows as drawn


@pytest.fixture(scope="module")
def trace():
    return open_trace()


@pytest.fixture(scope="module")
def analysis(trace):
    coin = CoinBackend(trace, TRUE_VALUES, str(trace.task.expected_answer))
    return analyze_trace(trace, coin, AnalysisParams(budget=66, seed=1), forced_answer=True)


def test_rows_hold_the_engines_values_importances_and_forced_answers(trace, analysis):
    rows = value_rows(len(trace.segments), analysis)
    assert rows["#"].tolist() == list(range(len(trace.segments) + 1))
    assert rows["value"].tolist() == [v.value for v in analysis.values]
    assert rows["low"].tolist() == [v.interval.low for v in analysis.values]
    assert rows["high"].tolist() == [v.interval.high for v in analysis.values]
    assert rows["trials"].tolist() == [v.trials for v in analysis.values]
    steps = analysis.importances
    assert rows["importance"].tolist()[:-1] == [s.importance for s in steps]
    assert rows["importance low"].tolist()[:-1] == [s.interval.low for s in steps]
    assert rows["importance high"].tolist()[:-1] == [s.interval.high for s in steps]
    assert math.isnan(rows["importance"].iloc[-1])  # no step after the end
    assert rows["forced right"].tolist() == [a.correct for a in analysis.forced_answers]


def test_the_figure_draws_bars_with_their_intervals_and_the_forced_curve(trace, analysis):
    rows = value_rows(len(trace.segments), analysis)
    values, importances = step_values_figure(rows, selected=3)
    data = drawn(values)
    assert data == drawn(importances)  # one table under both charts
    assert [r["segment"] for r in data] == rows["#"].tolist()
    assert [r["value"] for r in data] == [v.value for v in analysis.values]
    assert [r["low"] for r in data] == [v.interval.low for v in analysis.values]
    assert [r["high"] for r in data] == [v.interval.high for v in analysis.values]
    bars = layer(values, "step value v_i")["encoding"]
    assert (bars["y"]["field"], bars["y2"], bars["color"]["scale"]) == (
        "value",
        {"datum": 0},
        SCORE_COLOURS,
    )
    whiskers = layer(values, "interval")["encoding"]
    assert (whiskers["y"]["field"], whiskers["y2"]["field"]) == ("low", "high")
    assert [r["importance"] for r in data][:-1] == [s.importance for s in analysis.importances]
    assert [r["importance high"] for r in data][:-1] == [
        s.interval.high for s in analysis.importances
    ]
    whiskers = layer(importances, "interval")["encoding"]
    assert (whiskers["y"]["field"], whiskers["y2"]["field"]) == (
        "importance low",
        "importance high",
    )
    forced = drawn(values, "forced answer right (1) / wrong (0)")
    assert [p["right"] for p in forced] == [float(a.correct) for a in analysis.forced_answers]
    widths = [r["outline"] for r in data]  # the selected bar's outline is the thick one
    assert widths[3] == max(widths) and widths.count(max(widths)) == 1
    for chart in (values, importances):  # one dotted line through each of the two charts
        rule = layer(chart, "selected segment")
        assert (rule["data"]["values"], rule["mark"]["color"]) == ([{"segment": 3}], SELECTED)


def test_importance_colours_are_the_segment_tables_reward_colours():
    assert importance_colour(0.3) in score_colour(1.0)
    assert importance_colour(-0.3) in score_colour(0.0)
    assert importance_colour(0.0) in score_colour(0.5)
    assert importance_colour(math.nan) == "rgba(0, 0, 0, 0)"


def test_a_click_on_a_bar_reads_as_its_segment(trace, analysis):
    for chart in step_values_figure(value_rows(len(trace.segments), analysis)):
        [param] = layer(chart, "segments")["params"]  # a column over each bar, clickable
        assert param["select"] == {"type": "point", "fields": ["segment"]}
        assert selected_segment({"selection": {param["name"]: [{"segment": 5}]}}) == 5


def test_no_forced_answers_no_curve(trace, analysis):
    from dataclasses import replace

    rows = value_rows(len(trace.segments), replace(analysis, forced_answers=None))
    values, _ = step_values_figure(rows)
    assert "forced answer right (1) / wrong (0)" not in layer_names(values)
    assert rows["forced right"].isna().all()
