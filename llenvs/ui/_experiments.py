"""The Experiments page: build a recipe, see its branches, run it, read the steerability map.

Build: the parents' trace file, a ready-made recipe (or a custom force, feedback or complete),
the positions, the samples per point, which parents and how many, and the token budget; the
planned branches are counted before anything runs (``plan_file``), with the most tokens they
can generate and the selected positions skipped (an empty segment, a template not filled).
Run starts an ``ExperimentJob`` on the model in Settings, into an experiment file named after
the parents and a digest of the recipe (the same recipe resumes it); a fragment redraws
branches recorded and flips so far, with Stop. Then, as for an experiment opened from
the folder (``*.experiment.jsonl``): the steerability map (``steerability_figure``), the summary
with its intervals (``summary_table``), for a Force scored on-policy the same rates by the forced
text's on-policy percentile, and every branch beside its parent's verdict (with that percentile),
each a link to the branch in Browse.

Example:
    >>> positions_where("0.25, 0.5"), positions_where("3"), positions_where("every")
    (RelativePositions(fractions=(0.25, 0.5)), SegmentAt(index=3), EveryBoundary())

"""

from __future__ import annotations

import hashlib
from pathlib import Path

import streamlit as st

from llenvs.core import (
    COMPLETE,
    MAX_TOKENS,
    ON_POLICY_SAMPLES,
    SAMPLES,
    Bound,
    Feedback,
    Force,
    Intervention,
)
from llenvs.experiments import (
    READY_RECIPES,
    EveryBoundary,
    How,
    ParentFilter,
    ParentOutcome,
    Recipe,
    RelativePositions,
    SegmentAt,
    Where,
    plan_file,
    read_experiment,
    recorded_parents,
    summarize,
)
from llenvs.traces.files import Sidecar, TraceReader, branches_path, max_line_bytes
from llenvs.ui._home import how_to_get_traces
from llenvs.ui.common import (
    current_session,
    job_controls,
    load_backend,
    number_box,
    session_key,
    show_outcome,
    shows_errors,
)
from llenvs.ui.runs import open_in_compare_runs
from llenvs.workbench import MISSING, bin_rows, branch_rows, count, summary_table, verdict
from llenvs.workbench.charts import steerability_figure
from llenvs.workbench.files import trace_files, traces_dir
from llenvs.workbench.jobs import ExperimentJob
from llenvs.workbench.models import load_settings

__all__ = ["experiment_name", "experiments_page", "positions_where", "show_experiment"]

POLL_SECONDS = 0.5
"""How often the live view redraws while a run goes on."""

LINKS = 50
"""Branches linked into Browse at most (the table lists them all)."""

BROWSE = "pages/browse.py"
COMPARE_ICON = ":material/compare_arrows:"
_JOB = "xp-job"
_DONE = "xp-done"
_MODES = ("Build and run an experiment", "Open a recorded experiment")
_CUSTOM = "custom"
_WHATS = ("feedback", "force", "complete")
_PARENTS = Bound("first N parents", 0, 100_000, "0 takes them all")


def positions_where(text: str) -> Where:
    """Where the page's positions box says: fractions, one segment index, or ``every``.

    Example:
        >>> positions_where("x")
        Traceback (most recent call last):
        ...
        ValueError: positions: 'x': give fractions like 0.25,0.5, a segment index, or every

    """
    spec = text.strip()
    try:
        if spec == "every":
            return EveryBoundary()
        if spec.isdigit():
            return SegmentAt(int(spec))
        return RelativePositions(tuple(float(part) for part in spec.split(",")))
    except ValueError:
        raise ValueError(
            f"positions: {text!r}: give fractions like 0.25,0.5, a segment index, or every"
        ) from None


def experiment_name(parents_file: str | Path, recipe: Recipe) -> str:
    """The experiment file's name: the parents, the recipe's name, a digest of the recipe.

    Example:
        >>> recipe = READY_RECIPES["continue"]
        >>> name = experiment_name("a/runs.jsonl", recipe)
        >>> name.startswith("runs-continue-"), name.endswith(".experiment.jsonl")
        (True, True)

    """
    digest = hashlib.sha256(recipe.to_json().encode()).hexdigest()[:8]
    return f"{Path(parents_file).stem}-{recipe.name}-{digest}{Sidecar.EXPERIMENT.suffix}"


