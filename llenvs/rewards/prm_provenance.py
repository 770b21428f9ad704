"""Which PRM scored a trace: the record a trace keeps (``run.prm``), and the PRM made again from it.

``prm_provenance(spec, prm)`` is the record of the PRM that ``get_prm(spec)`` made: the spec as
the user gave it, the PRM's name, and its convention, aggregation, model (a checkpoint folder,
a served model, a judge's backend) and server URL where it has them; never a key.
``recorded_prm_rewards`` makes the PRM of a record again, so a branch is rescored by the PRM
that scored its parent; one that cannot be made here is named in the error.

Example:
    >>> from llenvs.rewards.prm_registry import prm_rewards
    >>> record = provenance_of("arithmetic", prm_rewards("arithmetic"))
    >>> record
    {'spec': 'arithmetic', 'name': 'ArithmeticPRM'}
    >>> [type(f.prm).__name__ for f in recorded_prm_rewards(record)]
    ['ArithmeticPRM']

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from llenvs.core.backend import ModelBackend
from llenvs.core.errors import LlenvsError
from llenvs.core.reward_function import RewardFunction
from llenvs.core.spec.model_spec import ModelSpec
from llenvs.core.spec.prm_spec import PRMKind, PRMSpec
from llenvs.rewards.prm_registry import build_prm_rewards
from llenvs.rewards.prm_reward_function import PRM_REWARD_NAME, PRMRewardFunction

__all__ = [
    "describe_prm",
    "prm_provenance",
    "provenance_of",
    "recorded_prm_rewards",
    "recorded_prm_spec",
]


def prm_provenance(spec: str, prm: object) -> dict[str, Any]:
    """The record of ``prm``, made from ``spec`` (``get_prm(spec, ...)``), for ``run.prm``.

    Example:
        >>> from llenvs.rewards import ArithmeticPRM
        >>> prm_provenance("arithmetic", ArithmeticPRM())
        {'spec': 'arithmetic', 'name': 'ArithmeticPRM'}
        >>> class Served:
        ...     convention = "qwen2.5-math-prm"
        ...     base_url = "http://127.0.0.1:8000/v1"
        ...     api_key = "sk-never-recorded"
        >>> prm_provenance("vllm/tiny-prm", Served())  # doctest: +NORMALIZE_WHITESPACE
        {'spec': 'vllm/tiny-prm', 'name': 'Served', 'convention': 'qwen2.5-math-prm',
         'model': 'tiny-prm', 'base_url': 'http://127.0.0.1:8000/v1'}

    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a PRM's spec must be a non-empty string, got {spec!r}")
    name = getattr(prm, "name", None)
    record: dict[str, Any] = {
        "spec": spec,
        "name": name if isinstance(name, str) and name else type(prm).__name__,
    }
    for field in ("convention", "aggregation"):
        value = _text(getattr(prm, field, None))
        if value is not None:
            record[field] = value
    parsed = PRMSpec.parse(spec)
    backend = getattr(prm, "backend", None)
    served = backend if isinstance(backend, ModelBackend) else None
    if parsed.model:
        record["model"] = parsed.model
    elif served is not None:
        record["model"] = served.name
    url = getattr(prm, "base_url", None) or (
        None if served is None else served.capabilities.rebuild_options.get("base_url")
    )
    if isinstance(url, str) and url:
        record["base_url"] = url
    return record


def provenance_of(
    spec: str | None, reward_functions: Sequence[RewardFunction]
) -> dict[str, Any] | None:
    """The record of the PRM ``spec`` named among ``reward_functions`` (None for no PRM).

    The PRM is the ``PRMRewardFunction`` named ``prm`` (what ``prm_rewards(spec)`` made).

    Example:
        >>> from llenvs.rewards.prm_registry import prm_rewards
        >>> provenance_of(None, ()) is None
        True
        >>> provenance_of("arithmetic", prm_rewards("arithmetic"))["name"]
        'ArithmeticPRM'

    """
    if spec is None:
        return None
    for function in reward_functions:
        if isinstance(function, PRMRewardFunction) and function.name == PRM_REWARD_NAME:
            return prm_provenance(spec, function.prm)
    return {"spec": spec}


