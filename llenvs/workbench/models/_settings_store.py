"""The workbench's settings: the default model, PRM and segmenter, kept in the traces folder.

``llenvs-settings.json`` in the traces folder holds what a researcher set on the Settings
page, so that it survives a restart: the model (embedded, a local transformers folder, or an
OpenAI-compatible server with its URL, model, mode and tokenizer), the PRM that scores new
steps, the segmenter spec, and the labeller's name that Browse's label mode writes with each
step label. An API key is never part of it: the server's key is read from
the environment variable the settings name, or typed on the Settings page for the browser
session only (``session_key``), and neither is written anywhere nor shown back.

Example:
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> load_settings(folder) == Settings()
    True
    >>> save_settings(folder, Settings(prm="arithmetic", segmenter="line"))
    >>> load_settings(folder).segmenter
    'line'

"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from llenvs.core.segmenters import segmenter_from_spec
from llenvs.traces.files import write_lines_atomically
from llenvs.workbench.models._model_choice import ModelChoice, ModelKind
from llenvs.workbench.models._prm_choice import PRM_CHOICES, PRMChoice

__all__ = [
    "DEFAULT_MAX_MODELS",
    "MAX_MODELS_LIMIT",
    "PRM_CHOICES",
    "SETTINGS_FILE",
    "Settings",
    "load_settings",
    "save_settings",
]

SETTINGS_FILE = "llenvs-settings.json"
"""The settings' file name, in the traces folder."""

DEFAULT_MAX_MODELS = 2
"""Models the workbench keeps loaded at once, unless Settings or ``$LLENVS_MAX_MODELS`` say."""

MAX_MODELS_LIMIT = 16
"""The most models that may be kept loaded at once."""


_SERVER_OPTIONS = ("base_url", "mode", "tokenizer", "api_key_env")
"""What a server choice keeps: never a key."""


@dataclass(frozen=True)
class Settings:
    """What the Settings page sets.

    Example:
        >>> Settings(model="openai", location="smollm2",
        ...          server={"base_url": "http://127.0.0.1:8000/v1"}).choice().backend_name
        'openai/smollm2'

    """

    model: str = ModelKind.EMBEDDED.name.lower()
    """``embedded``, ``folder`` or ``openai`` (a ``ModelKind``'s name)."""
    location: str = ""
    """The folder (``folder``) or the served model's name (``openai``)."""
    server: dict[str, str] = field(default_factory=dict)
    """``base_url``, ``mode``, ``tokenizer``, ``api_key_env`` for ``openai``; never a key."""
    prm: str | None = None
    """The PRM scoring new steps (one of ``PRM_CHOICES``, or a served ``vllm/<model>``)."""
    prm_base_url: str = ""
    """The server of a served PRM (``vllm/<model>``); "" for the others."""
    segmenter: str = "sentence"
    """The segmenter spec for new runs."""
    max_models: int = DEFAULT_MAX_MODELS
    """Models kept loaded at once, shared by sessions (1 to ``MAX_MODELS_LIMIT``; the least
    recently used beyond it is dropped; ``$LLENVS_MAX_MODELS`` overrides it)."""
    labeller: str = ""
    """Who labels steps in Browse's label mode (their name, on one line); "" for nobody yet:
    labelling waits until it is set."""

    def __post_init__(self) -> None:
        if not isinstance(self.labeller, str) or self.labeller != self.labeller.strip():
            raise ValueError(
                f"labeller must be a name without surrounding spaces, got {self.labeller!r}"
            )
        if any(not character.isprintable() for character in self.labeller):
            raise ValueError(f"labeller must be a name on one line, got {self.labeller!r}")
        if (
            not isinstance(self.max_models, int)
            or isinstance(self.max_models, bool)
            or not 1 <= self.max_models <= MAX_MODELS_LIMIT
        ):
            raise ValueError(
                f"max_models must be a whole number from 1 to {MAX_MODELS_LIMIT}, "
                f"got {self.max_models!r}"
            )
        kinds = [k.name.lower() for k in ModelKind if k is not ModelKind.SCRIPTED]
        if self.model not in kinds:
            raise ValueError(f"model must be one of {', '.join(kinds)}, got {self.model!r}")
        names = ", ".join(str(p) for p in PRM_CHOICES)
        refused = ValueError(f"prm must be one of {names}, or vllm/<model>, got {self.prm!r}")
        try:
            choice = self.prm_choice()  # a served PRM's URL must be http(s)
        except ValueError:
            if self.prm_base_url:
                raise
            raise refused from None
        if self.prm not in PRM_CHOICES and not choice.served:
            raise refused
        unknown = set(self.server) - set(_SERVER_OPTIONS)
        if unknown:
            choices = ", ".join(_SERVER_OPTIONS)
            raise ValueError(f"unknown server settings {sorted(unknown)}: choose from {choices}")
        segmenter_from_spec(self.segmenter)  # a bad spec says why, with the valid names

    def prm_choice(self) -> PRMChoice:
        """The PRM these settings name, with a served PRM's server.

        Example:
            >>> Settings(prm="vllm/m", prm_base_url="http://h:8000/v1").prm_choice().options()
            {'base_url': 'http://h:8000/v1'}

        """
        return PRMChoice(self.prm, self.prm_base_url or None)

    def choice(self) -> ModelChoice | None:
        """The model these settings name, or None when a server lacks its URL or model.

        Example:
            >>> Settings(model="openai").choice() is None
            True

        """
        kind = ModelKind[self.model.upper()]
        if kind is ModelKind.EMBEDDED:
            return ModelChoice(kind)
        if not self.location or (kind is ModelKind.OPENAI and not self.server.get("base_url")):
            return None
        options = tuple(sorted((k, v) for k, v in self.server.items() if v))
        return ModelChoice(kind, self.location, options if kind is ModelKind.OPENAI else ())


def load_settings(folder: str | os.PathLike[str]) -> Settings:
    """The settings saved in ``folder``, or the defaults when there are none.

    A file that cannot be read as settings raises ``ValueError`` naming it and saying why.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / SETTINGS_FILE).write_text('{"prm": "nope"}')
        >>> load_settings(folder)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../llenvs-settings.json: prm must be one of None, arithmetic, ..., got 'nope'

    """
    path = Path(folder) / SETTINGS_FILE
    if not path.is_file():
        return Settings()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the settings must be a JSON object")
        known = {f.name for f in fields(Settings)}
        extra = set(data) - known
        if extra:
            raise ValueError(f"unknown settings {sorted(extra)}: choose from {sorted(known)}")
        return Settings(**data)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path}: {error}") from None


def save_settings(folder: str | os.PathLike[str], settings: Settings) -> None:
    """Write ``settings`` to ``folder`` atomically (a whole new file, then renamed)."""
    data = json.dumps(asdict(settings), indent=2, sort_keys=True) + "\n"
    write_lines_atomically(Path(folder) / SETTINGS_FILE, [data.encode("utf-8")])
