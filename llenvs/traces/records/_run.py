"""The reproducibility record of a trace: the run spec it was made with, and what is not spec.

``spec`` is the ``RunSpec`` of the run (model, sampling, segmenter, PRM, answer opening, task
source), stored verbatim as ``RunSpec.to_record()``; beside it, what a spec does not say (the
chat template, the system prompt, the library version) and ``unknown``: fields of an older
record that map to no spec field, kept as they were and written back, never dropped.

Example:
    >>> from llenvs.core import read_record, record_dict
    >>> from llenvs.core.run_spec import ModelSpec, RunSpec
    >>> run = RunRecord(RunSpec(model=ModelSpec.parse("transformers")))
    >>> record_dict(run)["spec"]
    {'model': {'provider': 'embedded'}}
    >>> read_record(RunRecord, record_dict(run)) == run
    True
    >>> read_record(RunRecord, {"spec": {"modle": {}}, "chat_template": None,
    ...     "system_prompt": None, "library_version": "0.1.0", "unknown": {}}, "trace.run")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: trace.run.spec: unknown field(s): modle: choose from ...

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from llenvs import __version__
from llenvs.core import RECORD, Text
from llenvs.core.errors import LlenvsError
from llenvs.core.run_spec import ModelSpec, RunSpec
from llenvs.core.segmenters import SegmenterSpec
from llenvs.traces.records._record_reader import check_json_safe
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["RunRecord", "model_name_in"]


@dataclass(frozen=True)
class RunRecord:
    """How a trace was produced: its run spec, chat template, system prompt, library version.

    Example:
        >>> RunRecord().spec.model is None, RunRecord().unknown_fields
        (True, ())

    """

    __pydantic_config__ = RECORD

    spec: RunSpec = field(default_factory=RunSpec)
    """The run: task source, segmenter, model (with its precision or server), PRM, sampling
    (with its seed) and answer opening, each None where the run had none (an imported text
    has no model and sampled nothing)."""
    chat_template: Text | None = None
    """The chat template the prompt was rendered with, or None (the backend's own, or none)."""
    system_prompt: Text | None = None
    """The system message sent to the model, or None for none."""
    library_version: Text = __version__
    """The llenvs version that wrote the trace."""
    unknown: Mapping[Text, Any] = field(default_factory=dict)
    """Fields that map to no spec field, by their old name (``model``, ``backend_options``,
    ``sampling_params``, ``prm.<field>``...): of an older record (schema 1 to 3), or the name
    of a model no spec names (a test's stand-in backend); kept as they are and written back."""

    def __post_init__(self) -> None:
        if not isinstance(self.spec, RunSpec):
            raise TraceFormatError(f"spec: must be a RunSpec, got {self.spec!r}")
        check_json_safe(dict(self.unknown), "unknown")

    @classmethod
    def made_with(
        cls,
        spec: RunSpec,
        *,
        model_name: str | None = None,
        segmenter: str | None = None,
        chat_template: Text | None = None,
        system_prompt: Text | None = None,
    ) -> RunRecord:
        """The record of a run made now with ``spec``.

        ``segmenter`` is the spec string of the segmenter that cut the response (it becomes
        ``spec.segmenter``); ``model_name`` is the backend name of the model that generated,
        read with ``ModelSpec.parse`` when ``spec`` has no model, and kept in
        ``unknown["model"]`` when no model spec names it (a stand-in backend of a test).

        Example:
            >>> run = RunRecord.made_with(RunSpec(), model_name="coin", segmenter="line")
            >>> run.spec.segmenter.text, run.spec.model, dict(run.unknown)
            ('line', None, {'model': 'coin'})
            >>> RunRecord.made_with(RunSpec(), model_name="scripted").spec.model.name
            'scripted'

        """
        unknown: dict[str, Any] = {}
        if segmenter is not None:
            try:
                spec = replace(spec, segmenter=SegmenterSpec.parse(segmenter))
            except (LlenvsError, ValueError, TypeError):
                spec, unknown["segmenter"] = replace(spec, segmenter=None), segmenter
        if spec.model is None and model_name is not None:
            try:
                spec = replace(spec, model=ModelSpec.parse(model_name))
            except (LlenvsError, ValueError, TypeError):
                unknown["model"] = model_name
        return cls(spec, chat_template, system_prompt, unknown=unknown)

    @property
    def unknown_fields(self) -> tuple[str, ...]:
        """The names of the ``unknown`` fields, sorted (what Browse and ``rerun`` show).

        Example:
            >>> RunRecord(unknown={"prm.extra": 1, "model": "coin"}).unknown_fields
            ('model', 'prm.extra')

        """
        return tuple(sorted(self.unknown))

    @property
    def model_name(self) -> str | None:
        """The model's name for people: the spec's, else an older record's unknown model name.

        Example:
            >>> from llenvs.core.run_spec import ModelSpec, RunSpec
            >>> RunRecord(RunSpec(model=ModelSpec.parse("openai/m"))).model_name
            'openai/m'
            >>> RunRecord(unknown={"model": "coin"}).model_name, RunRecord().model_name
            ('coin', None)

        """
        if self.spec.model is not None:
            return self.spec.model.recorded_name
        name = self.unknown.get("model")
        return name if isinstance(name, str) else None


def model_name_in(run: object) -> str | None:
    """The model name a run record's JSON object holds, of any schema version, unparsed.

    What ``RunRecord.model_name`` gives once the record is read, for a list that reads only a
    few fields of each line (Browse's index): schema 4's ``spec.model``, 1-3's ``model``, or
    the name an older record kept in ``unknown``.

    Example:
        >>> model_name_in({"spec": {"model": {"provider": "embedded"}}})
        'transformers/SmolLM2-135M-Instruct'
        >>> model_name_in({"model": "openai/m"}), model_name_in({"unknown": {"model": "coin"}})
        ('openai/m', 'coin')
        >>> model_name_in({"spec": {}}), model_name_in(None)
        (None, None)

    """
    if not isinstance(run, Mapping):
        return None
    spec = run.get("spec")
    if isinstance(spec, Mapping) and spec.get("model") is not None:
        try:
            return ModelSpec.from_record(spec["model"]).recorded_name
        except (LlenvsError, TypeError, ValueError):
            return None
    unknown = run.get("unknown")
    for holder in (run, unknown if isinstance(unknown, Mapping) else {}):
        name = holder.get("model")
        if isinstance(name, str):
            return name
    return None
