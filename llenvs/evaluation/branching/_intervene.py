r"""``intervene``: branch a trace of a file and keep the branches in the file's sidecar.

The one intervention path below the command line and the workbench, which both pass one
``BranchRequest``: the trace's own environment (with a PRM's step reward when asked),
``branch`` with the caller's observers, and every branch appended to
``<name>.branches.jsonl`` (each branch one atomic line), so a stopped branch is kept and a
failed one writes nothing. Each branch records the PRM that scored it (``run.spec.prm``); the PRM
the parent records is made again as recorded (its convention, its server), so naming it
rescores a branch exactly as the parent was scored.
``prm="judge"`` makes the branch's own model (``backend``) the judge.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.core._intervention import Force
    >>> from llenvs.evaluation.branching._branch_request import BranchRequest
    >>> from llenvs.traces import read_branches, write_traces
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = write_traces(path, [parent])
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> [child] = intervene(path, BranchRequest(parent, 1, Force("So 100. ")), backend,
    ...                     prm="arithmetic")
    >>> child.success, [b.trace_id for b in read_branches(path)] == [child.trace_id]
    (True, True)
    >>> child.run.spec.prm.to_record()
    {'kind': 'arithmetic', 'class_name': 'ArithmeticPRM'}

"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from llenvs.core import Force, ModelBackend, RunControl, SamplingParams, Substitute
from llenvs.evaluation.branching._branch import branch
from llenvs.evaluation.branching._branch_prm import branch_prm_rewards, branch_prm_spec
from llenvs.evaluation.branching._branch_request import BranchRequest
from llenvs.evaluation.branching._on_policy import OnPolicy, on_policy
from llenvs.evaluation.branching._substitute import (
    Similarity,
    find_substitute,
    recorded_substitute,
)
from llenvs.evaluation.branching._trace_environment import trace_environment
from llenvs.traces.files import append_branch
from llenvs.traces.records import Trace

__all__ = ["intervene"]


def intervene(
    path: str | os.PathLike[str],
    request: BranchRequest,
    backend: ModelBackend,
    *,
    prm: str | None = None,
    prm_options: Mapping[str, Any] | None = None,
    sampling_params: SamplingParams | None = None,
    control: RunControl | None = None,
    on_policy_samples: int = 0,
    on_policy_score: OnPolicy | None = None,
    similarity: Similarity | None = None,
) -> list[Trace]:
    """Branch as ``request`` says (its parent a trace of the file ``path``); keep the branches.

    Arguments:
        path: the trace file; the branches go to its ``*.branches.jsonl``.
        request: the parent (from the file or its sidecar), how many of its segments to keep,
            and the intervention (force, feedback, complete, or ``n`` resamples: one batch).
        backend: the model that generates.
        prm: a PRM name (``get_prm``) whose score becomes every step's ``prm`` reward; the
            name of the PRM the parent records (``trace.run.spec.prm.name``) makes
            that PRM again, as recorded (a recorded ``"judge"`` of the branch's model judges
            with ``backend``: see ``recorded_prm_rewards``). ``"judge"``: ``backend`` judges.
            ``"mc"``: rollouts of ``backend`` from every step, judged by the trace's task
            (registered by ``llenvs.analysis`` when imported).
            None: no PRM.
        prm_options: options for ``get_prm`` (e.g. ``{"base_url": ...}`` for
            ``"vllm/<model>"``); with the recorded PRM's name they make it anew with them.
        sampling_params: how to sample after a force, feedback or complete (default: the
            parent's own); a ``Resample`` carries its own (``branch``).
        control: ``branch``'s (its observer gets a ``StepTaken`` per new segment, as it
            comes; once it is stopped, what was generated is kept, truncated).
        on_policy_samples: for a Force, score its text against this many of the model's own
            continuations first (``on_policy``) and record it on each branch as
            ``metadata["on_policy"]``; 0: not scored.
        on_policy_score: for a Force, its score computed already (the workbench scores the
            text before Generate): recorded as it is, nothing is computed again.
        similarity: for a ``Substitute``, how tries are measured against its text (MiniLM or
            the lexical one: ``llenvs.analysis.instruments.similarity_named``); it is needed.
            Its chosen text and target are scored against ``on_policy_samples`` continuations.

    A ``Substitute`` is searched for first (``find_substitute``), its chosen text forced as a
    ``Force`` forces, and each branch records the ``Substitute`` as its intervention and the
    search as ``metadata["substitute"]``.

    Returns the branches, in the order they were appended.

    """
    trace = request.parent
    asked = request.intervention
    substitution = None
    if isinstance(asked, Substitute):
        if similarity is None:
            raise ValueError("a Substitute needs a similarity to measure its tries with")
        substitution = find_substitute(
            trace, request.at, asked, backend, similarity, on_policy_samples=on_policy_samples
        )
        request = replace(request, intervention=Force(substitution.text))
    forced = asked if isinstance(asked, Force) else None
    scored = on_policy_score if forced is not None else None
    if scored is None and forced is not None and on_policy_samples:
        seed = None if sampling_params is None else sampling_params.seed
        scored = on_policy(
            trace, request.at, forced.text, backend, samples=on_policy_samples, seed=seed or 0
        )
    rewards = branch_prm_rewards(trace, prm, backend, prm_options)
    environment = trace_environment(trace, backend, rewards)
    children = branch(
        request,
        backend,
        environment=environment,
        sampling_params=sampling_params,
        control=control,
    )
    record = branch_prm_spec(trace, prm, prm_options or {}, rewards, backend)
    children = [
        replace(child, run=replace(child.run, spec=replace(child.run.spec, prm=record)))
        for child in children
    ]
    if scored is not None:
        made = {"on_policy": scored.to_record()}
        children = [replace(child, metadata={**child.metadata, **made}) for child in children]
    if isinstance(asked, Substitute) and substitution is not None:
        children = [recorded_substitute(child, asked, substitution) for child in children]
    for child in children:
        append_branch(path, child)
    return children
