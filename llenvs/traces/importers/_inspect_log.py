r"""Importing Inspect AI eval logs: one trace per sample and epoch, read with Inspect's reader.

An Inspect log (``.eval``, or the older ``.json``) is read with ``inspect_ai.log``: its header
(``read_eval_log(header_only=True)``: the task, the model, its generation config) once, then
its samples one at a time (``read_eval_log_samples``, without their events), so a log larger
than memory imports in bounded memory. Each sample becomes a trace:

- **Response**: the last assistant message's content, its reasoning blocks
  (``ContentReasoning``) and text blocks in order, each reasoning block written as
  ``<think>…</think>`` and the blocks joined by a blank line; ``metadata["inspect"]["parts"]``
  records each block's kind and character span, so the texts are found again exactly. Where the
  reasoning is redacted (the provider returned it encrypted: its summary, if any, stands in) or
  absent, ``metadata["inspect"]["reasoning"]`` says so (``"redacted"``, ``"absent"``), and the
  import's summary counts it. The response is cut by the segmenter given.
- **Task**: the log's task name is the environment (so two logs of the same task pair in
  Compare runs, by task and prompt), the sample's input the prompt, its target the expected
  answer; the sample id and epoch are kept in the metadata and name the trace in messages.
- **Scores** become ``final_rewards`` by scorer name: numbers and booleans as they are, Inspect's
  letter values (C, P, I, N) as ``value_to_float`` reads them, a dict of numbers as
  ``scorer.key``; any other value is kept in ``metadata["inspect"]["scores"]`` and counted as
  not numeric. ``success`` is True when every reward is at least 1.
- **Run**: the model (``provider/model``) and the generation config's temperature, top-p, top-k,
  token budget and seed as stated by the log (``StatedSampling``: what the log does not hold
  stays unknown).

A sample that cannot be converted is skipped and named by id and epoch; the rest import. Each
trace's id is derived from the log's task, the sample's id and epoch, and its response, so
importing the same log again gives the same ids (``llenvs import`` then adds nothing).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llenvs.core import Message
from llenvs.core.run_spec import RunSpec, StatedSampling
from llenvs.traces.files import SkippedLine
from llenvs.traces.importers._inspect_export import EXPORT_METADATA
from llenvs.traces.importers._pieces import pieces_of, segments_of
from llenvs.traces.importers._trace_import import stable_trace_id
from llenvs.traces.labels import StepLabel
from llenvs.traces.records import RunRecord, TaskRecord, Trace, TraceFormatError

__all__ = ["INSPECT_FORMAT", "InspectImport", "InspectSummary"]

INSPECT_FORMAT = "inspect"
"""The format's name (``llenvs import inspect``)."""

_LETTERS = frozenset({"C", "I", "P", "N"})
"""Inspect's letter score values (CORRECT, INCORRECT, PARTIAL, NOANSWER)."""

_SKIPPED_FIELDS = frozenset({"events", "timelines", "store", "events_data"})
"""Sample fields not read: a sample's transcript can be far larger than its messages."""


def _inspect_log() -> Any:
    try:
        import inspect_ai.log
    except ImportError:
        raise ValueError(
            "reading an Inspect log needs inspect-ai: pip install 'llenvs[inspect]' (make run "
            "and make test install it)"
        ) from None
    return inspect_ai.log


@dataclass
class InspectSummary:
    """What an import found beyond its traces, for its summary line."""

    redacted: int = 0
    """Traces whose reasoning was redacted by the provider."""
    absent: int = 0
    """Traces with no reasoning at all."""
    not_numeric: dict[str, int] = field(default_factory=dict)
    """Scores kept in the metadata, not as rewards, by scorer name."""

    def notes(self) -> list[str]:
        """The summary's clauses (none when there is nothing to say).

        Example:
            >>> InspectSummary(redacted=2, not_numeric={"judge": 3}).notes()
            ['reasoning redacted in 2', 'reasoning absent in 0', "3 non-numeric scores of 'judge' kept in the metadata"]

        """  # noqa: E501
        notes = []
        if self.redacted or self.absent:
            notes += [
                f"reasoning redacted in {self.redacted}",
                f"reasoning absent in {self.absent}",
            ]
        notes += [
            f"{count} non-numeric scores of {name!r} kept in the metadata"
            for name, count in sorted(self.not_numeric.items())
        ]
        return notes