def recorded_prm_spec(record: Mapping[str, Any] | None) -> str | None:
    """The spec of a recorded PRM (``run.prm``), or None when none scored the trace.

    Example:
        >>> recorded_prm_spec({"spec": "arithmetic"}), recorded_prm_spec(None)
        ('arithmetic', None)

    """
    if record is None:
        return None
    spec = record.get("spec")
    return spec if isinstance(spec, str) else None


def recorded_prm_rewards(
    record: Mapping[str, Any], backend: ModelBackend | None = None
) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM a trace records, made again here.

    Its spec goes to ``get_prm`` with the recorded convention (``transformers/<folder>``) or
    server URL (``vllm/<model>``); a PRM that cannot be made here raises a ``ValueError``
    naming it.

    A ``"judge"`` record (the run's own model judged) is made again with ``backend`` (the
    branch's model) when it is the model the record names, so no second copy is loaded. When the
    branch is generated by another model, the parent's judge is made again by name (with its
    recorded server URL): a branch is scored by the judge that scored its parent, so the two
    compare; a judge that cannot be made here is named in the error, which says to choose the
    PRM (``--prm judge`` makes the branch's own model the judge). ``"judge:<backend>"`` makes
    the backend it names, as ``get_prm`` does.

    Example:
        >>> recorded_prm_rewards({"spec": "transformers/no/such/folder",
        ...                       "convention": "math-shepherd"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the trace was scored by the PRM 'transformers/no/such/folder' ..., which cannot be made here: ...
        >>> from llenvs.inference import get_backend
        >>> model = get_backend("scripted", outputs=["Yes"])
        >>> [judge] = recorded_prm_rewards({"spec": "judge", "model": "scripted"}, model)
        >>> judge.prm.backend is model
        True

    """  # noqa: E501
    spec = recorded_prm_spec(record)
    if spec is None:
        raise ValueError(f"a recorded PRM needs a spec, got {dict(record)!r}")
    try:
        return _made_again(spec, record, backend)
    except (LlenvsError, ValueError, TypeError, OSError, ImportError) as error:
        details = _details(record)
        named = f"{spec!r} ({', '.join(details)})" if details else repr(spec)
        raise ValueError(
            f"the trace was scored by the PRM {named}, which cannot be made here: {error}. "
            "Choose the PRM that scores the branch (--prm)"
        ) from error


def _made_again(
    spec: str, record: Mapping[str, Any], backend: ModelBackend | None
) -> tuple[RewardFunction, ...]:
    """``build_prm_rewards`` of a record's spec with the options it records (see above)."""
    parsed = PRMSpec.parse(spec)
    options: dict[str, Any] = {}
    recorded = {key: record[key] for key in ("convention", "base_url") if key in record}
    parsed = PRMSpec.parse(spec, **{k: v for k, v in recorded.items() if k in parsed.kind.options})
    if parsed.kind is PRMKind.JUDGE and parsed.judge is None:
        model = record.get("model")
        if backend is not None and (model is None or model == backend.name):
            options["backend"] = backend
        elif isinstance(model, str) and model:
            from llenvs.inference import build_backend

            url = record.get("base_url")
            server = {"base_url": url} if isinstance(url, str) and url else {}
            options["backend"] = build_backend(ModelSpec.parse(model, **server))
    return build_prm_rewards(parsed, **options)


def describe_prm(record: Mapping[str, Any] | None) -> str:
    """One line saying which PRM a trace records as its scorer, for people.

    Example:
        >>> describe_prm({"spec": "transformers/m", "name": "TransformersPRM",
        ...               "convention": "math-shepherd", "model": "m"})
        'transformers/m (TransformersPRM, convention math-shepherd, model m)'
        >>> describe_prm(None)
        'none recorded'

    """
    spec = recorded_prm_spec(record)
    if record is None or spec is None:
        return "none recorded"
    details = _details(record)
    return f"{spec} ({', '.join(details)})" if details else spec


def _details(record: Mapping[str, Any]) -> list[str]:
    """A record's facts besides its spec: the name, then ``key value`` for the others."""
    details = [str(record["name"])] if "name" in record else []
    return details + [f"{k} {v}" for k, v in record.items() if k not in ("spec", "name")]


def _text(value: object) -> str | None:
    """A convention or aggregation as text: its ``name`` or value, a string as it is."""
    if value is None:
        return None
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, str):
        return value
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else None
