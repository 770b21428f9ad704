"""The Browse page's step values panel under AppTest: plan, run, stored results, Stop, errors.

The coin backend (tests/analysis) continues the first sample trace with known step values; the
panel gets it where it would load the chosen model. Every number the panel shows is checked
against the engine's own reading of the sidecar.
"""

from __future__ import annotations

import itertools
import json
import shutil
import threading
import time

import pytest

from llenvs.analysis import (
    CHANCES_CHECKED,
    AnalysisParams,
    LexicalSimilarity,
    analysis_key,
    analysis_path,
    analyze_trace,
    plan,
    read_analysis,
)
from llenvs.analysis.sidecar import append_rollouts
from llenvs.core import BackendCapabilities
from llenvs.evaluation import trace_environment
from llenvs.traces import TaskRecord, Trace, read_traces, write_traces
from llenvs.ui.browse import WHOLE
from llenvs.ui.browse import _content_returns as content_returns_view
from llenvs.ui.browse import _step_values as step_values_view
from llenvs.ui.browse import _step_values_run as step_values_run
from llenvs.workbench.charts import layer_names
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import ModelKind
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import REPO, SAMPLE, TRUE_VALUES
from tests.analysis.test_resilience import constructed_rollouts, constructed_trace
from tests.app.test_big_traces import chart_rows, chart_spec, charts, click_segment
from tests.app.test_pages import open_page, texts
from tests.chart_specs import rows

MAX_TOKENS = 96
"""The sample trace's own token budget: the panel's rollouts get it too."""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A traces folder with a copy of the sample traces, and no trace without segments."""
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(SAMPLE, traces / "lc.jsonl")
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return traces


@pytest.fixture
def trace(folder):
    return next(iter(read_traces(folder / "lc.jsonl")))


@pytest.fixture
def coin(trace, monkeypatch):
    """The coin backend, loaded by the panel in place of the trace's model."""
    backend = CoinBackend(trace, TRUE_VALUES, str(trace.task.expected_answer))
    monkeypatch.setattr(step_values_run, "load_backend", lambda choice, key=None: backend)
    return backend


def _open(folder, segment=1):
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment=str(segment))
    at.toggle(key="sv-plan").set_value(True).run()
    assert not at.exception, at.exception
    return at


def _settings(at, budget, forced=False):
    at.text_input(key="sv-budget").input(str(budget)).run()
    at.checkbox(key="sv-forced").set_value(forced).run()
    return at


def _run(at, timeout=60):
    """Click Run, wait for the job in the background, and draw the page once it is done."""
    at.button(key="sv-run").click().run(timeout=timeout)
    job = at.session_state["sv-job"] if "sv-job" in at.session_state else None
    if job is not None:
        assert job.wait(timeout), "the analysis did not finish"
        at.run(timeout=timeout)
    assert "sv-job" not in at.session_state
    assert not at.exception, at.exception
    return at


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _values_table(at):
    return next(d.value for d in at.dataframe if "importance low" in d.value.columns)


def _figure(at):
    """The values chart and the importance chart, each with the spec and data the app sent."""
    return [(chart, chart_spec(chart), chart_rows(chart)) for chart in charts(at, "sv-chart")]


def _engine(trace, coin, folder, budget, forced=False):
    """The engine's reading of what the sidecar stores (nothing is generated: asserted)."""
    before = len(coin.requests)
    analysis = analyze_trace(
        trace,
        coin,
        AnalysisParams(budget=budget, max_tokens=MAX_TOKENS),
        store=analysis_path(folder / "lc.jsonl"),
        environment=trace_environment(trace, coin),
        forced_answer=forced,
    )
    assert len(coin.requests) == before and analysis.resumed == len(analysis.rollouts)
    return analysis


