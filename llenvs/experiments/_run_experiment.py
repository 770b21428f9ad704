"""``run_experiment``: make and record every branch of a recipe, resumably, in one run.

The recipe is planned over the parents' file (``plan_experiment``), the experiment file is
started or resumed (``start_experiment``), and every branch not yet recorded goes through one
continuously scheduled run (``run_branches``: up to ``in_flight`` at once). Each finished
branch is appended to the parents' branches sidecar (as ``intervene`` does; its metadata's
``experiment`` names the experiment, point and answer), then recorded in the experiment file.
A run killed between the two loses nothing: the next run finds the branch in the sidecar and
records it without making it again. Stopped branches (``stop``) are not recorded; they are
made again by the next run.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.core._intervention import Feedback
    >>> from llenvs.experiments._parent_filter import ParentFilter
    >>> from llenvs.experiments._recipe import Recipe
    >>> from llenvs.experiments._where import SegmentAt
    >>> from llenvs.traces import write_traces
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_traces(folder / "runs.jsonl", [parent])
    >>> recipe = Recipe("hint", ParentFilter(), SegmentAt(0), Feedback("It is {expected}."))
    >>> backend = get_backend("scripted", outputs=["<answer>100</answer>"])
    >>> run = run_experiment(recipe, folder / "runs.jsonl", folder / "hint", backend)
    >>> [(o.parent_success, o.success, o.answer) for o in run.outcomes], run.path.name
    ([(False, True, '100')], 'hint.experiment.jsonl')
    >>> run_experiment(recipe, folder / "runs.jsonl", folder / "hint", backend).ran  # resumed
    0

"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from llenvs.analysis import published_step_analysis, stored_step_analysis
from llenvs.analysis.instruments import similarity_named
from llenvs.analysis.sampling import final_answer
from llenvs.analysis.sidecar import published_by_trace, stored_keys
from llenvs.core import Force, ModelBackend, RunControl, Substitute
from llenvs.evaluation.branching import OnPolicy, recorded_substitute, run_branches
from llenvs.experiments._branch_outcome import BranchKey, BranchOutcome
from llenvs.experiments._experiment_events import BranchRecorded
from llenvs.experiments._experiment_file import (
    ExperimentHeader,
    append_outcome,
    experiment_path,
    read_experiment,
    start_experiment,
)
from llenvs.experiments._experiment_plan import ExperimentPlan, plan_experiment
from llenvs.experiments._experiment_result import ExperimentRun
from llenvs.experiments._planned_branch import PlannedBranch
from llenvs.experiments._point_scores import check_scoring, on_policy_scores, point_key
from llenvs.experiments._recipe import Recipe
from llenvs.experiments._substitutes import forced_job, substitutes
from llenvs.experiments._where import Importances, TopImportance
from llenvs.traces.files import analysis_path, append_branch, read_branches, read_traces
from llenvs.traces.records import Trace

__all__ = ["EXPERIMENT_METADATA", "plan_file", "run_experiment"]

EXPERIMENT_METADATA = "experiment"
"""The key of a branch trace's metadata naming its experiment, point and answer."""


def plan_file(recipe: Recipe, parents_file: str | os.PathLike[str]) -> ExperimentPlan:
    """The branches ``recipe`` makes of the traces of ``parents_file`` (nothing runs).

    Stored step importances are read from the file's analysis sidecar when the recipe picks
    segments by importance.
    """
    traces = list(read_traces(parents_file))
    importances = None
    if isinstance(recipe.where, TopImportance):
        importances = _importances(parents_file, recipe.parents.select(traces))
    return plan_experiment(recipe, traces, importances=importances)


