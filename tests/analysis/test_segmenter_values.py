"""Does the segmenter change which step mattered: a coin whose value jumps at known characters.

The response's value is 0.1 before the sentence "So the cows have 100 legs." and 0.9 after it
(``CharacterCoin``: a continuation from character c succeeds with the value there). The sentence
segmenter and the steps segmenter cut on both sides of that sentence: their largest moves agree
on it. The paragraph segmenter merges it with the next sentence into one step: its largest move
covers the same text, blurred over a wider span, and its importances on characters rank less
alike. The products sample's stored comparison (4 to 9 rollouts per boundary) is too few to
tell, and two of its cuts have the same spike at different spans.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from llenvs.analysis import AnalysisParams, FixedSchedule, analysis_path
from llenvs.analysis.instruments import (
    MoveCertainty,
    SegmenterPair,
    compare_segmenters,
    plan_cuts,
    resegmented,
    stored_comparison,
)
from llenvs.analysis.sidecar import read_analysis, read_segmenter_values
from llenvs.cli import _analyze_command as analyze_command
from llenvs.cli.main import main
from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    BackendCapabilities,
    FinishReason,
    Generation,
    RunControl,
    SegmentedEnvironment,
    StopToken,
)
from llenvs.core.registry import environment_registry
from llenvs.evaluation import replay_trace
from llenvs.traces import read_traces, write_traces

PRODUCTS = Path(__file__).parents[2] / "sample_traces" / "products-smollm2.jsonl"

MOVE = "So the cows have 100 legs. "
RESPONSE = (
    "There are 25 cows. Each cow has 4 legs.\n\n"
    f"{MOVE}The legs are counted.\n\n"
    "Final answer: <answer>100</answer>"
)
START = RESPONSE.index(MOVE)
END = START + len(MOVE)
SPECS = ("sentence", "steps", "line:\\n\\n")


class CharacterCoin:
    """Continues the response from character c with a right answer with probability value(c)."""

    name = "coin"
    capabilities = BackendCapabilities()

    def __init__(self, value):
        self.value = value

    def generate(self, requests):
        out = []
        for request in requests:
            at = len(request.prompt.continuation)
            assert RESPONSE.startswith(request.prompt.continuation), "not a prefix of the response"
            right = random.Random(request.params.seed).random() < self.value(at)
            answer = "100" if right else "96"
            out.append(Generation(f" <answer>{answer}</answer>", FinishReason.STOP, (1, 2, 3)))
        return out


def value_at(char: int) -> float:
    """0.1 up to the start of the moving sentence, 0.9 from its end (between: not cut there)."""
    return 0.1 if char <= START else 0.9


@pytest.fixture
def trace():
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    made = replay_trace(SegmentedEnvironment(base, "sentence"), 0, RESPONSE, model="coin")
    assert made.success is True and made.task.expected_answer == "100"
    return made


def _compare(trace, store, control=None):
    params = AnalysisParams(budget=400, max_tokens=8, seed=3)
    return compare_segmenters(
        trace,
        SPECS,
        CharacterCoin(value_at),
        params,
        store=store,
        schedule=lambda: FixedSchedule(per_round=40),
        control=control,
    )


def test_segmenters_that_cut_at_the_move_agree_and_one_that_merges_it_blurs_it(trace, tmp_path):
    store = tmp_path / "runs.analysis.jsonl"
    comparison = _compare(trace, store)
    sentence, steps, paragraphs = comparison.segmenters
    assert sentence.largest() == steps.largest() == (START, END)  # the moving sentence
    wide = paragraphs.largest()
    assert wide is not None and wide[0] <= START and wide[1] > END  # it, and more
    by_pair = {(p.first, p.second): p for p in comparison.pairs()}
    agree = by_pair[("sentence", "steps")]
    assert agree.same_span and agree.widths == (END - START, END - START)
    assert agree.tau == pytest.approx(1.0)  # the same cuts: the same importances
    assert agree.summary().startswith(
        f"sentence vs steps: their largest moves fall on the same text (characters {START}–{END})"
    )
    blurred = by_pair[("sentence", "line:\\n\\n")]
    assert blurred.same_span and blurred.widths[1] > blurred.widths[0]
    assert blurred.tau is not None and blurred.tau < agree.tau
    assert (  # + "The legs are counted.\\n\\n"
        f"overlap at characters {START}–{END} (sentence {START}–{END}, line:\\n\\n {START}–"
        f"{wide[1]}: 27 against 50 characters wide)"
    ) in blurred.summary()
    # ~17 rollouts per boundary tell 0.1 from 0.9: each largest move's intervals are apart
    for number, values in enumerate(comparison.segmenters):
        certainty = comparison.certainty(number)
        assert certainty.told is True and certainty.per_boundary[0] >= 10
        low = comparison.cut_intervals(number)[values.cuts.index(START)]
        assert low.interval.high < 0.5 and 0.1 in low.interval  # the coin's values there
        high = comparison.cut_intervals(number)[values.cuts.index(wide[1])]
        assert high.interval.low > 0.5 and 0.9 in high.interval
    assert not any(p.too_few for p in comparison.pairs())
    assert "too few" not in " ".join(p.summary() for p in comparison.pairs())
    # every cut sampled its own boundaries, stored under its own id
    for spec, values in zip(SPECS, comparison.segmenters, strict=True):
        cut = resegmented(trace, spec)
        assert values.cuts == (0, *(s.end for s in cut.segments))
        stored = read_analysis(store, cut.trace_id, {"model": "coin", **_params_key()})
        assert len(stored.rollouts) == values.rollouts > 0


def _params_key():
    return AnalysisParams(budget=400, max_tokens=8, seed=3).key()


def test_the_comparison_is_stored_beside_the_trace_and_read_back(trace, tmp_path):
    traces = tmp_path / "runs.jsonl"
    write_traces(traces, [trace])
    store = analysis_path(traces)
    comparison = _compare(trace, store)
    key, stored = stored_comparison(store, trace.trace_id)
    assert key["segmenters"] == list(SPECS) and key["model"] == "coin"
    assert stored.segmenters == comparison.segmenters
    assert [p.summary() for p in stored.pairs()] == [p.summary() for p in comparison.pairs()]
    # the intervals recounted from the stored rollouts are the run's own, the verdict exact
    for number, values in enumerate(stored.segmenters):
        read, ran = stored.cut_intervals(number), comparison.cut_intervals(number)
        assert [(b.trials, b.successes, b.interval, b.exact) for b in read] == [
            (b.trials, b.successes, b.interval, b.exact) for b in ran
        ]
        assert read[-1].exact and read[-1].value == 1.0 and len(read) == len(values.cuts)
    lines = [json.loads(line) for line in store.read_text().splitlines()]
    assert [line["kind"] for line in lines].count("segmenters") == 1
    again = _compare(trace, store)  # resumed: every rollout read back, nothing generated
    assert again.segmenters == comparison.segmenters
    assert len(read_segmenter_values(store, trace.trace_id)) == 2


def test_a_stopped_comparison_keeps_its_rollouts_and_stores_no_comparison(trace, tmp_path):
    store = tmp_path / "runs.analysis.jsonl"
    token = StopToken()
    seen = []

    def stop_after_the_first(event):
        seen.append(event)
        if len(seen) > 50:
            token.stop()

    comparison = _compare(trace, store, RunControl(stop_after_the_first, token))
    assert comparison.stopped and len(comparison.segmenters) < len(SPECS)
    assert read_segmenter_values(store, trace.trace_id) == []
    assert store.exists()  # the finished rounds were kept


def test_a_trace_with_feedback_cannot_be_cut_again(trace):
    import dataclasses

    from llenvs.traces import SegmentFlag

    first = dataclasses.replace(
        trace.segments[0], flags=trace.segments[0].flags | {SegmentFlag.FEEDBACK_AFTER}
    )
    with_feedback = dataclasses.replace(trace, segments=(first, *trace.segments[1:]))
    with pytest.raises(ValueError, match="injected feedback"):
        resegmented(with_feedback, "sentence")


def test_the_cli_plans_runs_prints_and_reads_back_the_comparison(
    trace, tmp_path, monkeypatch, capsys
):
    traces = tmp_path / "runs.jsonl"
    write_traces(traces, [trace])
    coin = CharacterCoin(value_at)
    monkeypatch.setattr(analyze_command, "recorded_backend", lambda *a, **k: coin)
    argv = ["analyze", str(traces), "--segmenters", *SPECS, "--budget", "200", "--no-progress"]
    assert main([*argv, "--max-tokens", "8", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("planned per segmenter: sentence ~") and "tokens in all" in out[0]
    rows = {line.split()[0]: line for line in out[2:5]}
    assert f"{START}–{END} (+0." in rows["sentence"] and repr(MOVE) in rows["sentence"]
    same = (
        f"sentence vs steps: their largest moves fall on the same text (characters {START}–{END});"
    )
    assert out[5].startswith(same)
    assert out[-1] == f"stored in {analysis_path(traces)}"
    assert main(["analyze", str(traces), "--segmenters", *SPECS, "--budget", "0"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert again[0] == "stored comparison (coin, seed 3):" and again[1:] == out[1:-1]
    assert main(["analyze", str(traces), "--segmenters", "steps", "sentence", "--budget", "0"]) == 0
    other = capsys.readouterr().out.splitlines()
    assert other[0] == "no comparison of steps sentence stored; the last stored is of " + " ".join(
        SPECS
    )
    assert other[1:] == again
    assert main(["analyze", str(traces), "--segmenters", "sentence", "--budget", "0"]) == 2
    assert "--segmenters takes 2 to 4 specs, got 1" in capsys.readouterr().err
    assert main(["analyze", str(traces), "--segmenters", "sentence", "wrong", "--budget", "0"]) == 2
    assert "wrong" in capsys.readouterr().err


def test_compare_segmenters_plans_runs_and_shows_the_comparison_on_characters(
    trace, tmp_path, monkeypatch
):
    from llenvs.ui.compare import _segmenter_values as segmenter_values_view
    from llenvs.workbench.files import TRACES_DIR_ENV
    from tests.app.test_pages import open_page, texts

    folder = tmp_path / "traces"
    folder.mkdir()
    write_traces(folder / "cows.jsonl", [trace])
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    coin = CharacterCoin(value_at)
    monkeypatch.setattr(segmenter_values_view, "load_backend", lambda choice, key=None: coin)
    at = open_page("compare", file=str(folder / "cows.jsonl"), trace="1")
    for number, spec in enumerate(SPECS):
        at.text_input(key=f"compare-spec-{number}").set_value(spec).run()
    assert "No comparison is stored for this trace in cows.analysis.jsonl yet." in texts(at)
    at.text_input(key="sg-budget").set_value("120").run()
    shown = {m.label: m.value for m in at.metric}
    params = AnalysisParams(budget=120, max_tokens=DEFAULT_MAX_TOKENS)  # the trace records none
    expected = sum(c.estimated_tokens for _, c in plan_cuts(trace, SPECS, params))
    assert shown["Tokens (estimate)"] == f"~{expected:,}"
    assert not analysis_path(folder / "cows.jsonl").exists()  # planning wrote nothing
    at.button(key="sg-run").click().run()
    job = at.session_state["sg-job"]
    assert job.wait(60) and job.error is None, job.error
    at.run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("Compared 3 segmenters; stored in") for s in at.success)
    _, stored = stored_comparison(analysis_path(folder / "cows.jsonl"), trace.trace_id)
    table = next(d.value for d in at.dataframe if "Kendall τ" in d.value.columns)
    first = table.iloc[0].to_dict()
    assert first["segmenters"] == "sentence vs steps" and first["rollouts tell?"] == "yes"
    assert first["largest moves"] == f"same text {START}–{END}"
    assert all(p.summary() in texts(at) for p in stored.pairs())
    assert "too few rollouts" not in texts(at).lower()
    figure = _chart(at)
    values = [t for t in figure["data"] if t.get("yaxis", "y") == "y"]
    assert [t["name"].split(" (")[0] for t in values] == list(SPECS)  # the boxes' segmenters
    for number, drawn in enumerate(values):
        cuts = stored.segmenters[number].cuts
        bounds = stored.cut_intervals(number)
        at_move = cuts.index(START)
        # the value before the moving sentence is the coin's 0.1, after it 0.9, within the
        # 95% interval drawn as an error bar; the hover names the text that follows
        assert drawn["y"][at_move] < 0.5 and drawn["y"][at_move + 1] > 0.5
        low = drawn["y"][at_move] - drawn["error_y"]["arrayminus"][at_move]
        high = drawn["y"][at_move] + drawn["error_y"]["array"][at_move]
        assert low == pytest.approx(bounds[at_move].interval.low)
        assert high == pytest.approx(bounds[at_move].interval.high) and low <= 0.1 <= high
        assert f"character {START}, before: So the cows have 100 legs." in drawn["text"][at_move]
        assert f"from {bounds[at_move].trials} rollouts" in drawn["text"][at_move]
    ticks = _ticks(figure)
    assert ticks[START].endswith(f"{START}<br>So the cows…")  # the text under the axis
    assert ticks[0] == "0<br>There are 2…"


def _ticks(figure):
    """The text axis's ticks: character offset to its label."""
    axis = figure["layout"]["xaxis2"]
    return dict(zip(axis["tickvals"], axis["ticktext"], strict=True))