def test_the_planned_cost_is_shown_before_anything_runs(folder, trace, coin):
    at = _settings(_open(folder), 30, forced=True)
    expected = plan(trace, AnalysisParams(budget=30, max_tokens=MAX_TOKENS), forced_answer=True)
    shown = _metrics(at)
    assert shown["Rollouts planned"] == "30"
    assert shown["Tokens (estimate)"] == f"~{expected.estimated_tokens + expected.forced_tokens:,}"
    assert shown["Time (estimate)"] == "unknown"
    assert expected.summary() in texts(at)
    assert "Nothing is stored for this trace in lc.analysis.jsonl yet" in texts(at)
    assert "Model: transformers/SmolLM2-135M-Instruct (the intervention panel's)" in texts(at)
    said = [w.value for w in at.warning]  # the trace's own model, its own token budget
    assert not [w for w in said if "chance of a right answer" in w or "reach the end" in w]
    assert not at.button(key="sv-run").disabled
    at.button(key="sv-speed").click().run()
    assert not at.exception
    assert _metrics(at)["Time (estimate)"] != "unknown" and "(calibrated)" in texts(at)
    assert not analysis_path(folder / "lc.jsonl").exists()  # planning wrote nothing


def test_a_run_shows_the_engines_values_and_a_larger_budget_resumes(folder, trace, coin):
    at = _run(_settings(_open(folder), 40, forced=True))
    assert any("40 new rollouts (0 read back) in 1 round" in s.value for s in at.success)
    engine = _engine(trace, coin, folder, 40, forced=True)
    table = _values_table(at)
    assert len(table) == len(trace.segments) + 1 and table["#"].iloc[-1] == "end"
    assert table["value"].tolist() == [v.value for v in engine.values]
    assert table["low"].tolist() == [v.interval.low for v in engine.values]
    assert table["high"].tolist() == [v.interval.high for v in engine.values]
    assert table["trials"].tolist() == [v.trials for v in engine.values]
    # tallied here from the rollouts the sidecar holds; after the last step, the trace's verdict
    tallies = [[r.success for r in engine.rollouts if r.boundary == b] for b in range(10)]
    assert all(r.error is None for r in engine.rollouts) and len(trace.segments) == 10
    assert table["trials"].tolist() == [len(t) for t in tallies] + [0]
    independent = [sum(t) / len(t) for t in tallies] + [float(trace.success)]
    assert table["value"].tolist() == pytest.approx(independent)
    assert table["importance"].tolist()[:-1] == pytest.approx(
        [after - before for before, after in itertools.pairwise(independent)]
    )
    steps = table["importance"].tolist()[:-1]
    assert steps == pytest.approx([s.importance for s in engine.importances])
    assert table["importance low"].tolist()[:-1] == [s.interval.low for s in engine.importances]
    answers = [a if isinstance(a, str) else None for a in table["forced answer"]]
    assert answers == [a.answer for a in engine.forced_answers]
    (_, values, bars), (_, importances, _) = _figure(at)
    assert layer_names(values)[:2] == ["step value v_i", "interval"]
    assert bars["value"].tolist() == [v.value for v in engine.values]
    assert bars["high"].tolist() == pytest.approx([v.interval.high for v in engine.values])
    assert bars["importance"].tolist()[:-1] == pytest.approx(steps)
    assert layer_names(importances)[:2] == ["importance v_i+1 − v_i", "interval"]
    forced = [p["right"] for p in rows(values, "forced answer right (1) / wrong (0)")]
    assert forced == [float(a.correct) for a in engine.forced_answers]
    assert forced[:-1] == [float(v >= 0.5) for v in TRUE_VALUES[:-1]]  # greedy coin
    assert _metrics(at)["Time (estimate)"] != "unknown"  # measured on the run
    at = _run(_settings(at, 60))
    assert any("(40 read back)" in s.value for s in at.success)
    again = _engine(trace, coin, folder, 60)
    assert len(again.rollouts) == 60
    assert _values_table(at)["trials"].tolist() == [v.trials for v in again.values]


