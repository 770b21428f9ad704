"""The task of a trace: which environment, which task, what was asked, what was expected.

Example:
    >>> TaskRecord("leg_counting", "reasoning_gym", {"size": 100}, 0, "How many legs?").adapter
    'reasoning_gym'

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs.core import EnvSpec, State
from llenvs.traces.records._record_reader import RecordReader, check_integer, check_json_safe
from llenvs.traces.records._task_identity import TaskIdentity, is_prompt_hash, prompt_hash_of
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["TaskRecord"]


@dataclass(frozen=True)
class TaskRecord:
    """The task a trace answers, enough to make the environment again through the registry.

    Example:
        >>> TaskRecord("leg_counting", "reasoning_gym", {}, 0, "q").expected_answer is None
        True

    """

    environment: str
    """The environment's name within its adapter (``"leg_counting"``)."""
    adapter: str
    """The adapter that made the environment (``"reasoning_gym"``, ``"huggingface"``)."""
    adapter_kwargs: Mapping[str, Any]
    """Keyword arguments given to the registry (``size``, ``seed``, ...), JSON values only."""
    task_index: int
    """Index of the task in its environment (0-based)."""
    prompt: str
    """The whole user message: the question followed by the answer-format instruction."""
    system_prompt: str | None = None
    """The environment's system message, or None for none."""
    expected_answer: str | None = None
    """The expected answer, when the task has one."""
    prompt_hash: str = field(init=False)
    """The first 16 hex digits of the SHA-256 of ``prompt``, always computed from it (new in
    version 3): with ``environment``, the task's identity, by which runs are paired."""

    def __post_init__(self) -> None:
        if isinstance(self.task_index, bool) or not isinstance(self.task_index, int):
            raise TraceFormatError(f"task.task_index must be an int, got {self.task_index!r}")
        if self.task_index < 0:
            raise TraceFormatError(f"task.task_index must be >= 0, got {self.task_index}")
        check_integer(self.task_index, "task.task_index")  # what the reader takes back
        check_json_safe(dict(self.adapter_kwargs), "task.adapter_kwargs")
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

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this record.

        Example:
            >>> TaskRecord("e", "a", {}, 0, "q").to_dict()["task_index"]
            0

        """
        return {
            "environment": self.environment,
            "adapter": self.adapter,
            "adapter_kwargs": dict(self.adapter_kwargs),
            "task_index": self.task_index,
            "prompt": self.prompt,
            "system_prompt": self.system_prompt,
            "expected_answer": self.expected_answer,
            "prompt_hash": self.prompt_hash,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "trace.task") -> TaskRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        ``prompt_hash`` is new in schema version 3: an older record, which lacks it, gets it
        from its prompt; a recorded one that is not the prompt's hash is refused.

        Example:
            >>> r = TaskRecord("e", "a", {"size": 1}, 0, "q")
            >>> TaskRecord.from_dict(r.to_dict()) == r
            True
            >>> old = {k: v for k, v in r.to_dict().items() if k != "prompt_hash"}
            >>> TaskRecord.from_dict(old).prompt_hash == r.prompt_hash
            True

        """
        reader = RecordReader(data, where)
        recorded = reader.text("prompt_hash") if "prompt_hash" in reader.data else None
        record = cls(
            environment=reader.text("environment"),
            adapter=reader.text("adapter"),
            adapter_kwargs=reader.obj("adapter_kwargs"),
            task_index=reader.integer("task_index"),
            prompt=reader.text("prompt"),
            system_prompt=reader.opt_text("system_prompt"),
            expected_answer=reader.opt_text("expected_answer"),
        )
        reader.done()
        if recorded is not None and recorded != record.prompt_hash:
            shown = recorded if is_prompt_hash(recorded) else f"{recorded!r:.40}"
            raise TraceFormatError(
                f"{reader.path('prompt_hash')}: {shown} is not the hash of the prompt "
                f"({record.prompt_hash}); was the prompt edited?"
            )
        return record