def experiments_page() -> None:
    """Draw the page: build and run, or open a recorded experiment."""
    folder = traces_dir()
    mode = st.radio("Experiment", _MODES, horizontal=True, key="xp-mode")
    if mode == _MODES[1]:
        found = sorted(folder.glob(f"*{Sidecar.EXPERIMENT.suffix}"))
        if not found:
            st.info(f"No experiment in {folder} yet: build and run one.")
            return
        picked = st.selectbox(
            "Experiment file", found, format_func=lambda p: Path(p).name, key="xp-open"
        )
        show_experiment(Path(picked))
        return
    files = [str(p) for p in trace_files(folder)]
    if not files:
        st.info(how_to_get_traces(folder))
        return
    built = _form(files)
    job: ExperimentJob | None = st.session_state.get(_JOB)
    choice = load_settings(folder).choice()
    st.caption(f"Model: {choice.backend_name if choice else 'not set'} — change it in Settings.")
    if job is None and built is not None:
        recipe, parents, planned = built
        if st.button("Run", type="primary", key="xp-run", disabled=choice is None):
            assert choice is not None
            with shows_errors("Nothing was started"):
                backend = load_backend(choice, session_key())
                path = folder / experiment_name(parents, recipe)
                job = ExperimentJob(
                    recipe, parents, path, backend, planned, session=current_session()
                )
                st.session_state[_JOB] = job
                st.session_state.pop(_DONE, None)
    if job is not None:
        st.fragment(_live, run_every=POLL_SECONDS)(job)
        return
    _last_outcome()
    if built is not None:
        path = folder / experiment_name(built[1], built[0])
        if path.exists():
            show_experiment(path)


def _form(files: list[str]) -> tuple[Recipe, str, int] | None:
    """The recipe the form builds, its parents' file and its planned branches (None: said)."""
    parents = st.selectbox(
        "Parents (a trace file)", files, format_func=lambda p: Path(p).name, key="xp-file"
    )
    names = [_CUSTOM, *READY_RECIPES]
    ready = st.selectbox("Recipe", names, index=names.index("misleading-hint"), key="xp-recipe")
    base = READY_RECIPES.get(ready)
    default_at = "0.25,0.5,0.75" if base is None else _where_text(base.where)
    at = st.text_input(
        "Positions",
        value=default_at,
        key=f"xp-at-{ready}",
        help="Fractions of each trace's segments (0.25,0.5,0.75), a segment index, or every",
    )
    if base is None:
        kind = st.radio("What", _WHATS, horizontal=True, key="xp-what")
        text = ""
        if kind != "complete":
            text = st.text_area(
                "Text (a template: {segment}, {answer}, {expected}, {perturbed})",
                value="Hint: the answer is not {expected}. Check your reasoning.",
                key="xp-text",
            )
    else:
        st.caption(f"What: {_what_text(base.what)}")
    left, middle, right, last, scored = st.columns(5)
    boxes = (
        number_box("samples", SAMPLES, 1, "xp-samples", where=left),
        number_box(
            "on-policy samples",
            ON_POLICY_SAMPLES,
            0,
            "xp-on-policy",
            where=scored,
            help="For a force: score each point's text against this many continuations of the "
            "model's own first (0: not scored); the results then show the rates by it",
        ),
        number_box("first N parents (0: all)", _PARENTS, 5, "xp-limit", where=right),
        number_box("max tokens", MAX_TOKENS, 64, "xp-max", where=last),
    )
    outcome = middle.selectbox("parents", [o.value for o in ParentOutcome], key="xp-parents")
    samples, on_policy, limit, max_tokens = (box.value for box in boxes)
    if samples is None or on_policy is None or limit is None or max_tokens is None:
        return None  # the refusing box says why, under it; nothing is planned or run
    try:
        where = positions_where(at)
        what: Intervention
        if base is None:
            what = (
                COMPLETE if kind == "complete" else (Force if kind == "force" else Feedback)(text)
            )
        else:
            what = base.what
        recipe = Recipe(
            ready if base is not None else what.kind.value,
            ParentFilter(outcome=ParentOutcome(outcome), limit=limit or None),
            where,
            what,
            How(samples=samples, max_tokens=max_tokens, on_policy=on_policy),
        )
        planned = plan_file(recipe, parents)
    except Exception as error:  # every problem in the form is said, with what to change
        st.error(f"{type(error).__name__}: {error}", icon=":material/error:")
        return None
    points = len({(p.request.parent.trace_id, p.segment) for p in planned})
    parents_count = len({p.request.parent.trace_id for p in planned})
    skipped = f" {planned.note()}." if planned.skipped else ""
    st.info(
        f"Planned: {count(len(planned), 'branch', 'branches')} ({count(parents_count, 'parent')}"
        f", {count(points, 'point')}, {count(samples, 'sample')} each); at most "
        f"{len(planned) * max_tokens:,} new tokens.{skipped}"
    )
    return recipe, parents, len(planned)


