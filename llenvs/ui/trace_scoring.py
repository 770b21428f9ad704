"""Adding a process reward model's scores to the segments of traces.

Example:
    >>> from llenvs.rewards import ArithmeticPRM
    >>> from llenvs.traces import TraceImport
    >>> from llenvs.traces.importers import openai_chat_traces
    >>> [t] = openai_chat_traces({"messages": [{"role": "user", "content": "q"},
    ...     {"role": "assistant", "content": "2 + 2 = 5. So 5."}]})
    >>> [s.prm_scores for s in with_prm_scores(t, ArithmeticPRM(), "prm").segments]
    [{'prm': 0.0}, {'prm': 0.5}]

"""

from __future__ import annotations

from llenvs.rewards import PRM, score_traces
from llenvs.rewards.prm_scores import with_step_scores
from llenvs.traces import Trace

__all__ = ["with_prm_scores"]


def with_prm_scores(trace: Trace, prm: PRM, name: str) -> Trace:
    """``trace`` with ``prm``'s score of every segment added under ``name``.

    Each score goes into ``rewards[name]`` and ``prm_scores[name]``, as a ``PRMRewardFunction``
    called ``name`` records it; a segment the PRM does not rate (None) has no ``name`` entry
    (any earlier one is dropped), so the workbench shows "–". The PRM sees the task's prompt as
    the question and the segment texts as the steps.

    Example:
        >>> from llenvs.rewards import ArithmeticPRM
        >>> from llenvs.traces import TaskRecord
        >>> empty = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> with_prm_scores(empty, ArithmeticPRM(), "p") == empty
        True

    """
    if not trace.segments:
        return trace
    [scores] = score_traces(prm, [(trace.task.prompt, [s.text for s in trace.segments])])
    return with_step_scores(trace, name, scores)
