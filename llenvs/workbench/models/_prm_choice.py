"""The PRM a workbench page scores new steps with: a name, and a served PRM's server.

``PRM_CHOICES`` are the PRMs offered by name; ``SERVED_PRM`` stands for a PRM a vLLM server
serves (``vllm/<model>``), whose model name and server URL the page asks for. A ``PRMChoice``
carries the spec and the options ``get_prm`` needs (the server's URL), which go to the PRM
itself (``scored_environment``, ``intervene``), never through environment variables.

Example:
    >>> PRMChoice("vllm/tiny-prm", "http://127.0.0.1:8000/v1").options()
    {'base_url': 'http://127.0.0.1:8000/v1'}
    >>> PRMChoice("arithmetic").options(), PRMChoice(None).served
    ({}, False)

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.core.errors import UnknownName
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.rewards.prm import DEFAULT_BASE_URL

__all__ = ["DEFAULT_BASE_URL", "PRM_CHOICES", "SERVED_PRM", "PRMChoice", "describe_choice"]

PRM_CHOICES: tuple[str | None, ...] = (None, "arithmetic", "judge", "judge:transformers")
"""The PRMs offered by name (None: no PRM; ``judge``: the run's own model judges each step;
``judge:transformers``: the embedded model judges)."""

SERVED_PRM = "vllm/<model>"
"""The choice that stands for a served PRM: the page then asks for its model and server."""

_DESCRIPTIONS = {
    None: "none",
    "judge": "judge (the run's own model judges each step)",
    "judge:transformers": "judge:transformers (the embedded model judges)",
    SERVED_PRM: "vllm/<model> (a PRM a vLLM server serves)",
}


def describe_choice(name: str | None) -> str:
    """How a choice of ``PRM_CHOICES`` (or ``SERVED_PRM``) reads in a select box.

    Example:
        >>> describe_choice(None), describe_choice("arithmetic")
        ('none', 'arithmetic')

    """
    return _DESCRIPTIONS.get(name, str(name))


@dataclass(frozen=True)
class PRMChoice:
    """A PRM by spec (``get_prm``'s name), with a served PRM's server URL.

    Example:
        >>> PRMChoice("vllm/m").served, PRMChoice("vllm/m").model
        (True, 'm')
        >>> PRMChoice("arithmetic", "http://h/v1")
        Traceback (most recent call last):
        ...
        ValueError: a server URL is for a served PRM (vllm/<model>), not 'arithmetic'

    """

    spec: str | None
    """The PRM's name for ``get_prm`` (``arithmetic``, ``judge``, ``vllm/<model>``...), or None."""
    base_url: str | None = None
    """A served PRM's server (``vllm/<model>``); None: ``VllmPRM``'s default."""

    def __post_init__(self) -> None:
        try:
            kind = PRMSpec.parse(self.spec).kind
        except UnknownName as error:
            raise ValueError(str(error)) from None
        if self.base_url is not None and kind is not PRMKind.VLLM:
            raise ValueError(f"a server URL is for a served PRM (vllm/<model>), not {self.spec!r}")
        self.prm_spec()  # a served PRM's URL must be http(s)

    def prm_spec(self) -> PRMSpec:
        """The PRM this choice names, with a served PRM's server.

        Example:
            >>> PRMChoice("vllm/m", "http://h/v1").prm_spec().base_url
            'http://h/v1'

        """
        if self.base_url is None:
            return PRMSpec.parse(self.spec)
        return PRMSpec.parse(self.spec, base_url=self.base_url)

    @property
    def served(self) -> bool:
        """Whether a vLLM server serves this PRM."""
        return self.prm_spec().kind is PRMKind.VLLM

    @property
    def model(self) -> str:
        """A served PRM's model name ("" for the others)."""
        spec = self.prm_spec()
        return spec.model if spec.kind is PRMKind.VLLM else ""

    def options(self) -> dict[str, Any]:
        """``get_prm``'s options: the server's URL for a served PRM."""
        return {"base_url": self.base_url} if self.base_url is not None else {}