def test_where_a_failed_trace_went_wrong_is_searched_and_shown(folder, trace, coin):
    """The sample trace climbs to 0.99, then gives no answer: its last step is the drop."""
    at = _open(folder)
    at.toggle(key="sv-first-drop").set_value(True).run()
    at = _run(_settings(at, 200))
    stored = read_analysis(analysis_path(folder / "lc.jsonl"), trace.trace_id, coin_key(coin))
    assert {r.boundary for r in stored.rollouts} == {0, 9}  # the start and the last step only
    value = _values_table(at)["value"].iloc[9]
    wanted = "Where it went wrong (the first drop of 0.2): step 9, the last: the value falls "
    wanted += f"{value:.2f} → 0.00"
    assert wanted in [c.value for c in at.caption]


def coin_key(coin):
    return analysis_key(coin.name, AnalysisParams(budget=200, max_tokens=MAX_TOKENS))


def test_a_token_budget_is_planned_and_never_spent_past(folder, trace, coin):
    at = _settings(_open(folder), 1000)
    at.text_input(key="sv-token-budget").input("300").run()
    params = AnalysisParams(budget=1000, token_budget=300, max_tokens=MAX_TOKENS)
    expected = plan(trace, params)
    assert _metrics(at)["Rollouts planned"] == f"{expected.rollouts:,}"
    at = _run(at)
    stored = read_analysis(analysis_path(folder / "lc.jsonl"), trace.trace_id, coin_key(coin))
    used = sum(r.tokens for r in stored.rollouts)
    assert 300 - MAX_TOKENS < used <= 300  # admitted at the rollouts' limit, the trace's own


def test_clicking_a_bar_selects_its_segment(folder, coin):
    at = _run(_settings(_open(folder, segment=1), 40))
    [(chart, _, _), _] = _figure(at)
    click_segment(at, chart, 4)
    assert not at.exception
    assert str(at.query_params["segment"]).strip("[]'") == "4"
    assert "Segment 4" in [t.label for t in at.tabs]
    assert "sv-chart-values-1-4" in _figure(at)[0][0].proto.id  # the panel follows the selection


class Gated:
    """The coin backend, held before every call after the first until ``gate`` is set."""

    def __init__(self, coin):
        self.coin = coin
        self.name = coin.name
        self.capabilities = BackendCapabilities()
        self.calls = 0
        self.gate = threading.Event()

    def generate(self, requests):
        self.calls += 1
        if self.calls > 1:
            assert self.gate.wait(60), "the test never opened the gate"
        return self.coin.generate(requests)


def test_stop_keeps_the_finished_rounds_and_a_rerun_resumes(folder, trace, coin, monkeypatch):
    gated = Gated(coin)
    monkeypatch.setattr(step_values_run, "load_backend", lambda choice, key=None: gated)
    at = _settings(_open(folder), 60)
    at.button(key="sv-run").click().run()
    job = at.session_state["sv-job"]
    for _ in range(600):  # the first round is stored, then the model is held
        if job.rounds():
            break
        time.sleep(0.05)
    at.run()
    shown = str([p.proto.text for p in at.get("progress")])
    assert job.running and "40 of at most 60 rollouts finished" in shown
    assert "1 round stored" in shown
    at.button(key="sv-stop").click().run()
    assert "Stopping at the model's next token" in texts(at)
    gated.gate.set()
    assert job.wait(60)
    at.run()
    assert not at.exception
    assert any("Stopped after 2 rounds in all: 50 new rollouts kept" in s.value for s in at.success)
    stored = read_analysis(analysis_path(folder / "lc.jsonl"), trace.trace_id, job.key)
    assert stored.rounds == 2 and len(stored.rollouts) == 50
    assert _values_table(at)["trials"].sum() == 50  # the kept rounds are shown
    at = _run(at)
    assert any("(50 read back)" in s.value for s in at.success)