def _chart(at):
    """The figure of the panel's chart, as the page sent it."""
    [chart] = [c for c in at.get("plotly_chart") if "sg-chart" in c.proto.id]
    return json.loads(chart.proto.spec)


def test_the_stored_comparison_says_too_few_to_tell_and_the_same_spike_at_other_spans():
    """The products sample: 4 to 9 rollouts per boundary; steps and sentence peak at 42."""
    trace = next(read_traces(PRODUCTS))
    _, stored = stored_comparison(analysis_path(PRODUCTS), trace.trace_id)
    assert [v.spec for v in stored.segmenters] == ["steps", "sentence", "token:16"]
    certainty = [stored.certainty(n) for n in range(3)]
    assert certainty[:2] == [MoveCertainty(False, (4, 6)), MoveCertainty(False, (4, 8))]
    assert certainty[2].told is True  # 0 of 5 against 7 of 9: apart
    steps_vs_sentence = stored.pairs()[0]
    assert steps_vs_sentence.spans == ((42, 56), (28, 42))  # different spans ...
    assert steps_vs_sentence.same_span is False
    assert steps_vs_sentence.spike.character == 42 and steps_vs_sentence.spike.peak  # one spike
    assert steps_vs_sentence.summary().startswith(
        "steps vs sentence: too few rollouts to tell, 4–8 per boundary: the 95% intervals either "
        "side of each one's largest move overlap. As estimated: the same peak at character 42, "
        "their largest moves its two sides (steps 42–56, sentence 28–42); Kendall τ"
    )
    assert (
        stored.pairs()[1]
        .summary()
        .startswith(
            "steps vs token:16: too few rollouts to tell, 4–9 per boundary: the 95% intervals "
            "either side of the largest move of steps overlap."
        )
    )
    # without intervals (a comparison whose rollouts are gone) nothing is said of them
    bare = SegmenterPair.of(*stored.segmenters[:2])
    assert not bare.too_few and bare.summary().startswith("steps vs sentence: the same peak")


