"""A llama GGUF as a transformers model folder: its file read once, de-quantised and saved.

transformers reads a GGUF itself (``from_pretrained(..., gguf_file=...)``), but slowly: it parses
the whole file (the 49,152-token vocabulary and 48,900 merges included) once for the config, again
for the tokenizer and again for the weights, builds its tensor-name table once per submodule (397
times for SmolLM2) and initialises random weights it then overwrites; converting the 135M embedded
model took 17 s on 2 idle cores (3 s here: ``bench/cold_start.py``). Here the metadata and the
tensor table are read once (``read_gguf``: a walk of the header, the tensors left in the file until
asked for), the names are mapped once with gguf's own table, each tensor is de-quantised with gguf's
``dequantize``, the model is built on the meta device (no initialisation) and saved. The tokenizer
is transformers' own reading of the GGUF's vocabulary. The folder is the one transformers' reading
gives, byte for byte (``tests/inference/test_gguf_folder.py``).

Example:
    >>> from llenvs.inference._backends.embedded_model import find_embedded_gguf
    >>> found = read_gguf(find_embedded_gguf())
    >>> found.metadata["general.architecture"], len(found.tensors), found.tensors[0].name
    ('llama', 272, 'token_embd.weight')

"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from llenvs.core.errors import BackendError

__all__ = ["GgufFile", "GgufTensor", "llama_config", "read_gguf", "save_llama_folder"]

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q"}
_SCALARS |= {11: "<q", 12: "<d"}
"""GGUF's fixed-size value types and their ``struct`` formats (8 is a string, 9 an array)."""
_STRING, _ARRAY = 8, 9
_VERSIONS = (2, 3)

_LLAMA_CONFIG = {
    "llama.context_length": "max_position_embeddings",
    "llama.block_count": "num_hidden_layers",
    "llama.feed_forward_length": "intermediate_size",
    "llama.embedding_length": "hidden_size",
    "llama.rope.dimension_count": "head_dim",
    "llama.rope.freq_base": "rope_theta",
    "llama.attention.head_count": "num_attention_heads",
    "llama.attention.head_count_kv": "num_key_value_heads",
    "llama.attention.layer_norm_rms_epsilon": "rms_norm_eps",
    "llama.vocab_size": "vocab_size",
    "tokenizer.ggml.bos_token_id": "bos_token_id",
    "tokenizer.ggml.eos_token_id": "eos_token_id",
    "tokenizer.ggml.unknown_token_id": "unk_token_id",
    "tokenizer.ggml.padding_token_id": "pad_token_id",
}
"""GGUF metadata keys and the transformers config fields they give (transformers' own table)."""


@dataclass(frozen=True)
class GgufTensor:
    """One tensor's place in a GGUF file: its name, shape (torch order), type and bytes."""

    name: str
    """Its GGUF name (``blk.0.attn_q.weight``)."""
    shape: tuple[int, ...]
    """Its shape, outermost first (GGUF stores the innermost first)."""
    kind: int
    """Its ``GGMLQuantizationType`` (0: float32, 3: Q4_1...)."""
    start: int
    """Where its bytes begin in the file."""