def _live(job: ExperimentJob) -> None:
    """Branches recorded and flips so far while the run goes on, with Stop."""
    st.caption(f"{job.progress.line()}; {job.clock()}")
    st.progress(job.progress.done / max(job.progress.planned, 1))
    stopping = "Stopping: no branch starts now; those in flight end (cut short: not kept)."
    if job_controls(job, "xp", stopping):
        return
    del st.session_state[_JOB]
    st.session_state[_DONE] = job.error or (
        f"{'Stopped' if job.stop_requested else 'Done'}: {job.progress.line()} in {job.path.name}"
    )
    st.rerun()


def _last_outcome() -> None:
    outcome = st.session_state.get(_DONE)
    show_outcome(outcome, "The experiment failed (recorded branches are kept; run to resume)")


def show_experiment(path: Path) -> None:
    """An experiment file's recipe, steerability map, summary and branches (links to Browse)."""
    header, outcomes = read_experiment(path)
    recipe = header.recipe
    summary = summarize(outcomes, seed=recipe.how.seed)
    st.subheader(f"Results: {path.name}")
    st.caption(
        f"Recipe {recipe.name!r}: {_what_text(recipe.what)} at {_where_text(recipe.where)} of "
        f"{Path(header.parents_file).name}; {count(summary.branches, 'branch', 'branches')} "
        f"recorded."
    )
    st.markdown(
        "**Steerability map**: how often the intervention flipped the verdict, and how often "
        "it changed the answer, by where in the reasoning it was made (95% Wilson intervals)."
    )
    st.plotly_chart(steerability_figure(summary.map), key=f"xp-map-{path.name}")
    st.dataframe(summary_table(summary), hide_index=True, placeholder=MISSING)
    if summary.by_on_policy:
        st.markdown(
            "**By how on-policy the forced text was** (its percentile among the model's own "
            f"continuations, {recipe.how.on_policy} each): the same rates."
        )
        st.dataframe(bin_rows(summary.by_on_policy, 100), hide_index=True, placeholder=MISSING)
    if st.button("Compare in Compare runs", key=f"xp-compare-{path.name}", icon=COMPARE_ICON):
        open_in_compare_runs(path)  # its parents and positions, chosen there
    parents = recorded_parents(path, header.parents_file)
    lines = _branch_lines(parents)
    st.dataframe(branch_rows(outcomes, lines), hide_index=True, placeholder=MISSING)
    sidecar = str(branches_path(parents))
    linked = [o for o in outcomes if o.branch_id in lines]
    if len(linked) > LINKS:
        st.caption(f"The first {LINKS} of {len(linked)} branches, each opened in Browse:")
    for o in linked[:LINKS]:
        st.page_link(
            BROWSE,
            label=f"task {o.task_index}, segment {o.segment} (sample {o.sample}): "
            f"{verdict(o.parent_success)} → {verdict(o.success)}, answer {o.parent_answer} → "
            f"{o.answer}",
            icon=":material/call_split:",
            query_params={
                "file": sidecar,
                "trace": str(lines[o.branch_id]),
                "segment": str(o.segment),
            },
        )


def _branch_lines(parents_file: Path) -> dict[str, int]:
    """Each branch's line in the parents' branches sidecar (from 1, as Browse shows it)."""
    sidecar = branches_path(parents_file)
    if not sidecar.exists():
        return {}
    reader = TraceReader(sidecar, max_line=max_line_bytes())
    return {trace.trace_id: line for line, trace in reader.numbered()}


def _where_text(where: Where) -> str:
    if isinstance(where, RelativePositions):
        return ",".join(f"{f:g}" for f in where.fractions)
    if isinstance(where, SegmentAt):
        return str(where.index)
    if isinstance(where, EveryBoundary):
        return "every"
    return repr(where)


def _what_text(what: Intervention) -> str:
    text = getattr(what, "text", None)
    return what.kind.value + (f" {text!r}" if text else "")