def test_an_engine_error_is_shown_and_nothing_stored_is_lost(folder, trace, coin, monkeypatch):
    at = _run(_settings(_open(folder), 40))
    sidecar = analysis_path(folder / "lc.jsonl")
    kept = sidecar.read_bytes()

    class Broken:
        name = coin.name
        capabilities = BackendCapabilities()

        def generate(self, requests):
            raise RuntimeError("the model fell over")

    monkeypatch.setattr(step_values_run, "load_backend", lambda choice, key=None: Broken())
    at = _run(_settings(at, 60))
    assert any("The run stopped" in e.value and "the model fell over" in e.value for e in at.error)
    assert "Every round finished before the error is kept" in texts(at)
    assert sidecar.read_bytes() == kept
    assert _values_table(at)["trials"].sum() == 40  # still shown
    with sidecar.open("a") as handle:
        handle.write('{"kind": "rollouts"}\n')
    at.run()
    assert not at.exception
    assert any(
        "stored step values cannot be shown" in e.value and "line 2" in e.value for e in at.error
    )


def test_no_model_and_no_segments_get_a_clear_message(folder, coin):
    at = _open(folder)
    at.selectbox(key="iv-model").set_value(ModelKind.FOLDER).run()  # no folder typed yet
    assert "No model to run the rollouts" in texts(at)
    assert "sv-run" not in [b.key for b in at.button]
    at.text_input(key="iv-FOLDER").input("/models/mine").run()
    assert "Model: transformers//models/mine" in texts(at)
    empty = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
    write_traces(folder / "empty.jsonl", [empty])
    at = open_page("browse", file=str(folder / "empty.jsonl"), trace="1")
    assert not at.exception
    assert "This trace has no segments: there is no step to value." in texts(at)


def test_a_run_where_nothing_moved_says_so_in_the_caption(folder, monkeypatch):
    # products line 5 (3 segments), budget 8, every rollout failing: the "0 (sure), ..."
    shutil.copy(REPO / "sample_traces" / "products-smollm2.jsonl", folder / "p.jsonl")
    trace = list(read_traces(folder / "p.jsonl"))[4]
    backend = CoinBackend(trace, (0.0,) * 4, str(trace.task.expected_answer))
    monkeypatch.setattr(step_values_run, "load_backend", lambda choice, key=None: backend)
    at = open_page("browse", file=str(folder / "p.jsonl"), trace="5", segment="0")
    at.toggle(key="sv-plan").set_value(True).run()
    at = _run(_settings(at, 8))
    caption = next(c.value for c in at.caption if "stored in p.analysis.jsonl" in c.value)
    assert f"· no step moved the value detectably at this budget ({CHANCES_CHECKED})" in caption
    assert "(sure)" not in caption


def test_only_rollouts_where_the_content_did_not_return(tmp_path, monkeypatch):
    """Rollouts whose returns are known (tests/analysis/test_resilience.py): the toggle adds
    the share returned and measures the importance on the others, stored beside the trace."""
    folder = tmp_path / "traces"
    folder.mkdir()
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    monkeypatch.setattr(content_returns_view, "similarity", LexicalSimilarity)
    trace = constructed_trace()
    write_traces(folder / "cows.jsonl", [trace])
    store = analysis_path(folder / "cows.jsonl")
    key = analysis_key("m", AnalysisParams())
    append_rollouts(store, trace.trace_id, key, 0, constructed_rollouts())
    at = open_page("browse", file=str(folder / "cows.jsonl"), trace="1", segment="1")
    assert not at.exception, at.exception
    assert "returned" not in _values_table(at).columns
    before = _values_table(at)["importance"].tolist()
    at.toggle(key=content_returns_view.ONLY_GONE).set_value(True).run()
    assert not at.exception, at.exception
    table = _values_table(at)
    assert table["returned"].tolist()[1:3] == pytest.approx([4 / 6, 0.0])
    assert table["importance"].iloc[1] == pytest.approx(1.0) != before[1]
    assert table["importance"].iloc[2] != table["importance"].iloc[2]  # NaN: no value after it
    wanted = "Removed content returned in 4 of 10 rollouts (similarity ≥ 0.8: word overlap"
    assert any(c.value.startswith(wanted) for c in at.caption)
    (_, _, bars), (_, _, _) = _figure(at)
    assert bars["importance"].iloc[1] == pytest.approx(1.0)
    kinds = [json.loads(line)["kind"] for line in store.read_text().splitlines()]
    assert kinds == ["rollouts", "returns"]


