"""The Evaluate page: run a model on tasks from the app, watch it, read and open the results.

The form sets an ``EvaluationPlan`` (an environment: any reasoning-gym dataset with its size,
seed and options, or a local data file; the segmenter spec, checked as typed; the PRM; the
tasks; the sampling); the model is the one in Settings. Run starts an ``EvaluationJob``; a small
fragment redraws the tasks' status while it runs, with Stop. The traces land in the traces
folder, in a file named after the settings, so running them again resumes it.

Every number in the form is checked against its real bound before anything is built: the
boxes' limits are the library's (``llenvs.core``), a box out of them says so and Run is
off (``number_box``), and the tasks are read by
``llenvs.core.run_spec`` against the dataset's size, so ``0-99999999`` on a dataset of 100
tasks is refused at once, as the CLI refuses it.

Example:
    >>> results_table([]).iloc[0]["errors"]
    'none'

"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from llenvs.adapters.reasoning_gym import dataset_names
from llenvs.core import BATCH_SIZE, DATASET_SIZE, DEFAULT_MAX_TOKENS, MAX_TOKENS, SEED
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import parse_tasks
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.rewards import PRM_REWARD_NAME
from llenvs.traces import Trace, read_traces
from llenvs.ui.common import (
    current_session,
    job_controls,
    load_backend,
    number_box,
    prm_picker,
    session_key,
    show_outcome,
    shows_errors,
)
from llenvs.workbench import MISSING, TEMPERATURE, count, success_rate
from llenvs.workbench.files import resolve_trace_path, traces_dir
from llenvs.workbench.jobs import EvaluationJob, EvaluationPlan, RunOutcome, TaskState, run_outcome
from llenvs.workbench.models import ModelChoice, Settings, load_settings

__all__ = ["evaluate_page", "results_table"]

POLL_SECONDS = 0.5
"""How often the live view redraws while a run goes on."""

_JOB = "ev-job"
_OUTCOME = "ev-outcome"
_SOURCES = ("a reasoning-gym dataset", "a local data file (jsonl, csv, parquet)")


@st.cache_data(show_spinner="Reading the data file…", max_entries=16)
def _data_file_size(path: str, options: str, modified: float) -> int:
    """The number of tasks of a local data file with its options (cached per version)."""
    del modified  # part of the cache key: an edited file is read again
    return len(environment_registry.get(name=path, adapter="huggingface", **json.loads(options)))


def results_table(traces: Sequence[Trace]) -> pd.DataFrame:
    """The run at a glance: success with its 95% interval, rewards, PRM, tokens, errors.

    A task that errored (no answer from the model) is no verdict: it counts in ``errors``, not
    in the success rate.

    Example:
        >>> results_table([]).iloc[0]["success (95% interval)"]
        'no verdict'

    """
    judged = [t.success for t in traces if t.success is not None and not t.error]
    rate = success_rate(sum(bool(s) for s in judged), len(judged))
    prm = [
        [s.prm_scores[PRM_REWARD_NAME] for s in t.segments if PRM_REWARD_NAME in s.prm_scores]
        for t in traces
    ]
    lowest = [min(scores) for scores in prm if scores]
    every = [score for scores in prm for score in scores]
    tokens = [t.metadata.get("generated_tokens") for t in traces]
    known = [n for n in tokens if isinstance(n, int)]
    errors = [t for t in traces if t.error]
    return pd.DataFrame(
        [
            {
                "traces": len(traces),
                "success (95% interval)": rate,
                "mean final reward": _mean([sum(t.final_rewards.values()) for t in traces]),
                "mean PRM": _mean(every),
                "mean lowest PRM": _mean(lowest),
                "tokens generated": sum(known) if known else "–",
                "errors": ", ".join(f"task {t.task.task_index}" for t in errors) or "none",
            }
        ]
    )


def _mean(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.3g}" if values else "–"


def evaluate_page() -> None:
    """Draw the page: the form, the run while it goes on, then its results."""
    folder = traces_dir()
    settings = load_settings(folder)
    choice = settings.choice()
    plan = _form(settings, choice)
    job: EvaluationJob | None = st.session_state.get(_JOB)
    if job is None and st.button(
        "Run", type="primary", key="ev-run", disabled=plan is None or choice is None
    ):
        assert plan is not None and choice is not None
        job = _start(plan, choice, folder)
    if job is not None:
        st.fragment(_live, run_every=POLL_SECONDS)(job)
    _last_outcome()
    if plan is not None and (folder / plan.results_name()).exists():
        _results(folder / plan.results_name())


def _form(settings: Settings, choice: ModelChoice | None) -> EvaluationPlan | None:
    """The form; the plan it sets, or None while something in it is wrong (said on screen)."""
    spec = settings.segmenter
    st.caption(f"Model: {choice.backend_name if choice else 'not set'} — change it in Settings.")
    source = st.radio("Tasks from", _SOURCES, horizontal=True, key="ev-source")
    options: dict[str, Any] = {}
    if source == _SOURCES[0]:
        adapter = "reasoning_gym"
        names = list(dataset_names())
        name = st.selectbox(
            "Dataset",
            names,
            index=names.index("leg_counting") if "leg_counting" in names else 0,
            key="ev-dataset",
        )
        left, middle = st.columns(2)
        options["size"] = number_box("size", DATASET_SIZE, 100, "ev-size", where=left).value
        options["seed"] = number_box("seed", SEED, 42, "ev-seed", where=middle).value
        extra = st.text_input(
            "Dataset options (JSON)",
            value="{}",
            key="ev-options",
            help='The dataset\'s own options, e.g. {"min_animals": 1, "max_animals": 3}',
        )
    else:
        adapter = "huggingface"
        typed = st.text_input("Data file", key="ev-file", placeholder="questions.jsonl")
        name = typed.strip()
        extra = st.text_input(
            "Adapter options (JSON)",
            value="{}",
            key="ev-file-options",
            help='e.g. {"question_column": "problem", "answer_column": "solution"}',
        )
    spec = st.text_input("Segmenter spec", value=spec, key="ev-segmenter")
    chosen_prm = prm_picker("PRM scoring every step", "ev-prm", settings.prm_choice())
    tasks_text = st.text_input(
        "Tasks (a count, a list or ranges)", value="10", key="ev-tasks", help="10, or 0-9, or 0,3,5"
    )
    left, middle, right, last = st.columns(4)
    max_tokens = number_box(
        "max tokens", MAX_TOKENS, DEFAULT_MAX_TOKENS, "ev-max-tokens", where=left
    ).value
    temperature = number_box("temperature", TEMPERATURE, 0.0, "ev-temperature", where=middle).value
    seed = number_box("sampling seed", SEED, 0, "ev-sampling-seed", where=right).value
    batch = number_box(
        "at once", BATCH_SIZE, 8, "ev-batch", where=last, help="Trajectories generated together"
    ).value
    opening = st.checkbox(
        "Open the answer when a response ends without one",
        key="ev-answer-opening",
        help=(
            "Forces “\\n\\nFinal answer: <answer>” as a segment (flagged forced) and lets the "
            "model complete it with up to 16 more tokens: small models often reason, then stop "
            "without the answer tags"
        ),
    )
    refused = None in (options.get("size", 0), options.get("seed", 0))  # the dataset's boxes
    if refused or max_tokens is None or temperature is None or seed is None or batch is None:
        return None  # the refusing box says why, under it
    try:
        loaded = json.loads(extra or "{}")
        if not isinstance(loaded, dict):
            raise ValueError("the options must be a JSON object")
        options.update(loaded)
        segmenter_from_spec(spec)
        if not name:
            raise ValueError("give the data file")
        if adapter == "huggingface":  # only files inside the traces folders (as for traces)
            name = str(resolve_trace_path(name))
            size = _data_file_size(name, json.dumps(options), Path(name).stat().st_mtime)
        else:
            size = DATASET_SIZE.check(options["size"])  # a reasoning-gym dataset makes `size`
        tasks = parse_tasks(tasks_text, size)  # checked against the size, no range built first
        if chosen_prm is None:  # the picker said what is wrong
            return None
    except Exception as error:  # every problem in the form is said, with its valid choices
        st.error(f"{type(error).__name__}: {error}", icon=":material/error:")
        return None
    return EvaluationPlan(
        adapter=adapter,
        name=str(name),
        options=options,
        segmenter=spec,
        prm=chosen_prm.spec,
        prm_options=chosen_prm.options(),
        tasks=tasks,
        model=choice.backend_name if choice else "",
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        batch_size=batch,
        answer_opening=opening,
    )


def _start(plan: EvaluationPlan, choice: ModelChoice, folder: Path) -> EvaluationJob | None:
    """Build the plan's environment, load the model, and start the run."""
    job = None
    with shows_errors("Nothing was started"):
        base = plan.base_environment()  # a bad dataset option fails here, before a model loads
        backend = load_backend(choice, session_key())
        environment = plan.environment(backend, base=base)  # judge: this model judges
        path = folder / plan.results_name()
        job = st.session_state[_JOB] = EvaluationJob(
            plan, environment, backend, path, session=current_session()
        )
        st.session_state.pop(_OUTCOME, None)
    return job


