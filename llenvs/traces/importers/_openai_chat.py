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

from llenvs.core import Message
from llenvs.core.run_spec import RunSpec
from llenvs.traces.importers._pieces import pieces_of, segments_of
from llenvs.traces.importers._rows import list_at, object_at
from llenvs.traces.records import RunRecord, TaskRecord, Trace, TraceFormatError

__all__ = ["openai_chat_traces"]


def openai_chat_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    """The traces of one line of a chat-completion JSONL file (``number``: its line).

    Example:
        >>> line = {"custom_id": "task-3", "response": {"body": {
        ...     "object": "chat.completion", "model": "gpt-x",
        ...     "choices": [{"message": {"role": "assistant", "content": "Yes."}}]}}}
        >>> [t] = openai_chat_traces(line, number=9)
        >>> t.run.model_name, t.task.task_index, t.metadata["custom_id"]
        ('gpt-x', 8, 'task-3')

    """
    if not isinstance(row, dict):
        raise TraceFormatError(f"expected a JSON object, got {type(row).__name__}")
    extra: dict[str, Any] = {"imported_from": "openai_chat"}
    if "custom_id" in row:
        extra["custom_id"] = row["custom_id"]
        response = row.get("response")
        body = response.get("body") if isinstance(response, dict) else None
        if not isinstance(body, dict):
            failed = row.get("error")
            why = f" (the request failed: {str(failed)[:80]})" if failed else ""
            raise TraceFormatError(f"a batch output line without response.body{why}")
        row = body
    if "choices" in row:
        request = object_at(row.get("request") or {}, "request")
        conversation = _messages(request.get("messages") or [], "request.messages")
        choices = list_at(row["choices"], "choices")
        if not choices:
            raise TraceFormatError("a chat completion without choices")
        answers = []
        for position, choice in enumerate(choices):
            message = object_at(choice, f"choices[{position}]").get("message")
            content = object_at(message, f"choices[{position}].message").get("content")
            if not isinstance(content, str):
                raise TraceFormatError(f"choices[{position}].message has no text content")
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
            run=RunRecord.made_with(
                RunSpec(),
                model_name=model if isinstance(model, str) else None,
                segmenter=segmenter,
                system_prompt=system,
            ),
            messages=(*conversation, Message("assistant", answer)),
            response=answer,
            segments=segments_of(pieces_of(answer, segmenter)),
            metadata=extra if len(answers) == 1 else {**extra, "choice": index},
        )
        for index, answer in enumerate(answers)
    ]


def _messages(items: object, where: str) -> list[Message]:
    messages = []
    for number, item in enumerate(list_at(items, where)):
        content = object_at(item, f"{where}[{number}]").get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = _text_parts(content, f"{where}[{number}].content")
        if not isinstance(content, str):
            raise TraceFormatError(f"{where}[{number}] has no text content")
        try:
            messages.append(Message(item.get("role"), content))
        except ValueError as error:
            raise TraceFormatError(f"{where}[{number}]: {error}") from None
    return messages


def _text_parts(parts: list[Any], where: str) -> str:
    """The text of a message's content parts (``{"type": "text", "text": ...}``), joined."""
    texts = []
    for number, part in enumerate(parts):
        if isinstance(part, dict) and "text" in part:
            if not isinstance(part["text"], str):
                raise TraceFormatError(f"{where}[{number}].text must be a string")
            texts.append(part["text"])
    return "".join(texts)
