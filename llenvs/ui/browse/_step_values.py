"""The Browse page's step values panel: how much each segment moves the chance of success.

What the trace file's ``*.analysis.jsonl`` sidecar holds for the open trace is read back and
drawn, never recomputed (our rollouts, one choice per model and sampling, and the values a study
published, such as Thought Anchors', imported beside the trace): the step value ``v_i`` before
each segment (the success rate of continuations from there) and the importance of each segment
(``v_{i+1} - v_i``), with their 95% intervals, in the segment chart's order and colours, and the
forced-answer curve when it is stored; a click on a bar selects that segment. The lower chart
can show a study's own importance measures instead, and a long trace's chart opens zoomed on
the selected segment (``importance_chart``); a failed trace's caption says where it went wrong
(``StepAnalysis.first_drop``); what is shown is computed once per trace and
sidecar version (``shown_step_values``), so a move between segments only redraws; the table
shows the chart's rows (``value_table``). Below, a run is planned (budget, target width,
temperature, tokens per rollout, forced answers on or off; for a failed trace, only the search
for where it went wrong, ``FirstDropSchedule``) and its cost shown before it starts, with what
it cannot measure: another model's rollouts than the one that wrote the trace or its published
values measure that model's chance of a right answer (``other_model``), and the tokens per
rollout may not reach the end from some boundaries (``Reach``; from most, Run waits for a
tick). It runs in the background (``StepValuesJob``) with progress (rollouts as they finish,
tokens as they are generated) and a Stop that ends the run at the model's next token, each
finished round stored as it comes, so a stopped or failed run keeps its rollouts and the next
run resumes from them. The model is the intervention panel's: the trace's own when it is
reachable here, else the Settings one, or whatever the user picked there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

import streamlit as st

from llenvs.analysis import (
    CHANCES_CHECKED,
    MOVE_DELTA,
    AnalysisParams,
    CostPlan,
    FirstDropSchedule,
    Rollout,
    SpeedSource,
    analysis_key,
    analysis_path,
    calibrate,
    plan,
    read_analysis,
)
from llenvs.analysis.sampling import Reach, other_model, reach
from llenvs.analysis.sidecar import PUBLISHED_KEY
from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    MAX_TOKENS,
    ROLLOUT_BUDGET,
    TOKEN_BUDGET,
    Bound,
)
from llenvs.evaluation import trace_sampling_params
from llenvs.traces import Trace
from llenvs.ui.browse._content_returns import returns_toggle
from llenvs.ui.browse._importance_chart import importance_chart
from llenvs.ui.browse._shown_step_values import result_keys, shown_values
from llenvs.ui.browse._step_matrix import matrix_toggle
from llenvs.ui.browse._step_value_table import value_table
from llenvs.ui.browse._step_values_run import (
    JOB_KEY,
    SHOWN_KEY,
    SPEEDS_KEY,
    last_outcome,
    load_model,
    model_name,
    run_progress,
    start_run,
)
from llenvs.ui.common import (
    FloatBound,
    OutOfRange,
    current_choice,
    number_box,
    read_number,
    shows_errors,
    stamp,
)
from llenvs.workbench import BrowseLocation, describe_key, duration
from llenvs.workbench.jobs import StepValuesJob

__all__ = ["MAX_TOKENS_KEY", "POLL_SECONDS", "SHORT_OK", "step_values_panel"]

POLL_SECONDS = 0.5
"""How often the panel redraws its progress while a run goes on."""

_DELTA_KEY = "sv-delta"
_DELTA = FloatBound("Move size δ", 0.01, 1.0, "a change in the chance of success")
_TOKEN_BUDGET = Bound("token budget", 0, TOKEN_BUDGET.high, "0: no budget")
_ROLLOUTS = Bound("budget", 1, ROLLOUT_BUDGET.high, ROLLOUT_BUDGET.why)
_WIDTH = FloatBound("target width", 0.01, 1.0, "of a 95% interval of a chance")
_TEMPERATURE = FloatBound("temperature", 0.05, 2.0, "rollouts must sample")

MAX_TOKENS_KEY = "sv-max-tokens"
"""The start of the key of the tokens-per-rollout box; the trace's id ends it, so the box opens
on each trace's own budget."""

SHORT_OK = "sv-short-ok"
"""The key of the box that confirms a run whose rollouts cannot reach an answer from most
boundaries (``Reach.short``): Run is off until it is ticked."""


def step_values_panel(
    path: str, trace: Trace, here: BrowseLocation, labels: Mapping[int, int] | None = None
) -> None:
    """Draw the panel for ``trace`` (a trace of the file ``path``), ``here`` being selected.

    ``labels``: the trace's step labels as the segment table shows them, marked on the chart.

    The stored results are part of the page (a click on a bar reruns the page, which selects
    the segment); the run controls are a fragment, and while a run goes on a small fragment
    inside them redraws its progress every ``POLL_SECONDS``.
    """
    with st.expander("Step values: rollouts from before every segment", expanded=True):
        if not trace.segments:
            st.info("This trace has no segments: there is no step to value.")
            return
        with shows_errors("The stored step values cannot be shown"):
            _stored(path, trace, here, labels)
        _controls(path, trace)


