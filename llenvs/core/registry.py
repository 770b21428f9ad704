"""Environments by name: ``environment_registry.get(name=..., adapter=..., **kwargs)``.

Adapters are resolved lazily: the registry holds ``"module:function"`` paths and imports an
adapter's module only when it is first asked for, so importing ``llenvs.core`` imports no
adapter (and none of their heavy dependencies).

Example:
    >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> len(env), env.spec.adapter
    (5, 'reasoning_gym')
    >>> environment_registry.get(name="x", adapter="nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown adapter 'nope': choose one of: huggingface, ...

"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from llenvs.core.environment import Environment
from llenvs.core.errors import UnknownName

__all__ = ["AdapterFactory", "EnvironmentRegistry", "environment_registry"]

AdapterFactory = Callable[..., Environment]
"""Makes an environment: ``factory(name, **kwargs)``."""

_BUILT_IN: dict[str, str] = {
    "huggingface": "llenvs.adapters.huggingface:make_environment",
    "reasoning_gym": "llenvs.adapters.reasoning_gym:make_environment",
}


class EnvironmentRegistry:
    """Adapters by name, each a factory ``(name, **kwargs) -> Environment``.

    Example:
        >>> registry = EnvironmentRegistry({})
        >>> registry.register_adapter("mine", "llenvs.adapters.reasoning_gym:make_environment")
        >>> registry.adapters
        ('mine',)

    """

    def __init__(self, adapters: dict[str, str | AdapterFactory] | None = None) -> None:
        self._adapters: dict[str, str | AdapterFactory] = dict(
            _BUILT_IN if adapters is None else adapters
        )

    @property
    def adapters(self) -> tuple[str, ...]:
        """The adapter names, sorted."""
        return tuple(sorted(self._adapters))

    def register_adapter(self, name: str, factory: str | AdapterFactory) -> None:
        """Add an adapter, as a factory or a lazy ``"module:function"`` path.

        Registering a name twice is refused, as reasoning-gym's registry does.
        """
        if name in self._adapters:
            raise ValueError(f"adapter {name!r} is already registered")
        if isinstance(factory, str) and ":" not in factory:
            raise ValueError(f"adapter path must look like 'module:function', got {factory!r}")
        self._adapters[name] = factory

    def adapter(self, name: str) -> AdapterFactory:
        """The factory of adapter ``name``, imported on first use."""
        try:
            entry = self._adapters[name]
        except KeyError:
            raise UnknownName("adapter", name, self._adapters) from None
        if isinstance(entry, str):
            module_name, _, attribute = entry.partition(":")
            factory: AdapterFactory = getattr(importlib.import_module(module_name), attribute)
            self._adapters[name] = factory
            return factory
        return entry

    def get(self, *, name: str, adapter: str, **kwargs: Any) -> Environment:
        """Make environment ``name`` with ``adapter``; ``kwargs`` go to the adapter."""
        return self.adapter(adapter)(name, **kwargs)


environment_registry = EnvironmentRegistry()
"""The registry the guide uses."""
