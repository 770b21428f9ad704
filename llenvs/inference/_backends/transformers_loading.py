"""Loading the transformers backend: the embedded model, any local causal LM, their precision.

``make_backend`` is the registry's factory (``get_backend("transformers")`` and
``"transformers/<model>"``).

Example:
    >>> get_embedded_backend().name
    'transformers/SmolLM2-135M-Instruct'

"""

from __future__ import annotations

import contextlib
from functools import cache
from pathlib import Path
from typing import Any, Literal

import torch

from llenvs.core.errors import BackendError
from llenvs.inference._backends.embedded_model import EMBEDDED_MODEL_NAME, embedded_model_path
from llenvs.inference._backends.transformers_backend import TransformersBackend
from llenvs.inference._quiet import quiet_transformers

__all__ = [
    "DType",
    "default_dtype",
    "get_embedded_backend",
    "load_backend",
    "make_backend",
]

DType = Literal["float32", "bfloat16", "float16"]
"""Weights' precision. Default (``default_dtype``): float32 on every CPU, bfloat16 on a GPU that
supports it. The exactness the library states (greedy segmented = one-shot, forked = unforked, a
greedy resample reproduces its parent) holds in float32 for token ids and texts: a row's tokens
do not depend on the batch it ran in. Its log-probabilities agree within float32 rounding (about
1e-6), not bit for bit: the order of a sum depends on the batch shape and the CPU. In bfloat16
the rounding is large enough to matter (another batch shape, or a prefill instead of a decode,
rounds otherwise), so rows can differ where the two best tokens are within rounding of each other.
Measured (``bench/precision.py``, docs/benchmarks.md), SmolLM2 on 2 cores with native bfloat16
(AMX): bfloat16 prefills 250 tokens 2.5x as fast (0.10 vs 0.26 s), decodes one row about as
fast (23.4 vs 21.6 tokens/s) and 16 rows 1.9x as fast (277 vs 145), and one of 8 greedy rows in a
padded batch parted from the same row alone (at token 27; none in float32). On 2 AVX2 cores
without native bfloat16 it prefills 4x slower (3.1 vs 0.8 s) and decodes 16 rows at 40 vs 101
tokens/s. Exact, reproducible branches, the same tokens on every machine, are worth more to this
library than that speed, so bfloat16 is a choice (``dtype="bfloat16"``), never the default on a
CPU."""


def default_dtype(device: torch.device) -> torch.dtype:
    """The default precision on ``device`` (see ``DType``): float32 on a CPU, of any kind.

    Example:
        >>> import torch
        >>> default_dtype(torch.device("cpu"))
        torch.float32

    """
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    return torch.float32


def default_dtype_name() -> str:
    """The name of the default precision here (``default_dtype`` on the device a load uses).

    Example:
        >>> import torch
        >>> default_dtype_name() == ("float32" if not torch.cuda.is_available() else
        ...                          str(default_dtype(torch.device("cuda"))).split(".")[1])
        True

    """
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return str(default_dtype(device)).removeprefix("torch.")


def _torch_dtype(dtype: DType | None, device: torch.device) -> torch.dtype:
    if dtype is None:
        return default_dtype(device)
    choices = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in choices:
        raise ValueError(f"dtype must be one of {', '.join(choices)}, got {dtype!r}")
    return choices[dtype]


def load_backend(
    path: str | Path,
    *,
    name: str,
    dtype: DType | None = None,
    device: str | None = None,
    max_sessions: int = 8,
    progress: bool = True,
    fork_prefixes: bool = True,
) -> TransformersBackend:
    """Load a causal LM and its tokenizer from a folder (or a hub id already cached).

    ``progress=False`` silences transformers' progress bars ("Loading weights") and its
    informational logging while loading. ``fork_prefixes`` goes to ``TransformersBackend``.

    Example:
        >>> load_backend("/no/such/model", name="transformers/x")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.BackendError: no model folder at /no/such/model (a local folder ...)

    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where = str(path)
    looks_local = where.startswith((".", "/", "~")) or Path(where).expanduser().exists()
    if looks_local:
        where = str(Path(where).expanduser())
        if not (Path(where) / "config.json").is_file():
            raise BackendError(
                f"no model folder at {where} (a local folder with config.json, or a hub id "
                "already in the local cache)"
            )
    target = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    quiet = contextlib.nullcontext() if progress else quiet_transformers()
    try:
        with quiet:
            tokenizer = AutoTokenizer.from_pretrained(where)
            model: Any = AutoModelForCausalLM.from_pretrained(
                where, dtype=_torch_dtype(dtype, target)
            )
    except OSError as err:
        raise BackendError(f"cannot load the model {where!r} offline: {err}") from err
    model = model.to(target).eval()
    return TransformersBackend(
        model, tokenizer, name=name, max_sessions=max_sessions, fork_prefixes=fork_prefixes
    )


def make_backend(
    model: str | None = None,
    *,
    dtype: DType | None = None,
    device: str | None = None,
    max_sessions: int = 8,
    progress: bool = True,
    fork_prefixes: bool = True,
) -> TransformersBackend:
    """The registry's factory: ``get_backend("transformers")`` or ``"transformers/<model>"``.

    ``progress=False`` draws no progress bar, neither converting the embedded model nor loading
    the weights. ``fork_prefixes=False`` feeds every row of a batch (``TransformersBackend``).
    Without a model name, or with the embedded model's own name (as a trace records it:
    ``"transformers/SmolLM2-135M-Instruct"``): the embedded SmolLM2-135M-Instruct (converted
    once, then cached).

    Example:
        >>> make_backend(dtype="float64")
        Traceback (most recent call last):
        ...
        ValueError: dtype must be one of float32, bfloat16, float16, got 'float64'

    """
    if model is None or (model == EMBEDDED_MODEL_NAME and not Path(model).exists()):
        target = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        _torch_dtype(dtype, target)  # a bad dtype fails before a conversion
        path: str | Path = embedded_model_path(progress=progress)
        name = f"transformers/{EMBEDDED_MODEL_NAME}"
    else:
        path, name = model, f"transformers/{model}"
    return load_backend(
        path,
        name=name,
        dtype=dtype,
        device=device,
        max_sessions=max_sessions,
        progress=progress,
        fork_prefixes=fork_prefixes,
    )


@cache
def get_embedded_backend() -> TransformersBackend:
    """The embedded model's backend, loaded once per process (for doctests and tests).

    Example:
        >>> get_embedded_backend() is get_embedded_backend()
        True

    """
    return make_backend(progress=False)
