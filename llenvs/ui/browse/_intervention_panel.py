"""The Browse page's intervention panel: act on the selected segment, watch the branch grow.

Force, feedback, COMPLETE, resample and substitute on segment k of the open trace, each one call
of the library's ``intervene`` (``branch`` with the runner's prefix and ``then=``): new segments
appear as they are generated, the branches go to the trace file's sidecar, and the newest one
is aligned with its parent step by step (``aligned_view``). The chosen action's inputs make its
intervention once (``action_inputs``); Generate passes it, as a ``BranchRequest``, to the job.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from llenvs.core import Force, Intervention
from llenvs.evaluation import (
    BranchRequest,
    trace_base_environment,
    trace_sampling_params,
)
from llenvs.evaluation.branching import OnPolicy, rerun
from llenvs.rewards import PRM_REWARD_NAME
from llenvs.traces import (
    InterventionKind,
    SegmentRecord,
    Trace,
    branches_path,
    read_branches,
)
from llenvs.ui.browse._intervention_inputs import action_inputs
from llenvs.ui.browse._on_policy import on_policy_check
from llenvs.ui.browse._rerun import show_rerun
from llenvs.ui.browse._substitution import show_substitution
from llenvs.ui.common import (
    current_session,
    go_to,
    job_controls,
    load_backend,
    model_picker,
    prm_picker,
    saved_settings,
    session_key,
    show_outcome,
    shows_errors,
    trace_outcome,
)
from llenvs.workbench import (
    MISSING,
    BrowseLocation,
    aligned_view,
    answer_moves,
    branch_label,
    branch_point,
    count,
    describe_action,
    one_line,
    outcome,
    outcome_table,
)
from llenvs.workbench.browse import branch_tree
from llenvs.workbench.jobs import InterventionJob
from llenvs.workbench.models import ModelChoice, PRMChoice
from llenvs.workbench.search import facts_of

__all__ = ["ACTIONS", "action_problem", "branches_of", "intervention_panel"]

ACTIONS: dict[str, InterventionKind] = {
    "Force": InterventionKind.FORCE,
    "Feedback": InterventionKind.FEEDBACK,
    "COMPLETE": InterventionKind.COMPLETE,
    "Resample": InterventionKind.RESAMPLE,
    "Substitute": InterventionKind.SUBSTITUTE,
}
"""The panel's actions, as labelled on screen."""

_NEWEST = "iv-newest"
_JOB = "iv-job"
_OUTCOME = "iv-outcome"
_COMPARE = "iv-compare"

POLL_SECONDS = 0.5
"""How often the panel redraws itself while an intervention runs."""


def branches_of(path: str, trace: Trace) -> list[Trace]:
    """The branches of ``trace`` in the sidecar of ``path``, oldest first.

    Example:
        >>> branches_of("/no/such.jsonl", Trace(task=TaskRecord("e", "a", {}, 0, "q"),
        ...                                      response="", segments=()))
        []

    """
    return [b for b in read_branches(path) if b.parent and b.parent.parent_id == trace.trace_id]


def action_problem(trace: Trace, segment: int, intervention: Intervention) -> str | None:
    """Why Generate cannot run ``intervention`` on segment ``segment`` (the library's check).

    The request is made as Generate would make it (``BranchRequest``): None when it can be.

    Example:
        >>> from llenvs.core._intervention import COMPLETE, Resample
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", terminal=True),))
        >>> action_problem(t, 0, COMPLETE)  # doctest: +ELLIPSIS
        'nothing to complete after segment 1: the trace ended there ...'
        >>> action_problem(t, 0, Resample(8)) is None
        True

    """
    try:
        _request(trace, segment, intervention)
        trace_sampling_params(trace)  # a branch samples as its parent records
    except ValueError as error:
        return str(error)
    return None


def _request(trace: Trace, segment: int, intervention: Intervention) -> BranchRequest:
    """The request of ``intervention`` on segment ``segment``: at the point its kind keeps."""
    return BranchRequest(trace, branch_point(intervention.kind, segment), intervention)


def intervention_panel(path: str, trace: Trace, segment: int) -> None:
    """Draw the panel for segment ``segment`` of ``trace`` (a trace of the file ``path``).

    The panel is a fragment: a click in it reruns the panel, not the whole page. While an
    intervention runs, a small fragment inside it redraws the segments so far every
    ``POLL_SECONDS``, and the whole page is drawn again once the intervention ends.
    """
    if trace.segments:
        _panel(path, trace, segment)


