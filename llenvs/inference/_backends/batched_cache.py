"""Key-value caches for a batch: crop one, stack several with left padding, take one row back.

Rows of a batch have cached prefixes of different lengths. ``stack_caches`` left-pads each row's
cached keys and values to a common length (the padding is masked out by the attention mask, and
rotary positions are already applied to cached keys, so each row keeps its own positions);
``row_cache`` takes a row back out without its padding; ``gather_rows`` makes a batch's rows
copies of some of its rows, each cut to a shorter prefix where asked (left-padded again). Only
caches made of plain
``DynamicLayer`` layers can be stacked (``stackable``); the backend re-prefills other ones.

Example:
    >>> import torch
    >>> from transformers import DynamicCache
    >>> cache = DynamicCache()
    >>> _ = cache.update(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4), 0)
    >>> crop_cache(cache, 1); cache.get_seq_length()
    1
    >>> both = stack_caches([cache, None], [1, 0], pad_to=2)
    >>> both.get_seq_length(), row_cache(both, 0, padding=1).get_seq_length()
    (2, 1)

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

__all__ = ["crop_cache", "gather_rows", "row_cache", "stack_caches", "stackable"]


def crop_cache(cache: Any, length: int) -> None:
    """Keep the first ``length`` positions of ``cache`` (in place).

    Example:
        >>> from transformers import DynamicCache
        >>> crop_cache(DynamicCache(), 0)  # an empty cache stays empty

    """
    current = int(cache.get_seq_length())
    if length < current:
        cache.crop(length - current)


def stackable(cache: Any) -> bool:
    """Whether ``cache`` is made only of plain ``DynamicLayer`` layers (so it can be stacked).

    Example:
        >>> from transformers import DynamicCache
        >>> stackable(DynamicCache())
        True

    """
    layers = getattr(cache, "layers", None)
    return isinstance(cache, DynamicCache) and all(type(x) is DynamicLayer for x in layers or [])


def stack_caches(caches: Sequence[Any], lengths: Sequence[int], pad_to: int) -> DynamicCache:
    """One batch cache: row ``i`` holds the first ``lengths[i]`` positions of ``caches[i]``.

    Each row is left-padded with zeros to ``pad_to`` positions; a row with length 0 may have no
    cache (None). Every cache must already hold exactly its length.
    """
    merged = DynamicCache()
    if pad_to == 0:
        return merged
    shaped = [c for c, n in zip(caches, lengths, strict=True) if c is not None and n > 0]
    layers = len(shaped[0].layers)
    for index in range(layers):
        reference = shaped[0].layers[index].keys
        heads, dim = reference.shape[1], reference.shape[3]
        keys, values = [], []
        for cache, length in zip(caches, lengths, strict=True):
            pad = reference.new_zeros((1, heads, pad_to - length, dim))
            if length == 0 or cache is None:
                keys.append(pad)
                values.append(pad)
            else:
                layer = cache.layers[index]
                keys.append(torch.cat([pad, layer.keys], dim=2))
                values.append(torch.cat([pad, layer.values], dim=2))
        merged.update(torch.cat(keys), torch.cat(values), index)
    return merged


def row_cache(cache: Any, row: int, padding: int) -> DynamicCache:
    """Row ``row`` of a batch cache, without its first ``padding`` (left-padding) positions."""
    single = DynamicCache()
    for index, layer in enumerate(cache.layers):
        keys = layer.keys[row : row + 1, :, padding:].clone()
        values = layer.values[row : row + 1, :, padding:].clone()
        single.update(keys, values, index)
    return single


def gather_rows(cache: Any, rows: Sequence[int], drops: Sequence[int]) -> None:
    """Make row ``i`` of a batch ``cache`` row ``rows[i]`` without its last ``drops[i]`` positions.

    In place. Rows are left-padded: a cut row's positions move right by what it drops, and the
    columns freed before them are zeros (the caller's attention mask must hide them). Indexing
    copies, so no new row shares memory with another.

    Example:
        >>> import torch
        >>> from transformers import DynamicCache
        >>> cache = DynamicCache()
        >>> keys = torch.arange(3.0).reshape(1, 1, 3, 1)
        >>> _ = cache.update(keys, keys.clone(), 0)
        >>> gather_rows(cache, [0, 0], [0, 1])
        >>> cache.layers[0].keys[:, 0, :, 0].tolist()
        [[0.0, 1.0, 2.0], [0.0, 0.0, 1.0]]

    """
    index = torch.tensor(list(rows))
    for layer in cache.layers:
        index = index.to(layer.keys.device)
        layer.keys = _shift_right(layer.keys[index], drops)
        layer.values = _shift_right(layer.values[index], drops)


def _shift_right(tensor: torch.Tensor, drops: Sequence[int]) -> torch.Tensor:
    """Row ``i`` of ``tensor`` (batch, heads, positions, dim) moved ``drops[i]`` positions right."""
    for row, drop in enumerate(drops):
        if drop > 0:
            tensor[row, :, drop:] = tensor[row, :, :-drop].clone()
            tensor[row, :, :drop] = 0
    return tensor
