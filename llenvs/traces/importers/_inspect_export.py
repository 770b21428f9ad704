"""Writing traces as an Inspect AI log, with Inspect's own writer, so ``inspect view`` opens them.

``write_inspect_log(traces, path)`` makes one ``EvalLog`` (``inspect_ai.log``) whose samples are
the traces, in order: each sample's id is the trace's id, its input the task's prompt, its target
the expected answer, its messages the trace's conversation (the response as the assistant's
answer), its output the response, and its scores the trace's final rewards by name, its
verdict (``success``: C or I) and, given step labels, the index of the first wrong step
(``first_error``: -1 when every labelled step is right, as ProcessBench reads it). Its metadata
``llenvs`` holds the trace itself (``trace``: the record a trace file holds) and whatever else
the caller gives per trace (``extras``: step values, PRM scores, the labels), so that
``llenvs import inspect`` gives the trace back unchanged and a reader of the log finds the rest.
The log's task is the traces' environment when they share one (else ``llenvs``), its model
the one they record when they share one (``provider/model``, as Inspect names models: a name
recorded without a provider, as an import states it, goes under ``llenvs/``; ``llenvs/unknown``
only where a trace records none, ``llenvs/mixed`` for several). The file is written next to its
final name and moved there, so a failed export leaves no partial log; it gets the permissions
the other writers give (``llenvs.traces.files``: the umask's, or those of the file it
replaces), not the staging file's 0600.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("legs", "a", {}, 0, "2 cows?", expected_answer="8"),
    ...           response="So 8.", segments=(SegmentRecord(0, 0, 5, "So 8."),), success=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "out.eval")
    >>> write_inspect_log([t], path)
    1
    >>> from llenvs.traces.importers._inspect_log import InspectImport
    >>> [back] = InspectImport(path)
    >>> back == t
    True

"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from llenvs.traces.files import file_mode
from llenvs.traces.records import Trace

__all__ = ["EXPORT_METADATA", "write_inspect_log"]

EXPORT_METADATA = "llenvs"
"""The sample metadata key that holds the trace (``trace``) and the caller's extras."""


def write_inspect_log(
    traces: Iterable[Trace],
    path: str | os.PathLike[str],
    *,
    extras: Mapping[str, Mapping[str, Any]] | None = None,
    first_errors: Mapping[str, int] | None = None,
) -> int:
    """Write ``traces`` as an Inspect log at ``path`` (``.eval`` or ``.json``); how many.

    ``extras``: per trace id, JSON values kept beside the trace in the sample's metadata;
    ``first_errors``: per trace id, the first wrong step its labels settle (-1: none), written
    as the score ``first_error``. Nothing is written when there is no trace (a ``ValueError``).
    """
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, write_eval_log

    extras = extras or {}
    first_errors = first_errors or {}
    traces = list(traces)
    if not traces:
        raise ValueError("no trace to export: nothing was written")
    samples = [_sample(t, extras.get(t.trace_id, {}), first_errors.get(t.trace_id)) for t in traces]
    environments = {t.task.environment for t in traces}
    models = {_model(t) for t in traces}
    spec = EvalSpec(
        created=datetime.now(UTC).isoformat(),
        task=environments.pop() if len(environments) == 1 else "llenvs",
        dataset=EvalDataset(
            name=Path(path).stem, samples=len(samples), sample_ids=[s.id for s in samples]
        ),
        model=models.pop() if len(models) == 1 else "llenvs/mixed",
        config=EvalConfig(),
        metadata={"exported_by": "llenvs"},
    )
    log = EvalLog(eval=spec, status="success", samples=samples)
    target = Path(path)
    handle, staging = tempfile.mkstemp(dir=target.parent, suffix=target.suffix or ".eval")
    os.close(handle)
    try:
        write_eval_log(log, staging)
        os.chmod(staging, file_mode(str(target)))  # mkstemp made it 0600
        os.replace(staging, target)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
    return len(samples)


def _model(trace: Trace) -> str:
    """The log's name of the model the trace records: ``provider/model`` as Inspect writes it.

    Example:
        >>> import dataclasses
        >>> from llenvs.core.run_spec import RunSpec
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> _model(t), _model(dataclasses.replace(t, run=RunRecord.made_with(
        ...     RunSpec(), model_name="deepseek-r1-distill-llama-8b")))
        ('llenvs/unknown', 'llenvs/deepseek-r1-distill-llama-8b')

    """
    name = trace.run.model_name
    return name if name is not None and "/" in name else f"llenvs/{name or 'unknown'}"


def _sample(trace: Trace, extra: Mapping[str, Any], first_error: int | None) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        ModelOutput,
    )
    from inspect_ai.scorer import Score

    messages: list[Any] = []
    for message in trace.messages:
        kind = {"system": ChatMessageSystem, "user": ChatMessageUser}.get(message.role)
        messages.append(
            kind(content=message.content)
            if kind is not None
            else ChatMessageAssistant(content=message.content)
        )
    if not messages:
        messages = [ChatMessageUser(content=trace.task.prompt)]
    if messages[-1].role != "assistant" or messages[-1].text != trace.response:
        messages.append(ChatMessageAssistant(content=trace.response))
    scores = {name: Score(value=value) for name, value in trace.final_rewards.items()}
    if trace.success is not None:
        scores["success"] = Score(value="C" if trace.success else "I")
    if first_error is not None:
        scores["first_error"] = Score(value=first_error)
    return EvalSample(
        id=trace.trace_id,
        epoch=1,
        input=trace.task.prompt,
        target=trace.task.expected_answer or "",
        messages=messages,
        output=ModelOutput.from_content(
            model=trace.run.model_name or "llenvs", content=trace.response
        ),
        scores=scores,
        metadata={EXPORT_METADATA: {"trace": trace.to_dict(), **extra}},
    )
