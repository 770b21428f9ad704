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
from llenvs.traces.record_reader import RecordReader, check_json_safe

__all__ = ["RunRecord"]


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

    def __post_init__(self) -> None:
        check_json_safe(dict(self.sampling_params), "run.sampling_params")
        check_json_safe(dict(self.backend_options), "run.backend_options")

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
        return data

    @classmethod
    def from_dict(cls, data: object, where: str = "trace.run") -> RunRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> r = RunRecord(model="m", seed=3, backend_options={"base_url": "http://h/v1"})
            >>> RunRecord.from_dict(r.to_dict()) == r
            True

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
        )
        reader.done()
        return record
