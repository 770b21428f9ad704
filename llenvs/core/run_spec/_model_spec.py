"""``ModelSpec``: which model a run generates with, parsed once from its name and options.

The spellings (the CLI's ``--backend``, the workbench's choices, ``get_backend``'s names):

======================================  =============================================
name (and options)                      spec
======================================  =============================================
``transformers``                        ``Provider.EMBEDDED`` (SmolLM2-135M-Instruct)
``transformers/SmolLM2-135M-Instruct``  the same (how a trace records the embedded one)
``transformers/<folder>``               ``Provider.TRANSFORMERS``, ``model=<folder>``
``openai/<model>`` + ``base_url``,      ``Provider.OPENAI`` (an OpenAI-compatible server)
``mode``, ``tokenizer``, ``api_key_env``
``scripted`` + ``outputs`` or           ``Provider.SCRIPTED`` (canned responses)
``responses`` (a JSONL file)
======================================  =============================================

A key is never part of a spec, only ``api_key_env``, the name of the environment variable
holding it. ``llenvs.inference.build_backend`` builds the backend a spec names.

Example:
    >>> spec = ModelSpec.parse("openai/smollm2", base_url="http://127.0.0.1:8000/v1")
    >>> spec.provider, spec.model, spec.mode, spec.name
    (<Provider.OPENAI: 'openai'>, 'smollm2', <ServerMode.COMPLETIONS: 'completions'>, 'openai/smollm2')
    >>> ModelSpec.from_record(spec.to_record()) == spec
    True
    >>> ModelSpec.parse("transformers").recorded_name
    'transformers/SmolLM2-135M-Instruct'
    >>> ModelSpec.parse("nope/x")
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown backend 'nope': choose one of: openai, scripted, transformers

"""  # noqa: E501

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from llenvs.core._record_types import RECORD, Text, variant
from llenvs.core._records import read_record, record_dict
from llenvs.core.errors import UnknownName
from llenvs.core.run_spec._options_enum import OptionsEnum

__all__ = ["DEFAULT_API_KEY_ENV", "EMBEDDED_MODEL_NAME", "ModelSpec", "Provider", "ServerMode"]

EMBEDDED_MODEL_NAME = "SmolLM2-135M-Instruct"
"""The embedded model's name: its backend goes by ``transformers/SmolLM2-135M-Instruct``."""

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
"""The environment variable an OpenAI-compatible server's key is read from by default."""

DTYPES = ("float32", "bfloat16", "float16")
"""The precisions a local model may load in."""


class Provider(OptionsEnum):
    """Where a model comes from; ``options`` are those a spec of it takes, besides its model.

    Example:
        >>> Provider.OPENAI.options
        ('base_url', 'mode', 'tokenizer', 'api_key_env')

    """

    EMBEDDED = ("embedded", ("dtype",))
    """The embedded SmolLM2-135M-Instruct (``transformers``)."""
    TRANSFORMERS = ("transformers", ("dtype",))
    """A causal LM in a local folder (``transformers/<folder>``)."""
    OPENAI = ("openai", ("base_url", "mode", "tokenizer", "api_key_env"))
    """A model behind an OpenAI-compatible server (``openai/<model>``)."""
    SCRIPTED = ("scripted", ("outputs", "responses"))
    """Canned responses, played in order (``scripted``)."""


_PREFIXES = {"openai": Provider.OPENAI, "scripted": Provider.SCRIPTED, "transformers": None}
"""A name's part before ``/`` (``transformers`` is EMBEDDED or TRANSFORMERS by what follows)."""


class ServerMode(Enum):
    """How an OpenAI-compatible server is asked."""

    COMPLETIONS = "completions"
    """``/v1/completions``: token-id prompts, faithful continuation (vLLM)."""
    CHAT = "chat"
    """``/v1/chat/completions``: chat messages (hosted APIs)."""