@st.fragment
def _panel(path: str, trace: Trace, segment: int) -> None:
    st.subheader(f"Intervene on segment {segment}")
    label = st.radio("Action", list(ACTIONS), horizontal=True, key="iv-action")
    kind = ACTIONS[str(label)]
    inputs = action_inputs(kind, trace, segment)
    if inputs.samples is not None:  # a refused samples box: no plan to describe, its error says why
        st.caption(describe_action(kind, segment, inputs.samples))
    note = _environment_note(trace.trace_id, trace)
    if note is not None:
        st.info(f"This trace's task: {note}.")
    choice = model_picker(trace)
    recorded = None if trace.run.spec.prm is None else trace.run.spec.prm.name
    prm = prm_picker(
        "PRM scoring each new step",
        "iv-prm",
        _default_prm(trace),
        () if recorded is None else (recorded,),
    )
    job: InterventionJob | None = st.session_state.get(_JOB)
    intervention = inputs.intervention
    problem = inputs.problem
    if intervention is not None:
        problem = action_problem(trace, segment, intervention)
    if problem is not None and job is None:
        st.warning(f"Generate is off: {problem}.")
    scored = None
    if isinstance(intervention, Force) and problem is None and job is None:
        scored = on_policy_check(trace, segment, intervention.text, choice)
    ready = choice is not None and prm is not None and problem is None
    if job is None and st.button("Generate", type="primary", key="iv-run", disabled=not ready):
        assert choice is not None and prm is not None and intervention is not None
        job = _start(path, _request(trace, segment, intervention), choice, prm, scored)
    if job is not None:
        st.fragment(_live, run_every=POLL_SECONDS)(job)
    _last_outcome(trace)
    _show_branches(path, trace, choice)
    _show_tree(path, trace)


@st.cache_data(max_entries=64, show_spinner=False)
def _environment_note(trace_id: str, _trace: Trace) -> str | None:
    """Why a branch of the trace uses its own task record, or None (cached per trace)."""
    del trace_id
    return trace_base_environment(_trace)[1]


def _has_prm(trace: Trace) -> bool:
    return any(PRM_REWARD_NAME in s.prm_scores for s in trace.segments)


def _default_prm(trace: Trace) -> PRMChoice:
    """The PRM chosen first: the trace's own (made again as recorded), else one from Settings.

    A trace with PRM scores but no record of its PRM gets ``arithmetic``.
    """
    recorded = trace.run.spec.prm
    if recorded is not None:
        return PRMChoice(recorded.name)
    return PRMChoice("arithmetic") if _has_prm(trace) else saved_settings().prm_choice()


def _start(
    path: str,
    request: BranchRequest,
    choice: ModelChoice,
    prm: PRMChoice,
    scored: OnPolicy | None,
) -> InterventionJob | None:
    """Load the model (once, shared) and start the request in the background.

    ``scored``: the forced text's on-policy score, computed before, recorded on the branch.
    """
    job = None
    with shows_errors("Nothing was written"):
        backend = load_backend(choice, session_key())
        job = st.session_state[_JOB] = InterventionJob(
            path,
            request,
            backend,
            prm=prm.spec,  # judge: the branch's model judges
            prm_options=prm.options(),
            session=current_session(),
            on_policy=scored,
        )
        st.session_state.pop(_OUTCOME, None)
    return job


def _live(job: InterventionJob) -> None:
    """The segments generated so far, and Stop; once the job ends, its outcome."""
    rows = job.segments()
    made = "branch" if job.samples == 1 else f"{job.samples} branches"
    st.caption(
        f"Generating {made} of trace {job.trace.trace_id[:8]}: {count(len(rows), 'new segment')}"
        f" so far, {job.clock()}"
    )
    if rows:
        st.dataframe(_live_table(rows), hide_index=True, placeholder=MISSING)
    if job_controls(job, "iv", "Stopping after the segment being generated; what is made is kept."):
        return
    del st.session_state[_JOB]
    if job.error is not None:
        st.session_state[_OUTCOME] = (job.trace.trace_id, job.error)
    else:
        st.session_state[_NEWEST] = [child.trace_id for child in job.children]
        st.session_state[_OUTCOME] = (job.trace.trace_id, _written(job))
        # the comparison opens on the branch just made: set, not cleared, so that the browser's
        # select shows it too (a cleared key left the old choice showing above the new table)
        if job.children:
            st.session_state[_COMPARE] = job.children[-1].trace_id
        else:
            st.session_state.pop(_COMPARE, None)
    st.rerun()  # the whole page: the panel stops redrawing itself and shows the branches


