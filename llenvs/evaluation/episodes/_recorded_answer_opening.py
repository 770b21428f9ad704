r"""The answer opening a trace's run recorded; ``AnswerOpening`` itself is a core value.

``AnswerOpening`` (``llenvs.core.run_spec``) is part of the run spec; it is
re-exported here, where the episode loop uses it.

Example:
    >>> AnswerOpening().text
    '\n\nFinal answer: <answer>'

"""

from __future__ import annotations

from llenvs.core.run_spec import DEFAULT_TEXT, AnswerOpening
from llenvs.traces.records import Trace

__all__ = ["DEFAULT_TEXT", "AnswerOpening", "recorded_answer_opening"]


def recorded_answer_opening(trace: Trace) -> AnswerOpening | None:
    r"""The opening ``trace``'s run forced where an answer was missing (``run.spec``'s).

    Branches, rollouts and forced answers of a trace open missing answers as its run did.

    Example:
        >>> from llenvs.core.run_spec import RunSpec
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> run = RunRecord(RunSpec(answer_opening=AnswerOpening("A:", 4, "A:")))
        >>> recorded_answer_opening(Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=run,
        ...                               response="", segments=()))
        AnswerOpening(text='A:', max_tokens=4, marker='A:', stop=('\n\n',))

    """
    return trace.run.spec.answer_opening
