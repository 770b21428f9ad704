r"""The answer opening a trace's run recorded; ``AnswerOpening`` itself is a core value.

``AnswerOpening`` (``llenvs.core.spec.answer_opening``) is part of the run spec; it is
re-exported here, where the episode loop uses it.

Example:
    >>> AnswerOpening().text
    '\n\nFinal answer: <answer>'

"""

from __future__ import annotations

from llenvs.core.spec.answer_opening import DEFAULT_TEXT, AnswerOpening
from llenvs.traces.trace import Trace

__all__ = ["DEFAULT_TEXT", "AnswerOpening", "recorded_answer_opening"]


def recorded_answer_opening(trace: Trace) -> AnswerOpening | None:
    r"""The opening ``trace``'s run forced where an answer was missing (``run.answer_opening``).

    Branches, rollouts and forced answers of a trace open missing answers as its run did.

    Example:
        >>> from types import SimpleNamespace
        >>> run = SimpleNamespace(answer_opening=AnswerOpening("A:", 4, "A:").to_record())
        >>> recorded_answer_opening(SimpleNamespace(run=run))
        AnswerOpening(text='A:', max_tokens=4, marker='A:', stop=('\n\n',))
        >>> recorded_answer_opening(SimpleNamespace(run=SimpleNamespace(answer_opening=None)))

    """
    recorded = trace.run.answer_opening
    return None if recorded is None else AnswerOpening.from_record(recorded)
