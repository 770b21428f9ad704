"""The Compare segmenters page's step values: which step mattered under each segmenter.

For a trace (not a pasted text), the segmenters chosen above are compared on what they conclude,
not only where they cut: each cut of the response is analysed (rollouts from before each of its
segments, ``compare_segmenters``) and every cut's values, with their 95% intervals, and
importances are drawn on one axis, the response's characters labelled with its text
(``segmenter_values_figure``), with a row per pair of segmenters (``pair_rows``: where their
largest moves fall, how wide each is, Kendall's τ on characters, whether the rollouts can tell).
What the trace file's analysis sidecar holds is shown at once, never computed again: the
segmenter boxes open on the segmenters it stored (``choose_specs``), and where they no longer
hold them the stored comparison names its own; where the intervals either side of a largest move
overlap, it says that the rollouts are too few to tell. A run is planned first (the rollouts
and the estimated tokens of each cut), runs in the background (``SegmenterValuesJob``) with its
progress and a Stop that keeps what finished, and is stored beside the trace. The model is the
trace's own where it can be reached, else the Settings one.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from llenvs.analysis import (
    AnalysisParams,
    SegmenterComparison,
    analysis_path,
    plan_cuts,
    stored_comparison,
)
from llenvs.core import DEFAULT_MAX_TOKENS, Bound
from llenvs.core.errors import LlenvsError
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.evaluation import trace_sampling_params
from llenvs.traces import Trace
from llenvs.ui.common import (
    current_choice,
    current_session,
    job_controls,
    load_backend,
    number_box,
    session_key,
    show_outcome,
    shows_errors,
    stamp,
    trace_outcome,
)
from llenvs.ui.compare import _page as compare_view
from llenvs.ui.compare._page import DEFAULT_SPECS
from llenvs.workbench import MISSING, count, describe_key
from llenvs.workbench.charts import pair_rows, segmenter_values_figure
from llenvs.workbench.jobs import SegmenterValuesJob

__all__ = ["POLL_SECONDS", "choose_specs", "segmenter_values_panel"]

POLL_SECONDS = 0.5
"""How often the progress is redrawn while a run goes on."""

_JOB = "sg-job"
_OUTCOME = "sg-outcome"


def choose_specs(chosen: tuple[str, int, Trace] | None) -> list[str]:
    """The segmenter boxes, opening on the segmenters stored for ``chosen`` (else the defaults)."""
    opening: list[str] = list(DEFAULT_SPECS[:3])
    opened_for = None
    if chosen is not None:
        path, _, trace = chosen
        store = str(analysis_path(path))
        opened_for = (path, trace.trace_id)
        try:
            found = _stored(store, trace.trace_id, None, stamp(store))
        except (LlenvsError, OSError, ValueError):  # the panel below says why
            found = None
        if found is not None:
            opening = [v.spec for v in found[1].segmenters]
    return compare_view.choose_specs(opening, opened_for)


def segmenter_values_panel(path: str, trace: Trace, specs: list[str]) -> None:
    """Draw the stored comparison of ``trace`` (of the file ``path``) and the run controls."""
    with st.container(key="sg-panel", border=True):
        st.subheader("Which step mattered under each segmenter")
        specs = _valid(specs)
        store = analysis_path(path)
        with shows_errors("The stored comparison cannot be shown"):
            found = _stored(str(store), trace.trace_id, tuple(specs), stamp(str(store)))
            if found is None:
                found = _stored(str(store), trace.trace_id, None, stamp(str(store)))
            if found is None:
                st.caption(
                    "Step values of this trace under each segmenter above, on one axis: the "
                    "response's characters, so a move found in a sentence and in the paragraph "
                    f"holding it line up. No comparison is stored for this trace in {store.name} "
                    "yet."
                )
            else:
                key, comparison = found
                _show(trace, key, comparison, store.name, specs)
        if len(specs) < 2:
            st.info("Choose at least two different segmenters above (specs that build).")
            return
        _controls(path, trace, specs)


def _valid(specs: list[str]) -> list[str]:
    """The specs that build a segmenter, each once, in order (a bad one is said above)."""
    valid = []
    for spec in dict.fromkeys(specs):
        try:
            segmenter_from_spec(spec)
        except LlenvsError:  # an unknown name or a spec that does not parse
            continue
        valid.append(spec)
    return valid


@st.cache_data(max_entries=16, show_spinner=False)
def _stored(
    store: str, trace_id: str, specs: tuple[str, ...] | None, version: tuple[int, int]
) -> tuple[dict[str, object], SegmenterComparison] | None:
    """The last comparison stored (of exactly ``specs`` when given), read once per version."""
    del version  # keys the cache: the sidecar as it is now
    return stored_comparison(store, trace_id, specs)


def _show(
    trace: Trace,
    key: dict[str, object],
    comparison: SegmenterComparison,
    name: str,
    boxes: list[str],
) -> None:
    """The stored comparison: which segmenters, where it comes from, the chart, the pairs."""
    model = {k: v for k, v in key.items() if k != "segmenters"}
    rollouts = sum(v.rollouts for v in comparison.segmenters)
    stored = [v.spec for v in comparison.segmenters]
    st.caption(
        f"Stored in {name}: {', '.join(stored)} · {count(rollouts, 'rollout')} "
        f"({describe_key(model)}). Step values of this trace under "
        + ("the segmenters above" if stored == boxes else "these segmenters")
        + ", on one axis: the response's characters, labelled with its text, so a move found "
        "in a sentence and in the paragraph holding it line up."
    )
    if stored != boxes:
        st.info(
            f"This stored comparison is of {', '.join(stored)}, not of the segmenters above "
            f"({', '.join(boxes) or 'none that build'}): Run compares those."
        )
    unsure = [
        (v.spec, c.spread)
        for v, c in ((v, comparison.certainty(n)) for n, v in enumerate(comparison.segmenters))
        if c.told is False
    ]
    if unsure:
        names = ", ".join(f"{spec} ({spread} per boundary)" for spec, spread in unsure)
        st.warning(
            f"Too few rollouts to tell which step mattered under {names}: the 95% intervals "
            "either side of the largest move overlap, so it cannot be told from no move. Run "
            "again with more rollouts per segmenter to tell."
        )
    st.plotly_chart(
        segmenter_values_figure(comparison, trace.response), key=f"sg-chart-{trace.trace_id}"
    )
    st.dataframe(pair_rows(comparison), hide_index=True, placeholder=MISSING)
    for pair in comparison.pairs():
        st.caption(pair.summary())


@st.fragment
def _controls(path: str, trace: Trace, specs: list[str]) -> None:
    """Plan (rollouts and tokens per cut), Run, progress with Stop, and how the run ended."""
    job: SegmenterValuesJob | None = st.session_state.get(_JOB)
    if job is not None:
        st.fragment(_live, run_every=POLL_SECONDS)(job)
        return
    budget = number_box(
        "Rollouts per segmenter",
        Bound("rollouts per segmenter", 1, 10_000, "each a stored line"),
        32,
        "sg-budget",
        help="Each cut's budget (rollouts stored for it count)",
    ).value
    if budget is None:  # the box says why; nothing is planned or run
        return
    own = trace_sampling_params(trace)
    params = AnalysisParams(
        budget=budget, max_tokens=own.max_tokens if own is not None else DEFAULT_MAX_TOKENS
    )
    wanted = specs
    with shows_errors("The run cannot be planned"):
        costs = plan_cuts(trace, wanted, params)
        total = sum(cost.estimated_tokens for _, cost in costs)
        st.metric("Tokens (estimate)", f"~{total:,}")
        st.caption(
            " · ".join(
                f"{spec}: {cost.boundaries} boundaries, up to {count(cost.rollouts, 'rollout')}, "
                f"~{cost.estimated_tokens:,} tokens"
                for spec, cost in costs
            )
        )
    choice = current_choice(trace)
    if choice is None:
        st.warning("No model to run the rollouts: choose one on Settings.")
        return
    name = choice.model_spec().recorded_name
    st.caption(f"Model: {name}; each rollout at most {params.max_tokens} tokens.")
    _last_outcome(trace)
    if st.button("Run", type="primary", key="sg-run"):
        with shows_errors("Nothing was run"):
            backend = load_backend(choice, session_key())
            st.session_state[_JOB] = SegmenterValuesJob(
                path, trace, wanted, backend, params, session=current_session()
            )
            st.session_state.pop(_OUTCOME, None)
            st.rerun(scope="fragment")


def _live(job: SegmenterValuesJob) -> None:
    """Which cut, how far, and Stop; once it ends, how, and the whole page again."""
    cut, cuts, done, planned = job.progress()
    spec = job.specs[min(max(cut, 1), cuts) - 1]
    st.progress(
        min(done / planned, 1.0) if planned else 0.0,
        text=f"Segmenter {max(cut, 1)} of {cuts} ({spec}): {done:,} of at most {planned:,} "
        f"rollouts · {job.tokens():,} tokens · {job.clock()}",
    )
    if job_controls(job, "sg", "Stopping at the model's next token; what finished is kept."):
        return
    del st.session_state[_JOB]
    st.session_state[_OUTCOME] = (job.trace.trace_id, job.error or _ended(job))
    st.rerun()


def _ended(job: SegmenterValuesJob) -> str:
    comparison = job.comparison
    if comparison is None or comparison.stopped:
        return (
            f"Stopped: the finished rounds are kept in {Path(job.store).name}; Run again to "
            "resume from them."
        )
    return f"Compared {len(comparison.segmenters)} segmenters; stored in {Path(job.store).name}."


def _last_outcome(trace: Trace) -> None:
    show_outcome(trace_outcome(_OUTCOME, trace.trace_id), "The run stopped")
