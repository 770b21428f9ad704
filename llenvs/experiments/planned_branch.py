"""``plan_experiment``: the branches a recipe makes of its parents, before any model runs.

For each parent the recipe's ``where`` picks the intervened segments; at each, the
intervention's template is filled (``TemplateValues``) and ``samples_per_point`` branches are
planned, each with its own seed. A force replaces the intervened segment, feedback follows
it, and complete and resample generate again from it. A selected position where the template
cannot be filled, or whose kept prefix holds an empty segment (feedback after an empty last
step: replaying it would end the branch before the intervention), is skipped and counted in
the plan (``ExperimentPlan.note``), so it never fails at run time. A recipe that plans no
branch is an ``ExperimentError`` saying why (no parent passed the filter, the regex never
matched, no PRM score was under the threshold, every position skipped, and why).

Example:
    >>> from llenvs.core import SegmentedEnvironment
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core.intervention import Force
    >>> from llenvs.evaluation.replay_trace import replay_trace
    >>> from llenvs.experiments.parent_filter import ParentFilter
    >>> from llenvs.experiments.recipe import Recipe
    >>> from llenvs.experiments.where import MatchingRegex
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0,
    ...                       "Count. So 8. <answer>8</answer>", model="scripted")
    >>> recipe = Recipe("mistake", ParentFilter(), MatchingRegex("[0-9]"), Force("{perturbed}"))
    >>> [(p.segment, p.request.at, p.request.intervention.text) for p in
    ...  plan_experiment(recipe, [parent])]
    [(1, 1, 'So 7. <answer>8</answer>')]
    >>> plan_experiment(Recipe("none", ParentFilter(), MatchingRegex("zebra"), Force("x")),
    ...                 [parent])
    Traceback (most recent call last):
    ...
    llenvs.experiments.experiment_error.ExperimentError: the recipe 'none' selects no segment: the regex 'zebra' never matched a segment of any parent

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from llenvs.analysis.rollout_engine import exact_outcome
from llenvs.core.intervention import Complete, Feedback, Force, Intervention, Resample
from llenvs.evaluation.branch_request import BranchRequest
from llenvs.evaluation.branch_run import BranchJob
from llenvs.evaluation.trace_environment import trace_environment, trace_sampling_params
from llenvs.experiments.branch_outcome import BranchKey
from llenvs.experiments.experiment_error import ExperimentError
from llenvs.experiments.experiment_plan import ExperimentPlan, plan_of
from llenvs.experiments.perturbation import perturbed
from llenvs.experiments.recipe import Recipe
from llenvs.experiments.skip_reason import SkipReason
from llenvs.experiments.template_values import TemplateValues
from llenvs.experiments.where import Importances, segment_prm_score
from llenvs.traces.trace import Trace

__all__ = ["ParentOutcomeOf", "PlannedBranch", "plan_experiment"]

ParentOutcomeOf = Mapping[str, tuple[bool | None, str | None]]
"""Each parent's verdict and final answer, by trace id."""


@dataclass(frozen=True)
class PlannedBranch:
    """One branch an experiment makes."""

    job: BranchJob
    """What ``run_branches`` runs (the request, its sampling and seed)."""
    segment: int
    """The intervened segment."""
    sample: int
    """The sample's number at this point."""
    parent_success: bool | None
    """The parent's verdict (before)."""
    parent_answer: str | None
    """The parent's final answer."""
    prm_score: float | None
    """The parent's PRM score of the intervened segment, if it has one."""

    @property
    def request(self) -> BranchRequest:
        """The branch request."""
        return self.job.request

    @property
    def key(self) -> BranchKey:
        """``(parent_id, segment, sample)``."""
        return (self.request.parent.trace_id, self.segment, self.sample)


def plan_experiment(
    recipe: Recipe,
    traces: Sequence[Trace],
    *,
    importances: Mapping[str, Importances] | None = None,
    outcomes: ParentOutcomeOf | None = None,
) -> ExperimentPlan:
    """The branches of ``recipe`` over ``traces`` (its filter applied), in parent order.

    ``importances``: stored step importances by trace id (for ``TopImportance``);
    ``outcomes``: each parent's verdict and final answer (default: the trace's recorded
    verdict and the answer its environment reads from its response).
    """
    parents = recipe.parents.select(traces)
    if not parents:
        raise ExperimentError(
            f"the recipe {recipe.name!r} selects no parent: no trace of the file passes its "
            f"filter ({recipe.parents.to_record() or 'root traces'})"
        )
    planned: list[PlannedBranch] = []
    skipped: list[SkipReason] = []
    selected = 0
    for parent in parents:
        chosen = recipe.where.segments(parent, (importances or {}).get(parent.trace_id))
        if not chosen:
            continue
        success, answer = (
            outcomes[parent.trace_id]
            if outcomes is not None and parent.trace_id in outcomes
            else _outcome(parent)
        )
        for segment in chosen:
            selected += 1
            made = _point(recipe, parent, segment, success, answer)
            if isinstance(made, SkipReason):
                skipped.append(made)
            else:
                planned.extend(made)
    plan = plan_of(planned, skipped)
    if not planned:
        if selected == 0:
            why = recipe.where.nothing_reason()
        else:
            why = f"{selected} selected position(s), none can be branched: {plan.note()}"
        raise ExperimentError(f"the recipe {recipe.name!r} selects no segment: {why}")
    return plan


def _point(
    recipe: Recipe, parent: Trace, segment: int, success: bool | None, answer: str | None
) -> list[PlannedBranch] | SkipReason:
    """The branches at one intervened segment, or why it plans none."""
    text = parent.segments[segment].text
    values = TemplateValues(
        segment=text,
        answer=answer,
        expected=parent.task.expected_answer,
        perturbed=perturbed(text, recipe.how.seed),
    )
    what = values.intervention(recipe.what)
    if what is None:
        return SkipReason.UNFILLED_TEMPLATE
    at = segment + 1 if isinstance(what, Feedback) else segment
    if any(not kept.text for kept in parent.segments[:at]):
        return SkipReason.EMPTY_SEGMENT
    score = segment_prm_score(parent.segments[segment])
    recorded = trace_sampling_params(parent)
    branches = []
    for sample, seed in enumerate(recipe.how.seeds(recipe.samples_per_point)):
        intervention: Intervention
        match what:
            case Resample(params=params):
                intervention = Resample(1, replace(recipe.how.params(params or recorded)))
                sampling = None
            case Force() | Feedback() | Complete():
                intervention = what
                sampling = recipe.how.params(recorded)
        job = BranchJob(BranchRequest(parent, at, intervention), sampling, seed)
        branches.append(PlannedBranch(job, segment, sample, success, answer, score))
    return branches


def _outcome(parent: Trace) -> tuple[bool | None, str | None]:
    """The parent's recorded verdict, and the answer its environment reads from its response."""
    if not parent.segments:
        return parent.success, None
    _, answer = exact_outcome(parent, trace_environment(parent))
    return parent.success, answer
