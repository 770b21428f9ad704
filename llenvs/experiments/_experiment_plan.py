"""``plan_experiment``: the branches a recipe makes of its parents (an ``ExperimentPlan``).

For each parent the recipe's ``where`` picks the intervened segments; at each, the
intervention's template is filled (``TemplateValues``) and ``samples_per_point`` branches are
planned, each with its own seed. A force replaces the intervened segment, feedback follows
it, and complete and resample generate again from it. A selected position where the template
cannot be filled, or whose kept prefix holds an empty segment (feedback after an empty last
step: replaying it would end the branch before the intervention), is skipped and counted in
the plan (``ExperimentPlan.note``), so it never fails at run time. A recipe that plans no
branch is an ``ExperimentError`` saying why (no parent passed the filter, the regex never
matched, no PRM score was under the threshold, every position skipped, and why).

A plan is the sequence of its ``PlannedBranch`` values (``len``, indexing and iteration are
the branches') with the count of selected positions that plan no branch, by ``SkipReason``;
``note()`` says them in one line ("" when none was skipped).

Example:
    >>> from llenvs.core._intervention import Force
    >>> from llenvs.experiments._parent_filter import ParentFilter
    >>> from llenvs.experiments._recipe import Recipe
    >>> from llenvs.experiments._where import MatchingRegex
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> recipe = Recipe("mistake", ParentFilter(), MatchingRegex("[0-9]"), Force("{perturbed}"))
    >>> [(p.segment, p.request.at, p.request.intervention.text) for p in
    ...  plan_experiment(recipe, [parent])]
    [(1, 1, 'So 7. <answer>8</answer>')]
    >>> plan_experiment(Recipe("none", ParentFilter(), MatchingRegex("zebra"), Force("x")),
    ...                 [parent])
    Traceback (most recent call last):
    ...
    llenvs.experiments._experiment_error.ExperimentError: the recipe 'none' selects no segment: the regex 'zebra' never matched a segment of any parent
    >>> plan = ExperimentPlan((), {SkipReason.EMPTY_SEGMENT: 2})
    >>> len(plan), plan.note()
    (0, '2 positions skipped: empty segment (in the kept prefix: replaying it would end the branch before the intervention)')

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import overload

from llenvs.analysis.sampling import exact_outcome
from llenvs.core import (
    Complete,
    Feedback,
    Force,
    Intervention,
    Resample,
    Substitute,
    record_dict,
)
from llenvs.evaluation.branching import (
    BranchJob,
    BranchRequest,
    trace_environment,
    trace_sampling_params,
)
from llenvs.experiments._experiment_error import ExperimentError
from llenvs.experiments._perturbation import perturbed
from llenvs.experiments._planned_branch import PlannedBranch
from llenvs.experiments._recipe import Recipe
from llenvs.experiments._skip_reason import SkipReason
from llenvs.experiments._template_values import TemplateValues
from llenvs.experiments._where import Importances, segment_prm_score
from llenvs.traces.records import Trace

__all__ = ["ExperimentPlan", "ParentOutcomeOf", "plan_experiment", "plan_of"]

ParentOutcomeOf = Mapping[str, tuple[bool | None, str | None]]
"""Each parent's verdict and final answer, by trace id."""


@dataclass(frozen=True)
class ExperimentPlan(Sequence[PlannedBranch]):
    """The planned branches, in parent order, and the skipped positions by reason."""

    branches: tuple[PlannedBranch, ...]
    """Every branch to make."""
    skipped: Mapping[SkipReason, int] = field(default_factory=dict)
    """Selected positions that plan no branch, counted by why (only reasons with a count)."""

    @overload
    def __getitem__(self, index: int) -> PlannedBranch: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlannedBranch, ...]: ...

    def __getitem__(self, index: int | slice) -> PlannedBranch | tuple[PlannedBranch, ...]:
        return self.branches[index]

    def __len__(self) -> int:
        return len(self.branches)

    def __iter__(self) -> Iterator[PlannedBranch]:
        return iter(self.branches)

    @property
    def skipped_positions(self) -> int:
        """How many selected positions plan no branch."""
        return sum(self.skipped.values())

    def note(self) -> str:
        """The skipped positions in one line, each reason with its count ("" for none).

        Example:
            >>> ExperimentPlan(()).note()
            ''

        """
        return "; ".join(reason.said(n) for reason, n in self.skipped.items() if n)


def plan_of(branches: Sequence[PlannedBranch], skipped: Sequence[SkipReason]) -> ExperimentPlan:
    """The plan of ``branches`` and one ``SkipReason`` per skipped position (in reason order).

    Example:
        >>> plan_of((), [SkipReason.EMPTY_SEGMENT, SkipReason.UNFILLED_TEMPLATE,
        ...              SkipReason.EMPTY_SEGMENT]).skipped_positions
        3

    """
    counts = {reason: skipped.count(reason) for reason in SkipReason if reason in skipped}
    return ExperimentPlan(tuple(branches), counts)


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
            f"filter ({record_dict(recipe.parents)})"
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
            case Force(text=text) if recipe.how.substitute is not None:
                intervention = recipe.how.substitute.substitute(text, seed)
                sampling = recipe.how.params(recorded)
            case Substitute():
                intervention = replace(what, seed=seed)
                sampling = recipe.how.params(recorded)
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
