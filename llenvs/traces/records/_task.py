"""The task of a trace: which environment, which task, what was asked, what was expected.

Example:
    >>> TaskRecord("leg_counting", "reasoning_gym", {"size": 100}, 0, "How many legs?").adapter
    'reasoning_gym'

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs.core import RECORD, Count, EnvSpec, State, Text, computed
from llenvs.traces.records._record_reader import check_integer, check_json_safe
from llenvs.traces.records._task_identity import TaskIdentity, is_prompt_hash, prompt_hash_of
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["TaskRecord"]


def _check_prompt_hash(record: TaskRecord, recorded: Mapping[str, Any]) -> None:
    """Refuse a recorded prompt hash that is not the prompt's (was the prompt edited?)."""
    if "prompt_hash" not in recorded:
        return
    value = recorded["prompt_hash"]
    if not isinstance(value, str):
        raise TraceFormatError(f"prompt_hash: expected a string, got {value!r:.40}")
    if value != record.prompt_hash:
        shown = value if is_prompt_hash(value) else f"{value!r:.40}"
        raise TraceFormatError(
            f"prompt_hash: {shown} is not the hash of the prompt ({record.prompt_hash}); was "
            "the prompt edited?"
        )


@dataclass(frozen=True)
class TaskRecord:
    """The task a trace answers, enough to make the environment again through the registry.

    ``prompt_hash`` is always computed from the prompt; its JSON holds it, and a recorded one
    that is not the prompt's is refused (a record older than schema version 3 has none).

    Example:
        >>> from llenvs.core import read_record, record_dict
        >>> r = TaskRecord("leg_counting", "reasoning_gym", {}, 0, "q")
        >>> r.expected_answer is None, read_record(TaskRecord, record_dict(r)) == r
        (True, True)
        >>> old = {k: v for k, v in record_dict(r).items() if k != "prompt_hash"}
        >>> read_record(TaskRecord, old).prompt_hash == r.prompt_hash
        True

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = computed(_check_prompt_hash)

    environment: Text
    """The environment's name within its adapter (``"leg_counting"``)."""
    adapter: Text
    """The adapter that made the environment (``"reasoning_gym"``, ``"huggingface"``)."""
    adapter_kwargs: Mapping[Text, Any]
    """Keyword arguments given to the registry (``size``, ``seed``, ...), JSON values only."""
    task_index: Count
    """Index of the task in its environment (0-based)."""
    prompt: Text
    """The whole user message: the question followed by the answer-format instruction."""
    system_prompt: Text | None = None
    """The environment's system message, or None for none."""
    expected_answer: Text | None = None
    """The expected answer, when the task has one."""
    prompt_hash: str = field(init=False)
    """The first 16 hex digits of the SHA-256 of ``prompt``, always computed from it (new in
    version 3): with ``environment``, the task's identity, by which runs are paired."""

    def __post_init__(self) -> None:
        if isinstance(self.task_index, bool) or not isinstance(self.task_index, int):
            raise TraceFormatError(f"task_index: must be an int, got {self.task_index!r}")
        if self.task_index < 0:
            raise TraceFormatError(f"task_index: must be >= 0, got {self.task_index}")
        check_integer(self.task_index, "task_index")  # what a reader takes back
        check_json_safe(dict(self.adapter_kwargs), "adapter_kwargs")
        object.__setattr__(self, "prompt_hash", prompt_hash_of(self.prompt))

    @property
    def identity(self) -> TaskIdentity:
        """The task's identity across runs: its environment and the hash of its prompt.

        Example:
            >>> a = TaskRecord("products", "reasoning_gym", {}, 0, "Solve 4 * 3.")
            >>> b = TaskRecord("products", "prm800k", {}, 9, "Solve 4 * 3.")
            >>> c = TaskRecord("products", "reasoning_gym", {}, 0, "Solve 3 * 3.")
            >>> a.identity == b.identity, a.identity == c.identity
            (True, False)

        """
        return TaskIdentity(self.environment, self.prompt_hash)

    @classmethod
    def from_state(cls, spec: EnvSpec, state: State[Any]) -> TaskRecord:
        """The record of the task of ``state`` (from ``reset``) in the environment of ``spec``.

        The expected answer is the ``answer`` of the task (the state's hidden part, or the
        base hidden part of a segmented state) when it has one.

        Example:
            >>> from llenvs.core._state import Observation, StateMetadata
            >>> s = State(Observation("2 + 2?"), None, StateMetadata(task_index=3))
            >>> TaskRecord.from_state(EnvSpec("sums", "toy", {"size": 5}), s).task_index
            3

        """
        hidden = getattr(state.hidden, "base_hidden", state.hidden)
        answer = getattr(hidden, "answer", None)
        return cls(
            environment=spec.name,
            adapter=spec.adapter,
            adapter_kwargs=dict(spec.kwargs),
            task_index=state.metadata.task_index,
            prompt=state.observation.prompt,
            system_prompt=state.observation.system_prompt,
            expected_answer=answer if isinstance(answer, str) else None,
        )