@dataclass(frozen=True)
class GgufFile:
    """A GGUF file's metadata and tensor table; the tensors stay in the file until asked for."""

    path: Path
    """The file."""
    metadata: dict[str, Any]
    """Its metadata values; an array of strings (a vocabulary) is given as its length."""
    tensors: tuple[GgufTensor, ...]
    """Its tensors, in the file's order."""

    def tensor(self, tensor: GgufTensor) -> np.ndarray:
        """``tensor`` de-quantised to float32, in a fresh array of its own."""
        import gguf

        kind = gguf.GGMLQuantizationType(tensor.kind)
        block, size = gguf.GGML_QUANT_SIZES[kind]
        *outer, inner = tensor.shape
        stored = (*outer, inner // block * size)
        raw = np.memmap(self.path, np.uint8, "r", tensor.start, stored)
        return np.array(gguf.dequantize(raw, kind), dtype=np.float32)


def read_gguf(path: str | Path) -> GgufFile:
    """The metadata and tensor table of the GGUF file ``path`` (version 2 or 3).

    Example:
        >>> read_gguf(__file__)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.BackendError: .../gguf_folder.py is not a GGUF file (it does not start with GGUF)

    """  # noqa: E501
    path = Path(path)
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise BackendError(f"{path} is not a GGUF file (it does not start with GGUF)")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as blob:
            try:
                at, metadata, entries = _header(path, blob)
            except (struct.error, UnicodeDecodeError, ValueError) as err:
                raise BackendError(f"{path} is not a readable GGUF file: {err}") from err
    alignment = int(metadata.get("general.alignment", 32))
    data = (at + alignment - 1) // alignment * alignment
    tensors = tuple(GgufTensor(name, shape, kind, data + o) for name, shape, kind, o in entries)
    return GgufFile(path, metadata, tensors)


def _header(path: Path, blob: mmap.mmap) -> tuple[int, dict[str, Any], list[Any]]:
    """Where the header ends, its metadata, and its tensors' names, shapes, types, offsets."""
    version, count, keys = struct.unpack_from("<IQQ", blob, 4)
    if version not in _VERSIONS:
        raise BackendError(f"{path} is GGUF version {version}; version 2 or 3 is read")
    at, metadata = 24, {}
    for _ in range(keys):
        key, at = _string(blob, at)
        (kind,) = struct.unpack_from("<I", blob, at)
        metadata[key], at = _value(blob, at + 4, kind)
    entries = []
    for _ in range(count):
        name, at = _string(blob, at)
        (dims,) = struct.unpack_from("<I", blob, at)
        shape = struct.unpack_from(f"<{dims}Q", blob, at + 4)
        kind, offset = struct.unpack_from("<IQ", blob, at + 4 + 8 * dims)
        at += 4 + 8 * dims + 12
        entries.append((name, tuple(reversed(shape)), kind, offset))
    return at, metadata, entries


def _string(blob: mmap.mmap, at: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("<Q", blob, at)
    return blob[at + 8 : at + 8 + length].decode("utf-8"), at + 8 + length


def _value(blob: mmap.mmap, at: int, kind: int) -> tuple[Any, int]:
    """The value of type ``kind`` at ``at``, and where the next begins.

    An array of numbers is read as a list; an array of strings (a vocabulary), as its length.
    """
    if kind in _SCALARS:
        (value,) = struct.unpack_from(_SCALARS[kind], blob, at)
        return value, at + struct.calcsize(_SCALARS[kind])
    if kind == _STRING:
        return _string(blob, at)
    if kind != _ARRAY:
        raise ValueError(f"unknown metadata type {kind} at byte {at}")
    element, count = struct.unpack_from("<IQ", blob, at)
    at += 12
    if element in _SCALARS:
        code = _SCALARS[element]
        values = list(struct.unpack_from(f"<{count}{code[1]}", blob, at))
        return values, at + count * struct.calcsize(code)
    for _ in range(count):  # strings (or nested arrays): walked, kept as a count
        _, at = _value(blob, at, element)
    return count, at


def llama_config(found: GgufFile) -> dict[str, Any]:
    """The transformers config of a llama GGUF, as transformers reads it from the file.

    Example:
        >>> from llenvs.inference._backends.embedded_model import find_embedded_gguf
        >>> config = llama_config(read_gguf(find_embedded_gguf()))
        >>> config["model_type"], config["num_hidden_layers"], config["tie_word_embeddings"]
        ('llama', 30, True)

    """
    architecture = found.metadata.get("general.architecture")
    if architecture != "llama":
        raise BackendError(f"{found.path} holds a {architecture!r} model; only llama is converted")
    config: dict[str, Any] = {
        "model_type": "llama",
        "tie_word_embeddings": all(t.name != "output.weight" for t in found.tensors),
    }
    if "general.name" in found.metadata:
        config["_model_name_or_path"] = found.metadata["general.name"]
    for key, field in _LLAMA_CONFIG.items():
        if key in found.metadata:
            config[field] = found.metadata[key]
    config.setdefault("vocab_size", found.metadata.get("tokenizer.ggml.tokens"))
    return config


def save_llama_folder(gguf_file: Path, folder: Path) -> None:
    """Save the llama GGUF ``gguf_file`` as a safetensors model folder with its tokenizer."""
    import torch
    from gguf import MODEL_ARCH, get_tensor_name_map
    from transformers import AutoConfig, AutoModelForCausalLM, TokenizersBackend

    found = read_gguf(gguf_file)
    settings = llama_config(found)
    config = AutoConfig.for_model(**settings)
    with torch.device("meta"):
        model: Any = AutoModelForCausalLM.from_config(config)  # type: ignore[no-untyped-call]
    names = get_tensor_name_map(MODEL_ARCH.LLAMA, config.num_hidden_layers)
    ours = {}
    for key in model.state_dict():
        stem, _, suffix = key.rpartition(".")
        theirs = names.get_name(stem)
        if theirs is not None:
            ours[f"{theirs}.{suffix}"] = key
    weights = {}
    for tensor in found.tensors:
        if tensor.name not in ours:
            raise BackendError(f"{gguf_file}: no llama weight is named {tensor.name}")
        values = found.tensor(tensor)
        if ".attn_q." in tensor.name:
            values = _unpermute(values, config.num_attention_heads)
        elif ".attn_k." in tensor.name:
            values = _unpermute(values, config.num_key_value_heads)
        weights[ours[tensor.name]] = torch.from_numpy(values)
    loaded = model.load_state_dict(weights, strict=False, assign=True)
    tied = ["lm_head.weight"] if config.tie_word_embeddings else []
    if loaded.unexpected_keys or sorted(loaded.missing_keys) != tied:
        raise BackendError(f"converting {gguf_file} did not map every tensor: {loaded}")
    model.tie_weights()
    model.save_pretrained(str(folder))
    tokenizer = TokenizersBackend.from_pretrained(str(gguf_file.parent), gguf_file=gguf_file.name)
    tokenizer.save_pretrained(str(folder))


def _unpermute(values: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's interleaving of the rotary halves of each head in ``attn_q``/``attn_k``."""
    shape = values.shape
    split = values.reshape(heads, shape[0] // heads // 2, 2, *shape[1:])
    return np.ascontiguousarray(split.swapaxes(2, 1).reshape(shape))
