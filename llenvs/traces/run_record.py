"""The reproducibility record of a trace: everything needed to run it again.

Example:
    >>> import llenvs
    >>> RunRecord(model="scripted").library_version == llenvs.__version__
    True

"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs import __version__
from llenvs.core.backend import SamplingParams
from llenvs.traces.errors import TraceFormatError
from llenvs.traces.record_reader import RecordReader, check_json_safe

__all__ = ["RunRecord"]

_SECRET_WORDS = ("key", "secret", "password")
"""Words a field of ``run.prm`` may not hold: a trace never records credentials."""


@dataclass(frozen=True)
class RunRecord:
    """How a trace was produced: model, chat template, sampling, seed, segmenter, version.

    Example:
        >>> RunRecord(model="openai/smollm2").sampling_params
        {}

    """

    model: str | None = None
    """The model or backend name (``"transformers/…"``, ``"scripted"``); None for a given text."""
    chat_template: str | None = None
    """The chat template the prompt was rendered with, or None (the backend's own, or none)."""
    system_prompt: str | None = None
    """The system message sent to the model, or None for none."""
    sampling_params: Mapping[str, Any] = field(default_factory=dict)
    """The sampling parameters (``SamplingParams`` as an object); empty when nothing was sampled."""
    seed: int | None = None
    """The sampler's seed, where one was given."""
    segmenter: str | None = None
    """Spec of the segmenter that cut the response (``"sentence"``, ``"composite:…"``)."""
    library_version: str = __version__
    """The llenvs version that wrote the trace."""
    backend_options: Mapping[str, Any] = field(default_factory=dict)
    """``get_backend`` options that reach the model again (an openai server's URL; never a key)."""
    prm: Mapping[str, Any] | None = None
    """The PRM that scored the steps (``spec``, ``name``, ``convention``, ``aggregation``,
    ``model``, ``base_url`` where it has them; never a key), or None when no PRM scored them."""
    answer_opening: Mapping[str, Any] | None = None
    """What was forced when a response ended without an answer: ``text`` (the forced segment),
    ``max_tokens`` (the model's tokens after it) and ``marker`` (what shows an answer began;
    then nothing is forced), as ``AnswerOpening.to_dict`` writes them; None: never."""

    def __post_init__(self) -> None:
        check_json_safe(dict(self.sampling_params), "run.sampling_params")
        check_json_safe(dict(self.backend_options), "run.backend_options")
        if self.answer_opening is not None:
            check_json_safe(dict(self.answer_opening), "run.answer_opening")
        if self.prm is not None:
            check_json_safe(dict(self.prm), "run.prm")
            if not isinstance(self.prm.get("spec"), str):
                raise TraceFormatError("run.prm.spec: expected a string (the PRM's name)")
            secret = [k for k in self.prm if any(word in k.lower() for word in _SECRET_WORDS)]
            if secret:
                raise TraceFormatError(f"run.prm: never record a secret, got {secret[0]!r}")

    @classmethod
    def from_sampling_params(
        cls,
        params: SamplingParams,
        *,
        model: str | None,
        segmenter: str | None,
        chat_template: str | None = None,
        system_prompt: str | None = None,
        backend_options: Mapping[str, Any] | None = None,
        prm: Mapping[str, Any] | None = None,
        answer_opening: Mapping[str, Any] | None = None,
    ) -> RunRecord:
        """The record of a run with ``params`` (its seed becomes the record's seed).

        Example:
            >>> r = RunRecord.from_sampling_params(
            ...     SamplingParams(max_tokens=64, seed=7, stop=("</answer>",)),
            ...     model="scripted", segmenter="sentence")
            >>> r.seed, r.sampling_params["stop"], r.sampling_params["max_tokens"]
            (7, ['</answer>'], 64)

        """
        values = dataclasses.asdict(params)
        values["stop"] = list(params.stop)
        return cls(
            model=model,
            chat_template=chat_template,
            system_prompt=system_prompt,
            sampling_params=values,
            seed=params.seed,
            segmenter=segmenter,
            backend_options=dict(backend_options or {}),
            prm=None if prm is None else dict(prm),
            answer_opening=None if answer_opening is None else dict(answer_opening),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this record.

        Example:
            >>> RunRecord(segmenter="line").to_dict()["segmenter"]
            'line'
            >>> "backend_options" in RunRecord().to_dict()  # written only when there are some
            False

        """
        data = {
            "model": self.model,
            "chat_template": self.chat_template,
            "system_prompt": self.system_prompt,
            "sampling_params": dict(self.sampling_params),
            "seed": self.seed,
            "segmenter": self.segmenter,
            "library_version": self.library_version,
        }
        if self.backend_options:
            data["backend_options"] = dict(self.backend_options)
        data["prm"] = None if self.prm is None else dict(self.prm)
        data["answer_opening"] = None if self.answer_opening is None else dict(self.answer_opening)
        return data

    @classmethod
    def from_dict(cls, data: object, where: str = "trace.run") -> RunRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> r = RunRecord(model="m", seed=3, backend_options={"base_url": "http://h/v1"},
            ...               prm={"spec": "arithmetic", "name": "ArithmeticPRM"})
            >>> RunRecord.from_dict(r.to_dict()) == r
            True

        ``prm`` and ``answer_opening`` are new in schema version 2: a version-1 record, which
        lacks them, reads as None for both.

        """
        reader = RecordReader(data, where)
        record = cls(
            model=reader.opt_text("model"),
            chat_template=reader.opt_text("chat_template"),
            system_prompt=reader.opt_text("system_prompt"),
            sampling_params=reader.obj("sampling_params"),
            seed=reader.opt_integer("seed"),
            segmenter=reader.opt_text("segmenter"),
            library_version=reader.text("library_version"),
            backend_options=(
                reader.obj("backend_options") if "backend_options" in reader.data else {}
            ),
            prm=_opt_obj(reader, "prm"),
            answer_opening=_opt_obj(reader, "answer_opening"),
        )
        reader.done()
        return record


def _opt_obj(reader: RecordReader, key: str) -> dict[str, Any] | None:
    """An object or null field that version-1 records lack (absent: None)."""
    if key not in reader.data or reader.raw(key) is None:
        return None
    return reader.obj(key)
