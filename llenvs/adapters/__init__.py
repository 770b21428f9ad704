"""Environments by adapter: reasoning-gym datasets (and, later, hub and local datasets).

Adapters are imported lazily by ``llenvs.core.registry``; import them directly only to use
their classes.

Example:
    >>> from llenvs.adapters._answers import extract_answer
    >>> extract_answer("<answer>7</answer>")
    '7'

"""

from llenvs.adapters._answers import ANSWER_OPEN, extract_answer, extract_boxed, has_closed_answer
from llenvs.adapters._question_answer import QuestionAnswerEnvironment
from llenvs.adapters._task import Task
from llenvs.adapters._task_record_environment import TaskRecordEnvironment

__all__ = [
    "ANSWER_OPEN",
    "QuestionAnswerEnvironment",
    "Task",
    "TaskRecordEnvironment",
    "extract_answer",
    "extract_boxed",
    "has_closed_answer",
]
