"""The loaded models the workbench's sessions share: a few at most, the least recently used out.

A model a job holds is never dropped; when every loaded model is held, a new load goes over the
bound for as long as the jobs run (why: ``docs/architecture.md``). Models are keyed by
``ModelSpec`` and a typed server key's SHA-256 digest, never the key itself. ``warm`` starts a
load in the background, so that the first model action finds its model loaded or loading.

Example:
    >>> pool = ModelPool()
    >>> first = pool.get("a", lambda: ["model a"], bound=1)
    >>> with pool.hold(first):
    ...     second = pool.get("b", lambda: ["model b"], bound=1)
    ...     pool.loaded(), pool.over_bound(bound=1)
    (['a', 'b'], True)
    >>> pool.loaded()  # a's job ended: the least recently used goes
    ['b']

"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from llenvs.core.run_spec import ModelSpec, Provider
from llenvs.workbench.files import traces_dir
from llenvs.workbench.models._model_choice import ModelChoice
from llenvs.workbench.models._settings_store import (
    DEFAULT_MAX_MODELS,
    MAX_MODELS_LIMIT,
    load_settings,
)

__all__ = [
    "MAX_MODELS_ENV",
    "Lease",
    "ModelPool",
    "PoolEntry",
    "PoolKey",
    "max_models",
    "pool_spec",
    "shared_pool",
]

MAX_MODELS_ENV = "LLENVS_MAX_MODELS"
"""The environment variable that bounds the models loaded at once (it wins over Settings)."""

LOGGER = logging.getLogger("llenvs.workbench.models._model_pool")

Model = TypeVar("Model")


@dataclass(frozen=True)
class PoolEntry:
    """One loaded model, as the Settings page lists it.

    Example:
        >>> PoolEntry("transformers/x", holders=1).in_use
        True

    """

    name: str
    """The model's key in words (``PoolKey``: its name; a typed key never shown)."""
    holders: int
    """Jobs holding it now."""

    @property
    def in_use(self) -> bool:
        """Whether a job holds it (it is not dropped then)."""
        return self.holders > 0


@dataclass(frozen=True)
class PoolKey:
    """What the shared pool keys a backend by: its spec and a typed key's digest.

    Example:
        >>> from llenvs.core.run_spec._model_spec import ModelSpec
        >>> str(PoolKey(ModelSpec.parse("openai/m"), "0a1b"))
        'openai/m (with a key typed in a session)'

    """

    spec: ModelSpec
    """The model."""
    key_digest: str | None = None
    """SHA-256 of a key typed in a session (an OpenAI-compatible server), never the key."""

    @classmethod
    def typed(cls, spec: ModelSpec, api_key: str | None) -> PoolKey:
        """The key of ``spec`` loaded with ``api_key`` (typed in a session; None: none).

        Example:
            >>> from llenvs.core.run_spec._model_spec import ModelSpec
            >>> PoolKey.typed(ModelSpec.parse("openai/m"), "k").key_digest[:8]
            '8254c329'

        """
        digest = None if api_key is None else hashlib.sha256(api_key.encode("utf-8")).hexdigest()
        return cls(spec, digest)

    def __str__(self) -> str:
        typed = " (with a key typed in a session)" if self.key_digest else ""
        return f"{self.spec.name}{typed}"


class _Slot:
    """A model in the pool, or one being loaded."""

    def __init__(self) -> None:
        self.model: Any = None
        self.loaded = threading.Event()
        self.holders = 0


class Lease:
    """A hold on one model of a pool, until ``release`` (see ``ModelPool.lease``)."""

    def __init__(self, pool: ModelPool, slot: _Slot | None) -> None:
        self._pool = pool
        self._slot = slot

    def release(self) -> None:
        """Let the model go (again: nothing happens)."""
        slot, self._slot = self._slot, None
        if slot is not None:
            self._pool._let_go(slot)