class InspectImport:
    """The traces of an Inspect log, read lazily, sample by sample (see the module).

    Iterating reads the log (``FileNotFoundError`` when it is missing; a file Inspect cannot
    read is a ``ValueError`` naming it); ``skipped`` lists the samples that could not be
    converted, ``summary`` what the import found. It holds no step labels (``labels`` is empty).
    """

    format = INSPECT_FORMAT

    def __init__(self, path: str | os.PathLike[str], *, segmenter: str = "steps") -> None:
        self.path = os.fspath(path)
        self.segmenter = segmenter
        self.skipped: list[SkippedLine] = []
        """The samples skipped, in order (``unit`` "sample": their position in the log)."""
        self.labels: list[StepLabel] = []
        """Always empty: Inspect logs hold no step labels."""
        self.summary = InspectSummary()
        """Reasoning redacted or absent, and non-numeric scores, counted as the traces come."""

    def __iter__(self) -> Iterator[Trace]:
        log = _inspect_log()
        if not os.path.exists(self.path):
            raise FileNotFoundError(2, "No such file or directory", self.path)
        try:
            header = log.read_eval_log(self.path, header_only=True)
            ids = header.eval.dataset.sample_ids or []
            positions = {sample_id: index for index, sample_id in enumerate(ids)}
            for number, sample in enumerate(self._samples(log, header), start=1):
                try:
                    trace = _trace(header.eval, sample, self.segmenter, self.summary, positions)
                except (TraceFormatError, ValueError, TypeError, AttributeError) as error:
                    reason = f"sample {sample.id!r} (epoch {sample.epoch}): {error}"
                    self.skipped.append(SkippedLine(self.path, number, reason, unit="sample"))
                    continue
                yield trace
        except (OSError, TraceFormatError):
            raise
        except Exception as error:  # Inspect's reader: a file that is not one of its logs
            if type(error).__module__.startswith("inspect_ai") or isinstance(
                error, ValueError | KeyError
            ):
                raise ValueError(
                    f"{self.path} is not an Inspect log Inspect can read: {error}"
                ) from None
            raise

    def _samples(self, log: Any, header: Any) -> Iterator[Any]:
        """The log's samples, one at a time.

        A log that does not list its sample ids (written by hand, not by an eval) cannot be
        streamed: it is read whole instead.
        """
        if header.eval.dataset.sample_ids is None:
            whole = log.read_eval_log(self.path, resolve_attachments=True)
            yield from whole.samples or []
            return
        yield from log.read_eval_log_samples(
            self.path,
            all_samples_required=False,
            resolve_attachments=True,
            exclude_fields=set(_SKIPPED_FIELDS),
        )


def _trace(
    spec: Any,
    sample: Any,
    segmenter: str,
    summary: InspectSummary,
    positions: Mapping[Any, int],
) -> Trace:
    """The trace of one sample of a log whose header's ``eval`` is ``spec``.

    ``positions``: each sample id's place among the log's dataset sample ids (its task index;
    0 for an id not there).

    A sample ``llenvs export --format inspect`` wrote holds its trace: that trace, unchanged.
    """
    exported = (sample.metadata or {}).get(EXPORT_METADATA)
    if isinstance(exported, Mapping) and "trace" in exported:
        return Trace.from_dict(exported["trace"])
    conversation = [m for m in sample.messages if m.role in ("system", "user", "assistant")]
    if not conversation or conversation[-1].role != "assistant":
        raise TraceFormatError("no assistant answer: the sample's last message is not one")
    answer = conversation.pop()
    response, parts, reasoning = _response(answer.content)
    if reasoning == "redacted":
        summary.redacted += 1
    elif reasoning == "absent":
        summary.absent += 1
    rewards, kept = _rewards(sample.scores or {})
    for name in kept:
        summary.not_numeric[name] = summary.not_numeric.get(name, 0) + 1
    messages = [Message(m.role, _text(m.content)) for m in conversation]
    users = [m.content for m in messages if m.role == "user"]
    systems = [m.content for m in messages if m.role == "system"]
    system = systems[0] if systems else None
    model = str(spec.model)
    note = {
        "log_task": spec.task,
        "eval_id": spec.eval_id,
        "sample_id": sample.id,
        "epoch": sample.epoch,
        "reasoning": reasoning,
        "parts": parts,
        "scores": kept,
    }
    return Trace(
        trace_id=stable_trace_id(
            INSPECT_FORMAT,
            {"task": spec.task, "sample": sample.id, "epoch": sample.epoch, "response": response},
            0,
        ),
        task=TaskRecord(
            environment=str(spec.task),
            adapter=INSPECT_FORMAT,
            adapter_kwargs={},
            task_index=positions.get(sample.id, 0),
            prompt=users[-1] if users else _text(sample.input),
            system_prompt=system,
            expected_answer=_target(sample.target),
        ),
        run=RunRecord.made_with(
            RunSpec(stated_sampling=_sampling(spec.model_generate_config, model)),
            model_name=model,
            segmenter=segmenter,
            system_prompt=system,
        ),
        messages=(*messages, Message("assistant", response)),
        response=response,
        segments=segments_of(pieces_of(response, segmenter)),
        final_rewards=rewards,
        success=all(v >= 1.0 for v in rewards.values()) if rewards else None,
        metadata={"imported_from": INSPECT_FORMAT, "inspect": note},
    )


