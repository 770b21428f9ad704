r"""Reading the run record of schema versions 1 to 3 into a ``RunRecord`` with a ``RunSpec``.

Those records hold a model name and its ``backend_options``, ``sampling_params`` and a
``seed``, a segmenter spec string, a ``prm`` object (``spec``, ``name``, ``convention``,
``aggregation``, ``model``, ``base_url``) and an ``answer_opening`` object. Each maps to its
part of the spec: ``ModelSpec.parse(model, **backend_options)``, ``SamplingParams`` (the
seed in it), ``SegmenterSpec``, ``PRMSpec`` (``name`` as its ``class_name``) and
``AnswerOpening``. What maps to no spec field (an unknown provider, a sampling key
``SamplingParams`` lacks, a PRM field its kind has no place for) is kept in
``RunRecord.unknown`` under its old name, and written back: nothing is dropped. A record
with empty ``sampling_params`` sampled nothing: its spec's ``sampling`` is None.

Example:
    >>> run = legacy_run_record({
    ...     "model": "transformers/SmolLM2-135M-Instruct", "chat_template": None,
    ...     "system_prompt": None, "sampling_params": {"max_tokens": 96, "stop": ["</answer>"]},
    ...     "seed": None, "segmenter": "sentence", "library_version": "0.1.0",
    ...     "prm": {"spec": "arithmetic", "name": "ArithmeticPRM", "colour": "blue"},
    ...     "answer_opening": None})
    >>> run.spec.model.provider.value, run.spec.sampling.max_tokens, run.spec.prm.class_name
    ('embedded', 96, 'ArithmeticPRM')
    >>> dict(run.unknown)
    {'prm.colour': 'blue'}

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from llenvs.core import SamplingParams
from llenvs.core.errors import LlenvsError
from llenvs.core.run_spec import (
    AGGREGATIONS,
    AnswerOpening,
    ModelSpec,
    PRMKind,
    PRMSpec,
    Provider,
    RunSpec,
)
from llenvs.core.segmenters import SegmenterSpec
from llenvs.traces.records._record_reader import RecordReader, check_json_safe
from llenvs.traces.records._run import RunRecord
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["legacy_run_record"]

_SECRET_WORDS = ("key", "secret", "password")
"""Words a field of an old ``run.prm`` may not hold: a trace never records credentials."""

_MISREAD = (LlenvsError, ValueError, TypeError)
"""What a spec's parsing raises on a value it refuses."""


def legacy_run_record(data: object, where: str = "trace.run") -> RunRecord:
    """The ``RunRecord`` of a schema 1-3 run object (see the module docstring).

    Example:
        >>> run = legacy_run_record({"model": "coin", "chat_template": None,
        ...     "system_prompt": None, "sampling_params": {"max_tokens": 8, "beam": 2},
        ...     "seed": None, "segmenter": None, "library_version": "0.1.0"})
        >>> run.spec.model, run.spec.sampling, run.unknown_fields
        (None, None, ('model', 'sampling_params'))

    """
    reader = RecordReader(data, where)
    model = reader.opt_text("model")
    chat_template = reader.opt_text("chat_template")
    system_prompt = reader.opt_text("system_prompt")
    sampling = reader.obj("sampling_params")
    seed = reader.opt_integer("seed")
    segmenter = reader.opt_text("segmenter")
    library_version = reader.text("library_version")
    options = reader.obj("backend_options") if "backend_options" in reader.data else {}
    prm = _opt_obj(reader, "prm")
    opening = _opt_obj(reader, "answer_opening")
    reader.done()
    if prm is not None:
        _check_prm(prm, where)
    unknown: dict[str, Any] = {}
    spec = RunSpec(
        model=_model(model, options, unknown),
        sampling=_sampling(sampling, seed, unknown),
        segmenter=_parsed(segmenter, SegmenterSpec.parse, "segmenter", unknown),
        prm=None if prm is None else _prm(prm, model, options, unknown),
        answer_opening=_parsed(opening, AnswerOpening.from_record, "answer_opening", unknown),
    )
    return RunRecord(spec, chat_template, system_prompt, library_version, unknown)


def _opt_obj(reader: RecordReader, key: str) -> dict[str, Any] | None:
    """An object or null field that version-1 records lack (absent: None)."""
    if key not in reader.data or reader.raw(key) is None:
        return None
    return reader.obj(key)


