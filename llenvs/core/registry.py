"""Environments by name: ``environment_registry.get(name=..., adapter=..., **kwargs)``.

Adapters are resolved lazily: the registry holds ``"module:function"`` paths and imports an
adapter's module only when it is first asked for, so importing ``llenvs.core`` imports no
adapter (and none of their heavy dependencies). The built-in adapters, and any an installed
package adds, are the entry points of the group ``llenvs.environment_adapters``
(``pyproject.toml``): core names no module above it. An adapter with a fixed set of
environments (reasoning_gym's datasets) can also name a function that lists them (group
``llenvs.environment_names``).

Example:
    >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> len(env), env.spec.adapter
    (5, 'reasoning_gym')
    >>> "leg_counting" in environment_registry.environment_names("reasoning_gym")
    True
    >>> environment_registry.get(name="x", adapter="nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown adapter 'nope': choose one of: huggingface, ...

"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from typing import Any

from llenvs.core._environment import Environment
from llenvs.core.errors import UnknownName

__all__ = [
    "ADAPTER_GROUP",
    "NAMES_GROUP",
    "AdapterFactory",
    "EnvironmentNames",
    "EnvironmentRegistry",
    "environment_registry",
]

AdapterFactory = Callable[..., Environment]
"""Makes an environment: ``factory(name, **kwargs)``."""

EnvironmentNames = Callable[[], Iterable[str]]
"""Lists the environment names an adapter accepts."""

ADAPTER_GROUP = "llenvs.environment_adapters"
"""The entry-point group of adapter factories: ``name = "module:function"``."""

NAMES_GROUP = "llenvs.environment_names"
"""The entry-point group of the functions listing an adapter's environments."""


def _installed(group: str) -> dict[str, str]:
    """The ``name -> "module:function"`` entry points of ``group`` (none imported)."""
    return {point.name: point.value for point in entry_points(group=group)}


class EnvironmentRegistry:
    """Adapters by name, each a factory ``(name, **kwargs) -> Environment``.

    Example:
        >>> registry = EnvironmentRegistry({})
        >>> registry.register_adapter("mine", "my_package.adapter:make_environment")
        >>> registry.adapters
        ('mine',)

    """

    def __init__(self, adapters: dict[str, str | AdapterFactory] | None = None) -> None:
        self._adapters: dict[str, str | AdapterFactory] = dict(
            _installed(ADAPTER_GROUP) if adapters is None else adapters
        )
        self._names: dict[str, str | EnvironmentNames] = (
            dict(_installed(NAMES_GROUP)) if adapters is None else {}
        )

    @property
    def adapters(self) -> tuple[str, ...]:
        """The adapter names, sorted."""
        return tuple(sorted(self._adapters))

    def register_adapter(
        self,
        name: str,
        factory: str | AdapterFactory,
        *,
        names: str | EnvironmentNames | None = None,
    ) -> None:
        """Add an adapter, as a factory or a lazy ``"module:function"`` path.

        ``names``, when the adapter has a fixed set of environments, lists them (a function or
        a lazy path, like ``factory``). Registering a name twice is refused, as reasoning-gym's
        registry does.

        Example:
            >>> registry = EnvironmentRegistry({})
            >>> registry.register_adapter("x", lambda name, **options: ...,
            ...                           names=lambda: ["b", "a"])
            >>> registry.environment_names("x")
            ('a', 'b')

        """
        if name in self._adapters:
            raise ValueError(f"adapter {name!r} is already registered")
        for path in (factory, names):
            if isinstance(path, str) and ":" not in path:
                raise ValueError(f"adapter path must look like 'module:function', got {path!r}")
        self._adapters[name] = factory
        if names is not None:
            self._names[name] = names

    def adapter(self, name: str) -> AdapterFactory:
        """The factory of adapter ``name``, imported on first use."""
        try:
            entry = self._adapters[name]
        except KeyError:
            raise UnknownName("adapter", name, self._adapters) from None
        if isinstance(entry, str):
            factory: AdapterFactory = _resolve(entry)
            self._adapters[name] = factory
            return factory
        return entry

    def environment_names(self, adapter: str) -> tuple[str, ...]:
        """The environments ``adapter`` accepts, sorted (when it has a fixed set).

        Example:
            >>> environment_registry.environment_names("huggingface")
            Traceback (most recent call last):
            ...
            ValueError: adapter 'huggingface' has no list of environments (it takes any name its source accepts)

        """  # noqa: E501
        self.adapter(adapter)  # an unknown adapter lists the adapters
        entry = self._names.get(adapter)
        if entry is None:
            raise ValueError(
                f"adapter {adapter!r} has no list of environments (it takes any name its "
                "source accepts)"
            )
        lister: EnvironmentNames = _resolve(entry) if isinstance(entry, str) else entry
        return tuple(sorted(lister()))

    def get(self, *, name: str, adapter: str, **kwargs: Any) -> Environment:
        """Make environment ``name`` with ``adapter``; ``kwargs`` go to the adapter."""
        return self.adapter(adapter)(name, **kwargs)


def _resolve(path: str) -> Any:
    """The object a ``"module:attribute"`` path names, its module imported now."""
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


environment_registry = EnvironmentRegistry()
"""The registry the guide uses."""
