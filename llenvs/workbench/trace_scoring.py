"""Adding a process reward model's scores to the segments of traces, with the PRM recorded.

Example:
    >>> from llenvs.traces import TraceImport
    >>> from llenvs.traces.importers import openai_chat_traces
    >>> [t] = openai_chat_traces({"messages": [{"role": "user", "content": "q"},
    ...     {"role": "assistant", "content": "2 + 2 = 5. So 5."}]})
    >>> scored = with_prm_scores(t, ArithmeticPRM(), "arithmetic")
    >>> [s.prm_scores for s in scored.segments], scored.run.spec.prm.to_record()
    ([{'prm': 0.0}, {'prm': 0.5}], {'kind': 'arithmetic', 'class_name': 'ArithmeticPRM'})

"""

from __future__ import annotations

import dataclasses

from llenvs.core.spec import PRMSpec
from llenvs.rewards import PRM, PRM_REWARD_NAME, score_traces
from llenvs.rewards.prm_provenance import prm_provenance
from llenvs.rewards.prm_scores import with_step_scores
from llenvs.traces import Trace

__all__ = ["with_prm_scores"]


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