def _stored(
    path: str, trace: Trace, here: BrowseLocation, labels: Mapping[int, int] | None
) -> None:
    """The stored results: which run, its numbers, the chart (a click selects), the table."""
    store = analysis_path(path)
    version = stamp(str(store))
    keys = result_keys(str(store), trace.trace_id, version)
    if not keys:
        st.caption(f"Nothing is stored for this trace in {store.name} yet: plan a run below.")
        return
    wanted = st.session_state.get(SHOWN_KEY, {}).get(trace.trace_id)
    index = keys.index(wanted) if wanted in keys else len(keys) - 1
    if len(keys) > 1:
        index = int(
            st.selectbox(
                "Stored results",
                range(len(keys)),
                index=index,
                format_func=lambda n: describe_key(keys[n]),
                key=f"sv-stored-{trace.trace_id}-{index}",
            )
        )
    key = json.dumps(keys[index], sort_keys=True)
    delta = number_box(
        "Move size δ",
        _DELTA,
        MOVE_DELTA,
        _DELTA_KEY,
        out_of_range=OutOfRange.CLAMP,
        help="A step is called moved when its chance that |v_i+1 − v_i| ≥ δ is above 1/2; the "
        "shading, the steps called and the top steps follow it",
    ).value
    if delta is None:  # the box says why; nothing is called moved without a δ
        return
    shown = shown_values(str(store), trace.trace_id, key, version, trace, delta)
    st.caption(f"{shown.caption} ({CHANCES_CHECKED})")
    shown = returns_toggle(str(store), key, version, trace, shown)
    matrix_toggle(str(store), key, version, trace, here)
    if shown.first_drop:
        st.caption(shown.first_drop)
    if shown.failed:
        st.warning(
            f"{len(shown.failed)} of {shown.rollouts} rollouts failed and are not counted; "
            f"the last one: {shown.failed[-1]}"
        )
    span = importance_chart(shown, len(trace.segments), here, labels)
    value_table(shown.rows, span)


@st.fragment
def _controls(path: str, trace: Trace) -> None:
    """Plan a run (its cost shown first), start it, follow it, and say how it ended."""
    job: StepValuesJob | None = st.session_state.get(JOB_KEY)
    if st.toggle("Plan a run", key="sv-plan", help="Budget, target width, cost, Run"):
        with shows_errors("The run cannot be planned"):
            _planner(path, trace, running=job is not None)
        job = st.session_state.get(JOB_KEY)
    if job is not None:
        st.fragment(run_progress, run_every=POLL_SECONDS)(job)
    last_outcome(trace)


def _planner(path: str, trace: Trace, *, running: bool) -> None:
    """The run's settings, its planned cost, Measure speed and Run."""
    budget, tokens, width, temperature, per_rollout, forced = st.columns(
        6, vertical_alignment="bottom"
    )
    own = trace_sampling_params(trace)
    token_budget = number_box(
        "token budget (0: none)",
        _TOKEN_BUDGET,
        0,
        "sv-token-budget",
        where=tokens,
        help="Most tokens the rollouts may generate, stored ones included: each is priced "
        "by what the trace wrote after its boundary, and the run never spends past it",
    ).value
    rollouts = number_box("budget (rollouts)", _ROLLOUTS, 64, "sv-budget", where=budget).value
    target = number_box("target width", _WIDTH, 0.3, "sv-width", where=width).value
    heat = number_box("temperature", _TEMPERATURE, 0.7, "sv-temp", where=temperature).value
    max_tokens = number_box(
        "tokens per rollout",
        MAX_TOKENS,
        own.max_tokens if own is not None else DEFAULT_MAX_TOKENS,
        f"{MAX_TOKENS_KEY}-{trace.trace_id}",
        where=per_rollout,
        help="Most tokens one rollout may generate (at first the trace's own budget): a rollout "
        "that stops at it before an answer counts as a failure",
    )
    forced_answer = forced.checkbox(
        "forced answers", key="sv-forced", help="Also force the answer at every boundary"
    )
    search = trace.success is False and st.toggle(
        "Only where it went wrong (first drop)",
        key="sv-first-drop",
        help="Bisect over prefixes for the first step after which the value stays δ lower, "
        "sampling a few boundaries, instead of valuing every step; the budget is the most it "
        "may spend.",
    )
    if (
        max_tokens.value is None
        or token_budget is None
        or rollouts is None
        or target is None
        or heat is None
    ):
        return  # the box says why; nothing is planned
    params = AnalysisParams(
        budget=rollouts,
        token_budget=token_budget or None,
        width=target,
        temperature=heat,
        max_tokens=max_tokens.value,
    )
    choice = current_choice(trace)
    if choice is None:
        st.warning(
            "No model to run the rollouts: the trace's own model cannot be reached here and "
            "none is chosen. Choose one in the intervention panel below (or on Settings)."
        )
        return
    name = model_name(choice)
    st.caption(
        f"Model: {name} (the intervention panel's). Each rollout: at most {params.max_tokens} "
        "tokens, seed 0; the run stops once every 95% interval is narrower than the target "
        "width or a budget (stored rollouts included) is spent."
    )
    caveats = st.container()
    cost_box = st.container()
    measure, run = st.columns(2)
    if measure.button("Measure speed", key="sv-speed", help="Load the model, time one call"):
        with shows_errors("The speed was not measured"), st.spinner("Timing one short call…"):
            backend = load_model(choice)
            speeds = st.session_state.setdefault(SPEEDS_KEY, {})
            speeds[backend.name] = (calibrate(backend, trace), SpeedSource.CALIBRATED)
            name = backend.name
    stored = read_analysis(analysis_path(path), trace.trace_id, analysis_key(name, params))
    speed, source = st.session_state.get(SPEEDS_KEY, {}).get(name, (None, None))
    with cost_box:
        _show_cost(
            _plan(
                trace.trace_id,
                repr(params),
                trace,
                params,
                len(stored.rollouts),
                forced_answer,
                stored.rollouts,
            ),
            speed,
            source,
        )
    with caveats:
        confirmed = _caveats(path, trace, name, reach(trace, params))
    delta = _moved_by()  # the search's δ: the Move size box's, off while that box refuses
    off = not confirmed or (search and delta is None)
    if not running and run.button("Run", type="primary", key="sv-run", disabled=off):
        schedule = FirstDropSchedule(delta) if search and delta is not None else None
        start_run(path, trace, choice, params, forced_answer, schedule)