def test_compare_segmenters_opens_on_the_stored_segmenters_with_their_intervals(
    tmp_path, monkeypatch
):
    from llenvs.workbench.files import TRACES_DIR_ENV
    from tests.app.test_pages import open_page, texts

    for path in (PRODUCTS, analysis_path(PRODUCTS)):
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("compare", file=str(tmp_path / PRODUCTS.name), trace="1")
    boxes = [at.text_input(key=f"compare-spec-{n}").value for n in range(3)]
    assert boxes == ["steps", "sentence", "token:16"] and at.slider[0].value == 3
    shown = texts(at)
    assert "Step values of this trace under the segmenters above" in shown
    assert "not of the segmenters above" not in shown
    [warning] = [w.value for w in at.warning if "Too few rollouts" in w.value]
    assert warning.startswith(
        "Too few rollouts to tell which step mattered under steps (4–6 per boundary), "
        "sentence (4–8 per boundary): the 95% intervals either side of the largest move overlap"
    )
    assert "the same peak at character 42" in shown
    table = next(d.value for d in at.dataframe if "Kendall τ" in d.value.columns)
    assert table["largest moves"].tolist() == ["same peak at 42", "apart", "apart"]
    assert set(table["rollouts tell?"]) == {"no: too few rollouts"}
    figure = _chart(at)
    drawn = [t for t in figure["data"] if t.get("yaxis", "y") == "y"]
    assert [t["name"] for t in drawn] == [
        "steps (4–6 rollouts per boundary)",
        "sentence (4–8 rollouts per boundary)",
        "token:16 (4–9 rollouts per boundary)",
    ]
    steps = drawn[0]  # at character 42 (boundary 3): 4 of 4, Wilson 0.51–1.00
    assert steps["y"][3] == 1.0 and steps["error_y"]["arrayminus"][3] == pytest.approx(0.4899, 1e-3)
    assert (
        steps["text"][7] == "v = 1.00, the trace's own verdict<br>character 114, before: (the end)"
    )
    ticks = _ticks(figure)
    assert ticks[42].endswith("42<br>4. 4 * 3 = …") and ticks[0] == "0<br>1. 4 * 3 = …"
    assert ticks[28].startswith("<br><br>28<br>3. 4 * 3")  # 8 characters after 20: a line lower
    # boxes that hold other segmenters: the stored comparison names its own
    at.text_input(key="compare-spec-2").set_value("line:\\n\\n").run()
    assert not at.exception
    shown = texts(at)
    assert "Step values of this trace under these segmenters" in shown
    assert (
        "This stored comparison is of steps, sentence, token:16, not of the segmenters above "
        "(steps, sentence, line:\\n\\n): Run compares those."
    ) in shown