def _check_prm(prm: Mapping[str, Any], where: str) -> None:
    """Refuse an old PRM record without a spec, or holding a secret (as version 3 did)."""
    check_json_safe(dict(prm), f"{where}.prm")
    if not isinstance(prm.get("spec"), str):
        raise TraceFormatError(f"{where}.prm.spec: expected a string (the PRM's name)")
    secret = [k for k in prm if any(word in k.lower() for word in _SECRET_WORDS)]
    if secret:
        raise TraceFormatError(f"{where}.prm: never record a secret, got {secret[0]!r}")


def _parsed(value: Any, parse: Any, name: str, unknown: dict[str, Any]) -> Any:
    """``parse(value)``, or None with ``value`` kept in ``unknown[name]`` when it is refused."""
    if value is None:
        return None
    try:
        return parse(value)
    except _MISREAD:
        unknown[name] = value
        return None


def _model(
    name: str | None, options: Mapping[str, Any], unknown: dict[str, Any]
) -> ModelSpec | None:
    """The model of a name and its backend options (both kept in ``unknown`` if refused)."""
    if name is not None:
        try:
            return ModelSpec.parse(name, **options)
        except _MISREAD:
            unknown["model"] = name
    if options:
        unknown["backend_options"] = dict(options)
    return None


def _sampling(
    values: Mapping[str, Any], seed: int | None, unknown: dict[str, Any]
) -> SamplingParams | None:
    """The sampling of an old record: its parameters with its seed; None when it has none.

    Parameters ``SamplingParams`` refuses (an unknown key, a bad value) are kept whole in
    ``unknown["sampling_params"]``, so the trace is never sampled with other settings.
    """
    given = dict(values)
    if seed is not None and given.get("seed", seed) != seed:
        unknown["seed"] = seed
    elif seed is not None:
        given["seed"] = seed
    if not values:
        if seed is not None:
            unknown["seed"] = seed
        return None
    try:
        return SamplingParams.from_record(given)
    except ValueError:
        unknown["sampling_params"] = dict(values)
        if seed is not None:
            unknown["seed"] = seed
        return None


def _prm(
    record: Mapping[str, Any],
    model: str | None,
    options: Mapping[str, Any],
    unknown: dict[str, Any],
) -> PRMSpec | None:
    """The PRM of an old ``prm`` object; the fields its kind has no place for go to unknown.

    ``model`` and ``options`` are the run's own model: a ``judge`` or ``mc`` PRM recorded
    with the run's model (and server) used the run's model, which the spec says by its
    judge being None.
    """
    try:
        spec = PRMSpec.parse(record["spec"])
    except _MISREAD:
        unknown["prm"] = dict(record)
        return None
    rest = {key: value for key, value in record.items() if key != "spec"}
    values: dict[str, Any] = {}
    if isinstance(rest.get("name"), str):
        values["class_name"] = rest.pop("name")
    if rest.get("aggregation") in AGGREGATIONS:
        values["aggregation"] = rest.pop("aggregation")
    for option in ("convention", "base_url"):
        if option in spec.kind.options and isinstance(rest.get(option), str):
            values[option] = rest.pop(option)
    if spec.kind in (PRMKind.TRANSFORMERS, PRMKind.VLLM) and rest.get("model") == spec.model:
        del rest["model"]
    if spec.kind in (PRMKind.JUDGE, PRMKind.MC) and spec.judge is None:
        _own_model(spec.kind, rest, values, model, options)
    if spec.judge is not None and rest.get("model") == spec.judge.recorded_name:
        del rest["model"]
        if spec.judge.provider is Provider.OPENAI and isinstance(rest.get("base_url"), str):
            values["judge"] = replace(spec.judge, base_url=rest.pop("base_url"))
    try:
        made = replace(spec, **values)
    except _MISREAD:
        unknown["prm"] = dict(record)
        return None
    for key, value in rest.items():
        unknown[f"prm.{key}"] = value
    return made


def _own_model(
    kind: PRMKind,
    rest: dict[str, Any],
    values: dict[str, Any],
    model: str | None,
    options: Mapping[str, Any],
) -> None:
    """A ``judge``/``mc`` record's ``model``/``base_url``: the run's own, or another judge."""
    recorded = rest.get("model")
    url = rest.get("base_url")
    if recorded is None or recorded == model:
        rest.pop("model", None)
        if url is not None and url == options.get("base_url"):
            del rest["base_url"]
        return
    if kind is not PRMKind.JUDGE or not isinstance(recorded, str):
        return
    server = {"base_url": url} if isinstance(url, str) and recorded.startswith("openai/") else {}
    try:
        values["judge"] = ModelSpec.parse(recorded, **server)
    except _MISREAD:
        return
    del rest["model"]
    if server:
        del rest["base_url"]
