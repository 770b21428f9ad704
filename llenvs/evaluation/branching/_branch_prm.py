"""The PRM that scores a trace's branches, and the spec a branch records for it.

``intervene`` scores a branch with the PRM it is told (the parent's recorded one by default on
the command line and in the workbench); ``run_branches`` (an experiment's branches) always
scores with the parent's recorded PRM (``parent_prm``). Both make the PRM here
(``branch_prm_rewards``) and record it the same way (``branch_prm_spec``), so a branch made
either way carries the same scores and the same ``run.spec.prm``. A recorded PRM that cannot
be made again (a PRM folder that is not on this machine, a server that is gone) is no silent
None: ``parent_prm`` gives no PRM and says why, for the branch to record
(``metadata[PRM_UNSCORED]``).

Example:
    >>> from llenvs.core.run_spec._run import RunSpec
    >>> from llenvs.traces.records._run import RunRecord
    >>> parent = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(),
    ...                run=RunRecord(RunSpec(prm=PRMSpec.parse("arithmetic"))))
    >>> made = parent_prm(parent, get_backend("scripted"))
    >>> made.spec.to_record(), [f.name for f in made.rewards], made.unscored
    ({'kind': 'arithmetic', 'class_name': 'ArithmeticPRM'}, ['prm'], None)

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from llenvs.core import ModelBackend, RewardFunction
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.evaluation.branching._scored_environment import run_prm_rewards
from llenvs.evaluation.branching._trace_environment import trace_environment
from llenvs.rewards.prm import describe_prm, provenance_of, recorded_prm_rewards
from llenvs.traces.records import Trace

__all__ = ["PRM_UNSCORED", "BranchPRM", "branch_prm_rewards", "branch_prm_spec", "parent_prm"]

PRM_UNSCORED = "prm_unscored"
"""The key of a branch's metadata saying why its parent's PRM did not score it."""


@dataclass(frozen=True)
class BranchPRM:
    """The PRM that scores the branches of one parent: its reward, its record, or why none.

    Example:
        >>> BranchPRM((), None, "the PRM 'x' cannot be made here").metadata()
        {'prm_unscored': "the PRM 'x' cannot be made here"}
        >>> BranchPRM((), None).metadata()
        {}

    """

    rewards: tuple[RewardFunction, ...]
    """The PROCESS reward the branch's environment adds (empty: no PRM)."""
    spec: PRMSpec | None
    """What the branch records as ``run.spec.prm`` (None: no PRM scored it)."""
    unscored: str | None = None
    """Why the parent's recorded PRM scores no branch (None: it does, or the parent has none)."""

    def metadata(self) -> dict[str, str]:
        """What a branch's metadata records about it: why it is not scored, if it is not."""
        return {} if self.unscored is None else {PRM_UNSCORED: self.unscored}


def parent_prm(trace: Trace, backend: ModelBackend) -> BranchPRM:
    """The parent's recorded PRM made again for its branches by ``backend`` (as ``intervene``).

    A parent without a recorded PRM gives none (its branches are as unscored as it is); one
    whose PRM cannot be made here gives none and the reason.

    Example:
        >>> from llenvs.core.run_spec._run import RunSpec
        >>> from llenvs.traces.records._run import RunRecord
        >>> gone = PRMSpec.parse("transformers/no/such/folder", convention="math-shepherd")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(),
        ...           run=RunRecord(RunSpec(prm=gone)))
        >>> made = parent_prm(t, get_backend("scripted"))
        >>> made.spec is None, made.unscored  # doctest: +ELLIPSIS
        (True, "not scored: the parent's PRM transformers/no/such/folder (...) cannot be made here: ...")

    """  # noqa: E501
    recorded = trace.run.spec.prm
    if recorded is None:
        return BranchPRM((), None)
    try:
        rewards = branch_prm_rewards(trace, recorded.name, backend)
    except ValueError as error:
        named = describe_prm(recorded, trace.run.spec.model)
        cause = error.__cause__ if error.__cause__ is not None else error
        return BranchPRM(
            (), None, f"not scored: the parent's PRM {named} cannot be made here: {cause}"
        )
    return BranchPRM(rewards, branch_prm_spec(trace, recorded.name, {}, rewards, backend))


def _recorded(trace: Trace, prm: str | None, options: Mapping[str, Any]) -> PRMSpec | None:
    """The parent's recorded PRM when ``prm`` names it without new options, else None."""
    recorded = trace.run.spec.prm
    if recorded is not None and prm == recorded.name and not options:
        return recorded
    return None


def branch_prm_rewards(
    trace: Trace,
    prm: str | None,
    backend: ModelBackend,
    options: Mapping[str, Any] | None = None,
) -> tuple[RewardFunction, ...]:
    """The PRM reward called ``prm`` for branches of ``trace``: the recorded PRM when it is that.

    ``"mc"`` continues with ``backend`` and judges with the trace's own environment. Options
    make the PRM anew even when it has the recorded name (e.g. the recorded ``vllm/<model>``
    at another server): they say how, and a record is made again only as it records itself.
    A recorded PRM that cannot be made here is a ``ValueError`` naming it.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> [f.name for f in branch_prm_rewards(t, "arithmetic", get_backend("scripted"))]
        ['prm']
        >>> branch_prm_rewards(t, None, get_backend("scripted"))
        ()

    """
    given = options or {}
    if prm == "mc":
        return run_prm_rewards(prm, given, backend, trace_environment(trace, backend))
    recorded = _recorded(trace, prm, given)
    if recorded is not None:
        return recorded_prm_rewards(recorded, backend, trace.run.spec.model)
    return run_prm_rewards(prm, given, backend)


def branch_prm_spec(
    trace: Trace,
    prm: str | None,
    options: Mapping[str, Any],
    rewards: tuple[RewardFunction, ...],
    backend: ModelBackend,
) -> PRMSpec | None:
    """The spec of the PRM that scored the branches (None: none), as they record it.

    A recorded judge of the parent's own model that is not the branch's model judged as the
    parent's model: the branch's record names it.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> backend = get_backend("scripted")
        >>> rewards = branch_prm_rewards(t, "arithmetic", backend)
        >>> branch_prm_spec(t, "arithmetic", {}, rewards, backend).class_name
        'ArithmeticPRM'

    """
    if prm is None:
        return None
    recorded = _recorded(trace, prm, options)
    if recorded is None:
        kind = PRMSpec.parse(prm).kind
        spec = PRMSpec.parse(prm, **{k: v for k, v in options.items() if k in kind.options})
        return provenance_of(spec, rewards)
    made = provenance_of(recorded, rewards)
    parent_model = trace.run.spec.model
    if (
        made is not None
        and made.kind is PRMKind.JUDGE
        and made.judge is None
        and parent_model is not None
        and parent_model.recorded_name != backend.name
    ):
        made = replace(made, judge=parent_model)
    return made
