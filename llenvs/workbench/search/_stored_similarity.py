"""MiniLM similarity from the vectors the meaning index already holds, the rest embedded now.

Step search keeps a MiniLM vector of every step of a folder (``MeaningIndex``, 8-bit). An
aligned diff of two traces of that folder pairs steps by meaning with the same model: reading
their stored vectors instead of embedding them again turns seconds into milliseconds.
``stored_similarity(path, line)`` gathers the vectors of one trace's steps (none when the folder
has no meaning index or the file changed since it was built: then its steps are embedded as
before); two of them, joined with ``|``, serve a diff of two traces. A text no store holds is
embedded now by ``MiniLMSimilarity``. The 8-bit vectors give cosines within about 0.01 of the
float ones, so a pair at the 0.8 threshold may fall on the other side.

Example:
    >>> import numpy as np
    >>> known = StoredSimilarity({"A cow.": np.array([1.0, 0.0]), "A hen.": np.array([0.6, 0.8])})
    >>> [round(x, 2) for x in known.similarities("A cow.", ["A hen."])]
    [0.6]

"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from llenvs.analysis.instruments import MINILM, MiniLMSimilarity
from llenvs.workbench.search._meaning_index import MeaningIndex
from llenvs.workbench.search._step_store import INDEX_FOLDER, StepStore

__all__ = ["StoredSimilarity", "stored_vectors"]


class StoredSimilarity:
    """Cosines of MiniLM vectors: ``vectors`` by text where stored, the others embedded now."""

    name = MINILM

    def __init__(self, vectors: Mapping[str, Any], fallback: MiniLMSimilarity | None = None):
        self.vectors = {text: _unit(vector) for text, vector in vectors.items()}
        self._fallback = fallback
        self.embedded_now = 0
        """How many texts had no stored vector and were embedded by the model."""

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine of ``text``'s vector with each of ``others``'."""
        return self.table([text], others)[0] if others else []

    def table(self, texts: Sequence[str], others: Sequence[str]) -> list[list[float]]:
        """The cosines of ``texts``' vectors with ``others``', each text's vector found once."""
        if not texts or not others:
            return [[] for _ in texts]
        left, right = self._rows(texts), self._rows(others)
        return [[float(x) for x in row] for row in left @ right.T]

    def _rows(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            if self._fallback is None:
                self._fallback = MiniLMSimilarity()
            made = self._fallback.embed(missing).numpy()
            self.vectors.update({t: _unit(v) for t, v in zip(missing, made, strict=True)})
            self.embedded_now += len(missing)
        return np.stack([self.vectors[t] for t in texts])


def stored_vectors(path: str | os.PathLike[str], line: int) -> dict[str, np.ndarray]:
    """The stored MiniLM vector of each step of the trace on ``line`` of ``path``, by its text.

    Empty when the file's folder has no meaning index, or the index predates the file's text.
    """
    file = Path(path).resolve()
    if not (file.parent / INDEX_FOLDER / "meaning.usearch").exists():
        return {}  # no meaning index here: nothing is created for asking
    store = StepStore(file.parent)
    try:
        ids = {f: i for i, f in store.ids([file]).items()}
        file_id = ids.get(file)
        if file_id is None:
            return {}
        meaning = MeaningIndex(store)
        if meaning.stale({file_id: file}) or not meaning.path.exists():
            return {}
        rows = store.db.execute(
            "SELECT id, text FROM steps WHERE file = ? AND line = ? ORDER BY id", (file_id, line)
        ).fetchall()
        index = meaning._viewed()
        if not rows or index is None:
            return {}
        keys = np.array([key for key, _ in rows], dtype=np.uint64)
        found = index.get(keys, dtype=np.float32)
        return {
            text: np.asarray(vector, dtype=np.float32)
            for (_, text), vector in zip(rows, found, strict=True)
            if vector is not None
        }
    finally:
        store.close()


def _unit(vector: Any) -> np.ndarray:
    row = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(row))
    return row / norm if norm > 0 else row