def _live_table(rows: list[tuple[int, SegmentRecord]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "sample": sample,
                "#": record.index,
                "PRM": record.prm_scores.get(PRM_REWARD_NAME),
                "reward": sum(record.rewards.values()),
                "text": one_line(record.text),
            }
            for sample, record in rows
        ]
    )


def _written(job: InterventionJob) -> str:
    """What the finished job wrote, in words."""
    made = count(len(job.children), "branch", "branches")
    stopped = [child for child in job.children if child.metadata.get("stopped")]
    if stopped:
        return (
            f"Stopped: {made} kept, marked truncated, with the segments generated before the "
            f"stop, in {job.sidecar.name}"
        )
    return f"{made} appended to {job.sidecar.name}"


def _last_outcome(trace: Trace) -> None:
    """What the last job on ``trace`` did (until the next one): what it wrote, or why not."""
    show_outcome(trace_outcome(_OUTCOME, trace.trace_id), "Nothing was written")


def _show_branches(path: str, trace: Trace, choice: ModelChoice | None) -> None:
    """The trace's branches: the newest (or chosen) one beside the parent; a sample set."""
    branches = branches_of(path, trace)
    if not branches:
        return
    st.subheader(f"Branches of this trace ({len(branches)})")
    newest = st.session_state.get(_NEWEST) or [branches[-1].trace_id]
    by_id = {b.trace_id: b for b in branches}
    made = [by_id[i] for i in newest if i in by_id]
    if len(made) > 1:
        moves = answer_moves(trace, made)
        st.caption(f"The last resample set: {len(made)} samples, {moves.rate}; {moves.caption}")
        st.dataframe(moves.table, hide_index=True, placeholder=MISSING)
    labels = {b.trace_id: f"#{n} {branch_label(b)}" for n, b in enumerate(branches)}
    ids = list(labels)
    default = ids.index(made[-1].trace_id) if made else len(ids) - 1
    if st.session_state.get(_COMPARE) not in labels:  # another trace's branch
        st.session_state[_COMPARE] = ids[default]
    picked = st.selectbox(
        "Compare with the parent",
        ids,
        format_func=labels.__getitem__,
        key=_COMPARE,
    )
    child = by_id[str(picked)]
    st.dataframe(outcome_table(trace, child), hide_index=True, placeholder=MISSING)
    if "on_policy" in child.metadata:
        st.caption(
            f"The forced text, {OnPolicy.from_record(child.metadata['on_policy']).summary()}"
        )
    if "substitute" in child.metadata:
        show_substitution(child.metadata["substitute"])
    facts = (facts_of(path, trace), facts_of(branches_path(path), child))  # labels, values
    view = aligned_view(trace, child, ("parent", "branch"), facts=facts)  # no MiniLM unasked
    st.caption(f"Aligned step by step: {view.caption}.")
    wide = {name: st.column_config.TextColumn(name, width="large") for name in view.text_columns}
    st.dataframe(view.rows, hide_index=True, column_config=wide, placeholder=MISSING)
    if choice is not None and st.button("Re-run this branch from its record", key="iv-rerun"):
        _rerun(child, trace, choice)


def _rerun(recorded: Trace, parent: Trace, choice: ModelChoice) -> None:
    """Make ``recorded`` again from its record on the chosen model; say how it compares."""
    with shows_errors("The re-run failed"):
        backend = load_backend(choice, session_key())
        with st.spinner("Re-running the branch…"):
            show_rerun(rerun(recorded, backend, parent=parent))


def _show_tree(path: str, trace: Trace) -> None:
    """Every branch of the trace and of its branches, each a button that opens it in Browse.

    Opening one puts the branch's place in the URL, so a reload or a shared link shows it.
    """
    nodes = branch_tree(path, trace.trace_id)
    if not nodes:
        return
    with st.expander(f"Branch tree ({count(len(nodes), 'branch', 'branches')} below this trace)"):
        sidecar = str(branches_path(path))
        for node in nodes:
            result = outcome(node.trace)
            label = (
                f"{'↳ ' * node.depth}line {node.line}: {branch_label(node.trace)} · final "
                f"reward {result.final_reward:g}"
            )
            if st.button(label, key=f"iv-tree-{node.line}", type="tertiary"):
                go_to(BrowseLocation(sidecar, node.line, 0))
                st.rerun(scope="app")