def _response(content: Any) -> tuple[str, list[dict[str, Any]], str]:
    """The response text, each block's kind and span, and whether reasoning is there."""
    if isinstance(content, str):
        return content, [{"type": "text", "start": 0, "end": len(content)}], "absent"
    pieces: list[str] = []
    parts: list[dict[str, Any]] = []
    reasoning = "absent"
    at = 0
    for block in content:
        kind = getattr(block, "type", None)
        entry: dict[str, Any]
        if kind == "reasoning":
            redacted = bool(getattr(block, "redacted", False))
            text = (block.summary or "") if redacted else block.reasoning
            reasoning = "redacted" if redacted or reasoning == "redacted" else "present"
            piece = f"<think>\n{text}\n</think>"
            inner = (at + len("<think>\n"), at + len("<think>\n") + len(text))
            entry = {"type": "reasoning", "start": inner[0], "end": inner[1], "redacted": redacted}
        elif kind == "text":
            piece = block.text
            entry = {"type": "text", "start": at, "end": at + len(piece)}
        else:
            continue  # images, audio, tool use: no text of the response
        if pieces:
            pieces.append("\n\n")
            at += 2
            entry["start"] += 2
            entry["end"] += 2
        pieces.append(piece)
        parts.append(entry)
        at += len(piece)
    if not parts:
        raise TraceFormatError("the answer holds no text and no reasoning")
    return "".join(pieces), parts, reasoning


def _text(content: Any) -> str:
    """A message's text: a string as it is, content blocks' texts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = [getattr(block, "text", None) for block in content]
        return "\n\n".join(t for t in texts if isinstance(t, str))
    raise TraceFormatError(f"a message content of type {type(content).__name__}")


def _rewards(scores: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    """Numeric scores as rewards by scorer name (``scorer.key`` in a dict), the rest kept."""
    from inspect_ai.scorer import value_to_float

    read = value_to_float()
    rewards: dict[str, float] = {}
    kept: dict[str, Any] = {}
    for name, score in scores.items():
        value = score.value
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for key, item in items:
            label = name if key is None else f"{name}.{key}"
            if isinstance(item, bool | int | float) or (isinstance(item, str) and item in _LETTERS):
                rewards[label] = float(read(item))
            else:
                kept[label] = item
    return rewards, kept


def _target(target: Any) -> str | None:
    if isinstance(target, str):
        return target or None
    if isinstance(target, list) and target:
        return str(target[0])
    return None


def _sampling(config: Any, model: str) -> StatedSampling | None:
    """What the log states of the sampling; None when it states nothing."""
    stated = {
        "temperature": config.temperature,
        "top_p": config.top_p,
        "top_k": config.top_k,
        "max_tokens": config.max_tokens,
        "seed": config.seed,
    }
    if all(value is None for value in stated.values()):
        return None
    return StatedSampling(f"the Inspect log ({model})", **stated)
