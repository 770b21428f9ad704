"""One PRM's step scores of a file's traces: read from the segments, or scored now.

A trace's segments keep PRM scores by name (``SegmentRecord.prm_scores``: ``prm`` for the
PRM a run was scored with, any other name for scores added later, ``llenvs score``).
``stored_scores`` reads one name's; ``llenvs.evaluation`` scores the steps now
with a PRM a name gives, when no segment stores that name. Either way, a ``PRMScores`` holds
trace id -> one score per segment, what the agreement measures compare with labels.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="2 + 2 = 5.",
    ...           segments=(SegmentRecord(0, 0, 10, "2 + 2 = 5.", prm_scores={"p": 0.25}),))
    >>> stored_names([t])
    ('p',)
    >>> found = stored_scores("p", [t])
    >>> found.name, found.source, list(found.scores.values())
    ('p', 'stored', [[0.25]])

**Scoring now** (``with_prm_scores``) adds a PRM's scores to a trace's segments and records the
PRM in its run spec.

Example:
    >>> from llenvs.traces import TraceImport
    >>> from llenvs.rewards import ArithmeticPRM
    >>> from llenvs.traces.importers import openai_chat_traces
    >>> [t] = openai_chat_traces({"messages": [{"role": "user", "content": "q"},
    ...     {"role": "assistant", "content": "2 + 2 = 5. So 5."}]})
    >>> scored = with_prm_scores(t, ArithmeticPRM(), "arithmetic")
    >>> [s.prm_scores for s in scored.segments], scored.run.spec.prm.to_record()
    ([{'prm': 0.0}, {'prm': 0.5}], {'kind': 'arithmetic', 'class_name': 'ArithmeticPRM'})

"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from llenvs.core.run_spec import PRMSpec
from llenvs.rewards.prm._contract import PRM, score_traces
from llenvs.rewards.prm._provenance import prm_provenance
from llenvs.rewards.prm._reward_function import PRM_REWARD_NAME
from llenvs.traces.records import SegmentRecord, Trace

__all__ = ["PRMScores", "stored_names", "stored_scores", "with_prm_scores", "with_step_scores"]


@dataclass(frozen=True)
class PRMScores:
    """One PRM's step scores of a file's traces.

    Example:
        >>> PRMScores("arithmetic", False, {"t": [0.5, None]}).source
        'scored now'

    """

    name: str
    """The name asked for: a stored score name, or the PRM's name (``get_prm``'s)."""
    stored: bool
    """True: read from the segments' ``prm_scores``; False: scored now."""
    scores: Mapping[str, Sequence[float | None]]
    """Trace id -> one score per segment (None: unrated)."""

    @property
    def source(self) -> str:
        """How the scores were had, for people.

        Example:
            >>> PRMScores("prm", True, {}).source
            'stored'

        """
        return "stored" if self.stored else "scored now"


def stored_names(traces: Sequence[Trace]) -> tuple[str, ...]:
    """The score names the traces' segments store, sorted.

    Example:
        >>> stored_names([])
        ()

    """
    return tuple(sorted({name for t in traces for s in t.segments for name in s.prm_scores}))


def stored_scores(name: str, traces: Sequence[Trace]) -> PRMScores:
    """The scores stored under ``name``; the traces holding none of them are left out.

    A segment without one is unrated (None).

    Example:
        >>> stored_scores("p", []).scores
        {}

    """
    scores = {
        t.trace_id: [s.prm_scores.get(name) for s in t.segments]
        for t in traces
        if any(name in s.prm_scores for s in t.segments)
    }
    return PRMScores(name, True, scores)


def with_step_scores(trace: Trace, name: str, scores: Sequence[float | None]) -> Trace:
    """``trace`` with one score per segment stored under ``name``.

    Each score goes into the segment's ``rewards[name]`` and ``prm_scores[name]``, as a
    ``PRMRewardFunction`` called ``name`` records it; an unrated segment (None) has no ``name``
    entry (any earlier one is dropped), so the workbench shows "–".

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
        ...           segments=(SegmentRecord(0, 0, 3, "A. ", prm_scores={"j": 0.1}),
        ...                     SegmentRecord(1, 3, 5, "B.")))
        >>> [s.prm_scores for s in with_step_scores(t, "j", [None, 0.75]).segments]
        [{}, {'j': 0.75}]
        >>> with_step_scores(t, "j", [0.5])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: 1 scores for a trace of 2 segments (trace ...)

    """
    if len(scores) != len(trace.segments):
        raise ValueError(
            f"{len(scores)} scores for a trace of {len(trace.segments)} segments "
            f"(trace {trace.trace_id})"
        )
    segments = tuple(
        _scored(s, name, score) for s, score in zip(trace.segments, scores, strict=True)
    )
    return dataclasses.replace(trace, segments=segments)


def _scored(segment: SegmentRecord, name: str, score: float | None) -> SegmentRecord:
    """``segment`` with ``score`` under ``name``; without any ``name`` entry when unrated."""
    if score is not None:
        rewards = {**segment.rewards, name: float(score)}
        prm_scores = {**segment.prm_scores, name: float(score)}
    else:
        rewards = {k: v for k, v in segment.rewards.items() if k != name}
        prm_scores = {k: v for k, v in segment.prm_scores.items() if k != name}
    return dataclasses.replace(segment, rewards=rewards, prm_scores=prm_scores)


def with_prm_scores(trace: Trace, prm: PRM, spec: str | PRMSpec) -> Trace:
    """``trace`` with ``prm``'s score of every segment, and ``prm`` recorded as its scorer.

    Each score goes into ``rewards["prm"]`` and ``prm_scores["prm"]``, as the run's
    ``PRMRewardFunction`` records it, and ``run.spec.prm`` becomes ``prm``'s spec (made from
    ``spec``, its name or spec), so the trace says which PRM the scores are of. A segment the
    PRM does not rate (None) has no ``prm`` entry (any earlier one is dropped), so the workbench
    shows "–". The PRM sees the task's prompt as the question and the segment texts as the
    steps.

    Example:
        >>> empty = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> with_prm_scores(empty, ArithmeticPRM(), "arithmetic").run.spec.prm.class_name
        'ArithmeticPRM'

    """
    run = trace.run
    recorded = dataclasses.replace(
        run, spec=dataclasses.replace(run.spec, prm=prm_provenance(spec, prm))
    )
    trace = dataclasses.replace(trace, run=recorded)
    if not trace.segments:
        return trace
    [scores] = score_traces(prm, [(trace.task.prompt, [s.text for s in trace.segments])])
    return with_step_scores(trace, PRM_REWARD_NAME, scores)