class ModelPool:
    """Loaded models by key, the least recently used dropped beyond a bound (see the module).

    Example:
        >>> pool = ModelPool()
        >>> for key in "abc":
        ...     _ = pool.get(key, lambda: object(), bound=2)
        >>> pool.loaded()  # most recently used last
        ['b', 'c']

    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[Hashable, _Slot] = {}
        """Least recently used first."""
        self._bound: int | None = None
        """The bound the last load gave (None: none yet)."""

    def get(self, key: Hashable, load: Callable[[], Model], bound: int) -> Model:
        """The model under ``key``, loaded by ``load`` if it is not (at most once at a time).

        Then the least recently used models no job holds are dropped until at most ``bound``
        are loaded (a model being loaded by another session counts, and is not dropped).
        """
        with self._lock:
            slot = self._slots.pop(key, None)
            mine = slot is None
            slot = slot or _Slot()
            self._slots[key] = slot  # most recently used
        if not mine:
            slot.loaded.wait()
            model: Model | None = slot.model
            if model is None:  # its load failed: try again
                return self.get(key, load, bound)
            self.trim(bound, keep=key)
            return model
        return self._fill(key, slot, load, bound)

    def _fill(self, key: Hashable, slot: _Slot, load: Callable[[], Model], bound: int) -> Model:
        """Load the model of ``slot``, just claimed for ``key`` (a failed load leaves no slot)."""
        try:
            slot.model = load()
        except BaseException:
            with self._lock:
                if self._slots.get(key) is slot:
                    del self._slots[key]
            raise
        finally:
            slot.loaded.set()
        self.trim(bound, keep=key)
        loaded: Model = slot.model
        return loaded

    def is_loaded(self, key: Hashable) -> bool:
        """Whether the model under ``key`` is loaded (not absent, not still loading).

        Example:
            >>> pool = ModelPool()
            >>> pool.is_loaded("a"), pool.get("a", lambda: "model a", bound=1), pool.is_loaded("a")
            (False, 'model a', True)

        """
        with self._lock:
            slot = self._slots.get(key)
            return slot is not None and slot.loaded.is_set() and slot.model is not None

    def lease(self, model: object) -> Lease:
        """Keep ``model`` loaded until the lease is released (a job queued or running on it).

        A model that is not in the pool (a scripted backend) needs no lease: its lease holds
        nothing.

        Example:
            >>> pool = ModelPool()
            >>> model = pool.get("a", lambda: object(), bound=1)
            >>> lease = pool.lease(model); pool.entries()[0].in_use
            True
            >>> lease.release(); lease.release(); pool.entries()[0].in_use  # once only
            False

        """
        with self._lock:
            slot = next((s for s in self._slots.values() if s.model is model), None)
            if slot is not None:
                slot.holders += 1
        return Lease(self, slot)

    @contextmanager
    def hold(self, model: object) -> Iterator[None]:
        """Keep ``model`` loaded for the ``with`` block (``lease``, released at its end)."""
        lease = self.lease(model)
        try:
            yield
        finally:
            lease.release()

    def _let_go(self, slot: _Slot) -> None:
        """A lease on ``slot`` ended: models beyond the bound may go now."""
        with self._lock:
            slot.holders -= 1
        self.trim(None)

    def trim(self, bound: int | None, keep: Hashable = None) -> int:
        """Drop the least recently used models no job holds beyond ``bound``; how many went.

        ``None`` applies the last bound given; ``keep`` is a model just asked for (never
        dropped by its own load). Dropped models are garbage collected at once, so their
        memory (a local model's weights) goes back.
        """
        dropped: list[Any] = []
        with self._lock:
            if bound is not None:
                self._bound = bound
            limit = len(self._slots) if self._bound is None else self._bound
            excess = len(self._slots) - limit
            for key in list(self._slots):
                if excess <= 0:
                    break
                slot = self._slots[key]
                if slot.holders == 0 and slot.loaded.is_set() and key != keep:
                    del self._slots[key]
                    dropped.append(slot.model)
                    slot.model = None
                    excess -= 1
        count = len(dropped)
        if count:
            LOGGER.info("dropped %d model(s) beyond the bound of %s", count, self._bound)
            del dropped
            gc.collect()
        return count

    def loaded(self) -> list[Hashable]:
        """The keys of the models loaded (or loading), least recently used first."""
        with self._lock:
            return list(self._slots)

    def entries(self) -> list[PoolEntry]:
        """The models loaded, in words, least recently used first (never a typed key)."""
        with self._lock:
            return [PoolEntry(str(key), slot.holders) for key, slot in self._slots.items()]

    def over_bound(self, bound: int) -> bool:
        """Whether more than ``bound`` models are loaded (jobs hold them all)."""
        with self._lock:
            return len(self._slots) > bound

    def clear(self) -> None:
        """Drop every model no job holds (tests, and a Settings change to fewer)."""
        self.trim(0)


def max_models(folder: str | os.PathLike[str] | None = None) -> int:
    """The most models loaded at once: ``$LLENVS_MAX_MODELS``, else Settings', else 2.

    ``folder`` is the traces folder whose Settings are read (default: the app's). A bad
    value of the variable is refused with the valid range; unreadable Settings give 2.

    Example:
        >>> os.environ[MAX_MODELS_ENV] = "3"; max_models()
        3
        >>> os.environ[MAX_MODELS_ENV] = "abc"; max_models()
        Traceback (most recent call last):
        ...
        ValueError: LLENVS_MAX_MODELS must be a whole number of models from 1 to 16, got 'abc'
        >>> del os.environ[MAX_MODELS_ENV]

    """
    text = os.environ.get(MAX_MODELS_ENV, "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if not 1 <= value <= MAX_MODELS_LIMIT:
            raise ValueError(
                f"{MAX_MODELS_ENV} must be a whole number of models from 1 to "
                f"{MAX_MODELS_LIMIT}, got {text!r}"
            )
        return value
    try:
        return load_settings(traces_dir() if folder is None else folder).max_models
    except ValueError:  # the pages that read Settings say why; the default serves
        return DEFAULT_MAX_MODELS


_SHARED = ModelPool()


def shared_pool() -> ModelPool:
    """The pool every session of this process shares.

    Example:
        >>> shared_pool() is shared_pool()
        True

    """
    return _SHARED


def pool_spec(choice: ModelChoice) -> ModelSpec:
    """The spec ``choice`` loads, a local model's default precision spelled out.

    A trace records the precision its model ran in (``float32``); the same model chosen without
    one loads in the default, which is that same precision here: both are one pool entry, not
    two copies of the model.

    Example:
        >>> from llenvs.workbench.models._model_choice import ModelKind
        >>> pool_spec(ModelChoice(ModelKind.EMBEDDED)).dtype
        'float32'
        >>> pool_spec(ModelChoice(ModelKind.OPENAI, "m", (("base_url", "http://h/v1"),))).dtype

    """
    spec = choice.model_spec()
    if spec.provider in (Provider.EMBEDDED, Provider.TRANSFORMERS) and spec.dtype is None:
        from llenvs.inference import default_precision

        return dataclasses.replace(spec, dtype=default_precision())
    return spec