def run_experiment(
    recipe: Recipe,
    parents_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    backend: ModelBackend,
    *,
    in_flight: int = 8,
    control: RunControl | None = None,
    overwrite: bool = False,
) -> ExperimentRun:
    """Run (or resume) the experiment of ``recipe`` on ``parents_file``; see the module.

    Arguments:
        recipe: parents, where, what and how.
        parents_file: the trace file of the parents; branches go to its branches sidecar.
        out: the experiment file (``*.experiment.jsonl``) or a name it is the sidecar of.
        backend: the model that generates the branches.
        in_flight: branches running at once.
        control: its observer gets the runner's events (``trajectory``: the branch's number
            among those this run makes) and a ``BranchRecorded`` per recorded branch; once it
            is stopped no branch starts, and running ones end and are not recorded; its retry
            retries failing backend calls (none: a failure raises, and the branches recorded
            before it are kept).
        overwrite: start the experiment file again (the branches of earlier runs stay in the
            sidecar, under the old experiment's id); default: resume it.

    A recipe that selects nothing, or asks for on-policy scores of a Force of a model that
    cannot score a text (``how.on_policy``, ``point_scores``), is an ``ExperimentError``
    before anything is written.

    """
    planned = plan_file(recipe, parents_file)
    if isinstance(recipe.what, Force | Substitute):
        check_scoring(backend, recipe.how.on_policy)
    path = experiment_path(out)
    header = start_experiment(path, recipe, parents_file, overwrite=overwrite)
    _, recorded = read_experiment(path)
    done = {outcome.key for outcome in recorded}
    by_key = {branch.key: branch for branch in planned}
    for outcome in _unrecorded(parents_file, header, by_key, done):
        append_outcome(path, outcome)
        done.add(outcome.key)
    todo = [branch for branch in planned if branch.key not in done]
    scores = {}
    if recipe.how.on_policy:
        scores = on_policy_scores(
            todo, backend, recipe.how.on_policy, seed=recipe.how.seed, control=control
        )
    measure = None if recipe.how.substitute is None else recipe.how.substitute.measure
    found = substitutes(
        todo, backend, similarity_named(measure), on_policy=recipe.how.on_policy, control=control
    )
    flips = sum(o.flipped for o in read_experiment(path)[1])
    started, ran = time.monotonic(), 0
    jobs = [forced_job(branch, found) for branch in todo]
    for number, result, trace in run_branches(jobs, backend, in_flight=in_flight, control=control):
        if result.metadata.get("stopped"):
            continue
        branch = todo[number]
        outcome = _outcome(branch, trace, final_answer(result))
        note = {"id": header.experiment_id, "segment": branch.segment, "sample": branch.sample}
        note["answer"] = outcome.answer
        made: dict[str, object] = {EXPERIMENT_METADATA: note}
        scored = scores.get(point_key(branch) or ("", 0, ""))
        if scored is not None:
            made["on_policy"] = scored.to_record()
            outcome = _scored(outcome, scored)
        trace = replace(trace, metadata={**trace.metadata, **made})
        substitute = found.get(branch.key)
        if substitute is not None and isinstance(branch.request.intervention, Substitute):
            trace = recorded_substitute(trace, branch.request.intervention, substitute)
            if substitute.on_policy is not None:  # the text it forced: the model's own
                outcome = _scored(outcome, substitute.on_policy)
        append_branch(parents_file, trace)
        append_outcome(path, replace(outcome, branch_id=trace.trace_id))
        done.add(branch.key)
        ran += 1
        flips += int(outcome.flipped)
        if control is not None and control.observer is not None:
            pace = (time.monotonic() - started) / ran
            left = len(planned) - len(done)
            control.observer(BranchRecorded(len(done), len(planned), flips, round(pace * left, 1)))
    _, outcomes = read_experiment(path)
    return ExperimentRun(path, header, tuple(outcomes), len(planned), ran)


def _outcome(branch: PlannedBranch, trace: Trace, answer: str | None) -> BranchOutcome:
    """The record of one finished branch."""
    request = branch.request
    sampling = trace.run.spec.sampling
    return BranchOutcome(
        parent_id=request.parent.trace_id,
        task_index=request.parent.task.task_index,
        segment=branch.segment,
        at=request.at,
        segments=len(request.parent.segments),
        sample=branch.sample,
        seed=None if sampling is None else sampling.seed,
        branch_id=trace.trace_id,
        parent_success=branch.parent_success,
        parent_answer=branch.parent_answer,
        success=trace.success,
        answer=answer,
        prm_score=branch.prm_score,
        error=trace.error,
    )


def _scored(outcome: BranchOutcome, scored: OnPolicy) -> BranchOutcome:
    """``outcome`` with its forced text's on-policy percentile and mean (None where NaN)."""
    known = scored.to_record()
    return replace(outcome, on_policy=known["percentile"], on_policy_logprob=known["mean_logprob"])


def _unrecorded(
    parents_file: str | os.PathLike[str],
    header: ExperimentHeader,
    planned: Mapping[BranchKey, PlannedBranch],
    done: set[BranchKey],
) -> list[BranchOutcome]:
    """Branches of this experiment in the sidecar that a killed run did not record."""
    found = []
    for trace in read_branches(parents_file):
        note = trace.metadata.get(EXPERIMENT_METADATA)
        if not isinstance(note, Mapping) or note.get("id") != header.experiment_id:
            continue
        if trace.parent is None:
            continue
        segment, sample = note.get("segment"), note.get("sample")
        if not isinstance(segment, int) or not isinstance(sample, int):
            continue
        key = (trace.parent.parent_id, segment, sample)
        branch = planned.get(key)
        if branch is None or key in done:
            continue
        done.add(branch.key)
        answer = note.get("answer")
        outcome = _outcome(branch, trace, answer if isinstance(answer, str) else None)
        scored = trace.metadata.get("on_policy")
        if isinstance(scored, Mapping):
            outcome = _scored(outcome, OnPolicy.from_record(scored))
        found.append(outcome)
    return found


def _importances(
    parents_file: str | os.PathLike[str], parents: list[Trace]
) -> dict[str, Importances]:
    """The stored step importances of each parent (its newest rollouts, else published)."""
    store = analysis_path(parents_file)
    if not Path(store).exists():
        return {}
    published = published_by_trace(store)
    found: dict[str, Importances] = {}
    for trace in parents:
        keys = stored_keys(store, trace.trace_id)
        if keys:
            analysis = stored_step_analysis(trace, store, keys[-1])
        elif published.get(trace.trace_id):
            analysis = published_step_analysis(trace, published[trace.trace_id][-1])
        else:
            continue
        found[trace.trace_id] = {
            item.step: item.importance
            for item in analysis.importances
            if item.importance is not None
        }
    return found