@dataclass(frozen=True)
class ModelSpec:
    """A model to generate with: its provider and that provider's options.

    Options of another provider are refused, so a spec means one thing.

    Example:
        >>> ModelSpec(Provider.TRANSFORMERS, "/models/x").name
        'transformers//models/x'
        >>> ModelSpec(Provider.EMBEDDED, base_url="http://h/v1")
        Traceback (most recent call last):
        ...
        ValueError: base_url is not an option of the embedded model: choose from dtype

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = variant("provider", lambda provider: _fields(provider))

    provider: Provider
    """Where the model comes from."""
    model: Text = ""
    """The folder (TRANSFORMERS) or the served model's name (OPENAI); "" for the others."""
    dtype: Text | None = None
    """A local model's precision (EMBEDDED, TRANSFORMERS: one of ``DTYPES``); None: the
    backend's default for the machine."""
    base_url: Text | None = None
    """The server's URL (OPENAI); None: the openai client's default."""
    mode: ServerMode = ServerMode.COMPLETIONS
    """How the server is asked (OPENAI)."""
    tokenizer: Text | None = None
    """A folder or cached hub id with the model's tokenizer (OPENAI); None: the model name."""
    api_key_env: Text = DEFAULT_API_KEY_ENV
    """The environment variable holding the server's key (OPENAI); never the key."""
    outputs: tuple[Text, ...] = ()
    """The responses played in order (SCRIPTED)."""
    responses: Text | None = None
    """A JSONL file of responses played in order (SCRIPTED), instead of ``outputs``."""

    def __post_init__(self) -> None:
        if not isinstance(self.provider, Provider):
            raise TypeError(f"provider must be a Provider, got {self.provider!r}")
        allowed = _fields(self.provider)[1:]
        for field in dataclasses.fields(self)[1:]:
            if field.name in allowed:
                continue
            if getattr(self, field.name) != field.default:
                raise ValueError(
                    f"{field.name} is not an option of {_described(self.provider)}: choose "
                    f"from {', '.join(allowed) or 'none'}"
                )
        if self.provider in (Provider.TRANSFORMERS, Provider.OPENAI) and not self.model:
            raise ValueError(
                f"{_described(self.provider)} needs a model name: '{self.provider.value}/<model>'"
            )
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if not isinstance(self.mode, ServerMode):
            raise ValueError(f"mode must be 'completions' or 'chat', got {self.mode!r}")
        if not self.api_key_env:
            raise ValueError("api_key_env must name an environment variable")
        if not isinstance(self.outputs, tuple):
            raise TypeError(f"outputs must be a tuple of strings, got {self.outputs!r}")
        if self.outputs and self.responses is not None:
            raise ValueError("a scripted model plays outputs or a responses file, not both")

    @classmethod
    def parse(cls, text: str, **options: Any) -> ModelSpec:
        """The spec a backend name means, with its provider's ``options`` (module docstring).

        Example:
            >>> ModelSpec.parse("transformers/SmolLM2-135M-Instruct") == ModelSpec.parse(
            ...     "transformers")
            True
            >>> ModelSpec.parse("scripted", outputs=["a"]).outputs
            ('a',)
            >>> ModelSpec.parse("openai/m", api_key="sk-...")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: a key is never part of a model spec: name the variable that holds it, ...

        """
        if not isinstance(text, str):
            raise TypeError(f"a backend name must be a str, got {type(text).__name__}")
        prefix, _, rest = text.partition("/")
        if prefix not in _PREFIXES:
            raise UnknownName("backend", prefix, _PREFIXES)
        if prefix == "transformers":
            embedded = rest in ("", EMBEDDED_MODEL_NAME)
            provider = Provider.EMBEDDED if embedded else Provider.TRANSFORMERS
            rest = "" if embedded else rest
        else:
            provider = _PREFIXES[prefix] or Provider.EMBEDDED
        if provider is Provider.SCRIPTED and rest:
            raise ValueError(f"the scripted backend takes no model name, got {rest!r}")
        if "api_key" in options:
            raise ValueError(
                "a key is never part of a model spec: name the variable that holds it, "
                "api_key_env=..., or give api_key= to build_backend"
            )
        provider.refuse_unknown(options, _described(provider))
        given = {key: value for key, value in options.items() if value is not None}
        if "mode" in given and not isinstance(given["mode"], ServerMode):
            given["mode"] = _mode(given["mode"])
        if "outputs" in given:
            given["outputs"] = tuple(given["outputs"])
        if "responses" in given:
            given["responses"] = str(given["responses"])
        return cls(provider, rest, **given)

    @property
    def name(self) -> str:
        """The name ``get_backend`` takes for this model (without its options).

        Example:
            >>> ModelSpec(Provider.EMBEDDED).name, ModelSpec(Provider.SCRIPTED).name
            ('transformers', 'scripted')

        """
        if self.provider is Provider.EMBEDDED:
            return "transformers"
        if self.provider is Provider.SCRIPTED:
            return "scripted"
        return f"{self.provider.value}/{self.model}"

    @property
    def recorded_name(self) -> str:
        """The name the built backend goes by (``backend.name``, a trace's ``run.model_name``).

        Example:
            >>> ModelSpec(Provider.OPENAI, "m").recorded_name
            'openai/m'

        """
        if self.provider is Provider.EMBEDDED:
            return f"transformers/{EMBEDDED_MODEL_NAME}"
        return self.name

    @property
    def options(self) -> dict[str, Any]:
        """The options given with ``name`` to mean this spec (``parse(name, **options)``).

        Example:
            >>> ModelSpec.parse("openai/m", base_url="http://h/v1").options
            {'base_url': 'http://h/v1', 'mode': 'completions', 'api_key_env': 'OPENAI_API_KEY'}

        """
        record = self.to_record()
        del record["provider"]
        record.pop("model", None)
        return record

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this spec: its provider, model and the options it sets.

        Example:
            >>> ModelSpec.parse("transformers/m", dtype="bfloat16").to_record()
            {'provider': 'transformers', 'model': 'm', 'dtype': 'bfloat16'}

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "model") -> ModelSpec:
        """The spec of ``to_record``'s object; a bad field is named with its valid choices.

        Example:
            >>> ModelSpec.from_record({"provider": "hal"})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: model.provider: unknown value 'hal': choose from 'embedded', 'transformers', 'openai' or 'scripted'
            >>> ModelSpec.from_record({"provider": "embedded", "base_url": "http://h/v1"})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: model: unknown field(s): base_url: choose from provider, dtype

        """  # noqa: E501
        return read_record(cls, obj, what)


def _fields(provider: Provider) -> tuple[str, ...]:
    """The fields a spec of ``provider`` holds.

    The provider, its model where it names one (TRANSFORMERS, OPENAI), then its options.
    """
    if provider in (Provider.TRANSFORMERS, Provider.OPENAI):
        return ("provider", "model", *provider.options)
    return ("provider", *provider.options)


def _mode(value: object, what: str = "mode") -> ServerMode:
    """The server mode ``value`` spells, else the error that lists the modes."""
    for mode in ServerMode:
        if mode.value == value:
            return mode
    raise ValueError(f"{what} must be 'completions' or 'chat', got {value!r}")


def _described(provider: Provider) -> str:
    """How an error names a provider."""
    if provider is Provider.EMBEDDED:
        return "the embedded model"
    return f"the {provider.value} backend"