def _moved_by() -> float | None:
    """The δ the Move size box above uses (``MOVE_DELTA`` before it is drawn); None if refused."""
    if _DELTA_KEY not in st.session_state:
        return MOVE_DELTA
    return read_number(str(st.session_state[_DELTA_KEY]), _DELTA, OutOfRange.CLAMP).value


def _caveats(path: str, trace: Trace, model: str, reached: Reach) -> bool:
    """Say before Run what the rollouts cannot measure; False while a short limit is unconfirmed.

    Another model's rollouts measure that model (``other_model``); a limit below what the trace
    wrote after most boundaries (``Reach.short``) stops the rollouts before an answer, so Run
    waits for a tick that says to go ahead anyway.
    """
    store = analysis_path(path)
    keys = result_keys(str(store), trace.trace_id, stamp(str(store)))
    published = [str(key["model"]) for key in keys if PUBLISHED_KEY in key and "model" in key]
    caveat = other_model(model, trace, published)
    if caveat:
        st.warning(caveat, icon=":material/info:")
    warning = reached.warning("tokens per rollout")
    if not warning:
        return True
    st.warning(warning, icon=":material/warning:")
    if not reached.short:
        return True
    return st.checkbox(
        f"Run with {reached.limit:,} tokens per rollout anyway",
        key=SHORT_OK,
        help="Most rollouts will stop before an answer: the values will measure the limit, "
        "not the steps",
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _plan(
    trace_id: str,
    settings: str,
    _trace: Trace,
    _params: AnalysisParams,
    stored: int,
    forced: bool,
    _measured: Sequence[Rollout],
) -> CostPlan:
    """The plan without a speed, from the stored rollouts' real token counts (cached).

    Cached: a trace of 10,000 segments takes seconds.
    """
    del trace_id, settings  # key the cache with ``stored`` and ``forced``
    return plan(_trace, _params, stored=stored, forced_answer=forced, measured=_measured)


def _show_cost(cost: CostPlan, speed: float | None, source: SpeedSource | None) -> None:
    """The plan's rollouts, tokens and time (at ``speed`` tokens/s, when it is known)."""
    if speed is not None and source is not None:
        cost = replace(cost, tokens_per_second=speed, speed_source=source)
    rollouts, tokens, seconds = st.columns(3)
    rollouts.metric(
        "Rollouts planned",
        f"{cost.rollouts:,}",
        help=f"At most, at {cost.boundaries} boundaries; {cost.stored} stored under these "
        "settings are read back, not generated",
    )
    tokens.metric(
        "Tokens (estimate)",
        f"~{cost.estimated_tokens + cost.forced_tokens:,}",
        help=(
            f"From {cost.measured} rollouts made with these settings"
            if cost.measured
            else "From what the trace generated after each boundary"
        )
        + f"; at most {cost.max_tokens:,}",
    )
    seconds.metric(
        "Time (estimate)",
        duration(cost.seconds),
        help=f"At most {duration(cost.seconds_at_most)}, if every rollout runs to its limit",
    )
    st.caption(cost.summary())
    st.caption(
        {
            SpeedSource.UNKNOWN: "The time is known once the speed is: Measure speed, or run.",
            SpeedSource.CALIBRATED: "Speed measured by one short call (a batch goes faster).",
            SpeedSource.GIVEN: "Speed measured on the last run of this model.",
        }[cost.speed_source]
    )