def _live(job: EvaluationJob) -> None:
    """The tasks' status while the run goes on, with Stop; once it ends, its outcome."""
    statuses = job.snapshot()
    states = Counter(s.state for s in statuses.values())
    done = sum(s.state.ended for s in statuses.values())
    elapsed = job.elapsed()
    fresh = done - job.resumed
    left = len(statuses) - done
    remaining = f", about {elapsed / fresh * left:.0f} s left" if fresh > 0 and left else ""
    st.caption(
        f"{done} of {count(len(statuses), 'task')} done ({job.resumed} resumed): "
        f"{states[TaskState.SUCCEEDED]} succeeded, {states[TaskState.FAILED]} failed, "
        f"{count(states[TaskState.ERROR], 'error')}; {job.clock()}{remaining}"
    )
    st.dataframe(
        pd.DataFrame(
            [
                {"task": task, "status": s.state.value, "steps": s.steps, "latest": s.last[-120:]}
                for task, s in statuses.items()
            ]
        ),
        hide_index=True,
        height=min(400, 38 + 35 * len(statuses)),
        placeholder=MISSING,
    )
    if job_controls(
        job, "ev", "Stopping after the segments being generated; finished tasks are kept."
    ):
        return
    del st.session_state[_JOB]
    st.session_state[_OUTCOME] = job.error or run_outcome(
        statuses, job.path.name, stopped=job.stop_requested
    )
    st.rerun()


def _last_outcome() -> None:
    outcome = st.session_state.get(_OUTCOME)
    if isinstance(outcome, RunOutcome) and outcome.failed:
        st.error(outcome.message, icon=":material/error:")
    elif isinstance(outcome, RunOutcome):
        st.success(outcome.message)
    else:
        show_outcome(outcome, "The run failed (finished tasks are kept; run again to resume)")


def _results(path: Path) -> None:
    """The results file of these settings: the summary, per-task rows, and a link."""
    traces = list(read_traces(path))
    st.subheader(f"Results: {path.name}")
    st.dataframe(results_table(traces), hide_index=True, placeholder=MISSING)
    rows = [
        {
            "task": t.task.task_index,
            "success": "error" if t.error else {True: "yes", False: "no", None: "—"}[t.success],
            "final reward": sum(t.final_rewards.values()),
            "segments": len(t.segments),
            "error": t.error or "",
        }
        for t in traces
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder=MISSING)
    st.page_link(
        "pages/browse.py",
        label=f"Open {path.name} in Browse",
        icon=":material/search:",
        query_params={"file": str(path)},
    )
