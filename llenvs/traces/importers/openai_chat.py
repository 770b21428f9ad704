"""Importing OpenAI chat-completion JSONL: one trace per assistant answer.

Three line shapes are read: a conversation (``{"messages": [...]}``, the fine-tuning and eval
format; the last assistant message is the response), a chat completion object (``{"object":
"chat.completion", "model", "choices": [{"message": {"role", "content"}}]}``, optionally with
the request beside it as ``"request": {"messages": [...]}``; one trace per choice), and a line of
a Batch API output file (``{"custom_id", "response": {"body": <chat completion>}}``). The
response is cut by a segmenter spec (default ``"steps"``).

Example:
    >>> line = {"messages": [{"role": "user", "content": "2 + 2?"},
    ...                      {"role": "assistant", "content": "2 + 2 = 4. So 4."}]}
    >>> [t] = openai_chat_traces(line)
    >>> t.task.prompt, [s.text for s in t.segments]
    ('2 + 2?', ['2 + 2 = 4. ', 'So 4.'])

"""

from __future__ import annotations

from typing import Any

from llenvs.core.backend import Message
from llenvs.traces.errors import TraceFormatError
from llenvs.traces.importers.pieces import pieces_of, segments_of
from llenvs.traces.run_record import RunRecord
from llenvs.traces.task_record import TaskRecord
from llenvs.traces.trace import Trace

__all__ = ["openai_chat_traces"]


def openai_chat_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    """The traces of one line of a chat-completion JSONL file (``number``: its line).

    Example:
        >>> line = {"custom_id": "task-3", "response": {"body": {
        ...     "object": "chat.completion", "model": "gpt-x",
        ...     "choices": [{"message": {"role": "assistant", "content": "Yes."}}]}}}
        >>> [t] = openai_chat_traces(line, number=9)
        >>> t.run.model, t.task.task_index, t.metadata["custom_id"]
        ('gpt-x', 8, 'task-3')

    """
    if not isinstance(row, dict):
        raise TraceFormatError(f"expected a JSON object, got {type(row).__name__}")
    extra: dict[str, Any] = {"imported_from": "openai_chat"}
    if "custom_id" in row:
        extra["custom_id"] = row["custom_id"]
        body = (row.get("response") or {}).get("body")
        if not isinstance(body, dict):
            raise TraceFormatError("a batch output line without response.body")
        row = body
    if "choices" in row:
        request = row.get("request") or {}
        conversation = _messages(request.get("messages") or [], "request.messages")
        answers = []
        for choice in row["choices"]:
            message = choice.get("message") or {}
            content = message.get("content")
            if not isinstance(content, str):
                raise TraceFormatError("a choice whose message has no text content")
            answers.append(content)
        model = row.get("model")
    elif "messages" in row:
        conversation = _messages(row["messages"], "messages")
        if not conversation or conversation[-1].role != "assistant":
            raise TraceFormatError("'messages' must end with an assistant message")
        answers = [conversation.pop().content]
        model = row.get("model")
    else:
        raise TraceFormatError("neither 'choices' (a chat completion) nor 'messages'")
    users = [m.content for m in conversation if m.role == "user"]
    systems = [m.content for m in conversation if m.role == "system"]
    prompt = users[-1] if users else ""
    system = systems[0] if systems else None
    return [
        Trace(
            task=TaskRecord(
                environment="chat",
                adapter="openai_chat",
                adapter_kwargs={},
                task_index=number - 1,
                prompt=prompt,
                system_prompt=system,
            ),
            run=RunRecord(
                model=model if isinstance(model, str) else None,
                system_prompt=system,
                segmenter=segmenter,
            ),
            messages=(*conversation, Message("assistant", answer)),
            response=answer,
            segments=segments_of(pieces_of(answer, segmenter)),
            metadata=extra if len(answers) == 1 else {**extra, "choice": index},
        )
        for index, answer in enumerate(answers)
    ]


def _messages(items: object, where: str) -> list[Message]:
    if not isinstance(items, list):
        raise TraceFormatError(f"{where!r} must be a list")
    messages = []
    for number, item in enumerate(items):
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise TraceFormatError(f"{where}[{number}] has no text content")
        try:
            messages.append(Message(item.get("role"), content))
        except ValueError as error:
            raise TraceFormatError(f"{where}[{number}]: {error}") from None
    return messages
