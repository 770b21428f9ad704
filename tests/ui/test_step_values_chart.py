"""The step values table and chart: the engine's numbers, per segment, in the segment colours."""

from __future__ import annotations

import math

import pytest

from llenvs.analysis import AnalysisParams, analyze_trace
from llenvs.ui.segment_chart import selected_segment
from llenvs.ui.segment_table import score_colour
from llenvs.ui.step_values_chart import (
    SCORE_SCALE,
    SELECTED,
    importance_colour,
    step_values_figure,
    value_rows,
)
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import TRUE_VALUES, open_trace


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
    figure = step_values_figure(rows, selected=3)
    values, importances, forced = figure.data
    assert (values.type, importances.type, forced.type) == ("bar", "bar", "scatter")
    assert list(values.x) == rows["#"].tolist()
    assert list(values.y) == [v.value for v in analysis.values]
    assert list(values.error_y.array) == pytest.approx(
        [v.interval.high - v.value for v in analysis.values]
    )
    assert list(values.error_y.arrayminus) == pytest.approx(
        [v.value - v.interval.low for v in analysis.values]
    )
    assert list(importances.y)[:-1] == [s.importance for s in analysis.importances]
    assert list(importances.error_y.array)[:-1] == pytest.approx(
        [s.interval.high - s.importance for s in analysis.importances]
    )
    assert list(forced.y) == [float(a.correct) for a in analysis.forced_answers]
    assert [tuple(c) for c in values.marker.colorscale] == [tuple(c) for c in SCORE_SCALE]
    widths = list(values.marker.line.width)  # the selected bar's outline is the thick one
    assert widths[3] == max(widths) and widths.count(max(widths)) == 1
    marks = figure.layout.shapes  # one dotted line through each of the two charts
    assert [(m.x0, m.line.color) for m in marks] == [(3, SELECTED), (3, SELECTED)]


def test_importance_colours_are_the_segment_tables_reward_colours():
    assert importance_colour(0.3) in score_colour(1.0)
    assert importance_colour(-0.3) in score_colour(0.0)
    assert importance_colour(0.0) in score_colour(0.5)
    assert importance_colour(math.nan) == "rgba(0, 0, 0, 0)"


def test_a_click_on_a_bar_reads_as_its_segment(trace, analysis):
    figure = step_values_figure(value_rows(len(trace.segments), analysis))
    bar = figure.data[1]
    click = {"selection": {"points": [{"x": bar.x[5], "y": bar.y[5], "curve_number": 1}]}}
    assert selected_segment(click) == 5


def test_no_forced_answers_no_curve(trace, analysis):
    from dataclasses import replace

    rows = value_rows(len(trace.segments), replace(analysis, forced_answers=None))
    assert [t.type for t in step_values_figure(rows).data] == ["bar", "bar"]
    assert rows["forced right"].isna().all()