R1 = REPO / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
"""The imported R1 trace (line 3: 321 steps, published values from R1-Distill-Llama-8B)."""


@pytest.fixture
def r1(tmp_path, monkeypatch):
    """A traces folder with a copy of the R1 sample and its published values."""
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(R1, traces / "r1.jsonl")
    shutil.copy(analysis_path(R1), analysis_path(traces / "r1.jsonl"))
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return traces / "r1.jsonl"


def _written_after(trace):
    """The tokens the trace wrote after each boundary it ended past: its text, 4 characters a
    token (it records no token ids)."""
    assert trace.segments[-1].terminal and trace.segments[0].token_ids is None
    sizes = [-(-len(s.text) // 4) for s in trace.segments]
    return [sum(sizes[b:]) for b in range(len(sizes))]


def test_the_planner_on_an_imported_r1_trace_says_whose_values_and_how_far_the_cap_reaches(r1):
    trace = list(read_traces(r1))[2]
    written = _written_after(trace)
    median, longest = sorted(written)[(len(written) - 1) // 2], max(written)
    assert len(written) == 321 and median > 256
    kept = analysis_path(r1).read_bytes()
    at = open_page("browse", file=str(r1), trace="3", segment="158")
    at.toggle(key="sv-plan").set_value(True).run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    [model] = [w for w in warnings if "chance of a right answer" in w]
    assert "published values came from deepseek-r1-distill-llama-8b" in model
    assert "r1-distill-llama-8b" in model.casefold()
    assert (
        "rollouts with transformers/SmolLM2-135M-Instruct measure "
        "transformers/SmolLM2-135M-Instruct's chance of a right answer from these prefixes, "
        "not deepseek-r1-distill-llama-8b's"
    ) in model
    [cap] = [w for w in warnings if "reach the end" in w]
    reached = sum(tokens <= 256 for tokens in written)
    assert cap.startswith(
        f"256 tokens reach the end from {reached} of 321 boundaries; the trace wrote a median of "
        f"{median:,} tokens after a boundary, at most {longest:,}"
    )
    assert f"tokens per rollout {longest} reaches the end from every boundary" in cap
    assert at.button(key="sv-run").disabled  # too short for most boundaries: confirm first
    at.checkbox(key=step_values_view.SHORT_OK).check().run()
    assert not at.button(key="sv-run").disabled
    box = at.text_input(key=f"{step_values_view.MAX_TOKENS_KEY}-{trace.trace_id}")
    box.input(str(median)).run()  # half the boundaries reached: said, Run needs no tick
    [cap] = [w.value for w in at.warning if "reach the end" in w.value]
    half = sum(tokens <= median for tokens in written)
    assert cap.startswith(f"{median:,} tokens reach the end from {half} of 321 boundaries")
    assert step_values_view.SHORT_OK not in [c.key for c in at.checkbox]
    assert not at.button(key="sv-run").disabled
    at.text_input(key=box.key).input(str(longest)).run()
    assert not any("reach the end" in w.value for w in at.warning)
    assert f"Each rollout: at most {longest} tokens" in texts(at)
    assert analysis_path(r1).read_bytes() == kept  # planning wrote nothing


def test_the_value_table_opens_on_the_rows_the_chart_shows(r1):
    at = open_page("browse", file=str(r1), trace="3", segment="158")
    assert not at.exception, at.exception
    for chart in charts(at, "sv-chart"):
        assert chart_rows(chart)["segment"].tolist() == list(range(128, 189))
    assert _values_table(at)["#"].tolist() == [str(b) for b in range(128, 189)]
    wanted = (
        "Rows 128–188 of 0–321, the chart’s window: turn on Whole trace above to see every row."
    )
    assert wanted in [c.value for c in at.caption]
    at.toggle(key=WHOLE).set_value(True).run()
    table = _values_table(at)
    assert table["#"].tolist() == [*map(str, range(321)), "end"]
    assert "the chart’s window" not in texts(at)
