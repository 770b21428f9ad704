"""Search steps by meaning: MiniLM embeddings of every step in a ``usearch`` vector index.

``.llenvs-search/meaning.usearch`` beside a folder's step index (``StepStore``) holds one
vector per step, keyed by the step's id, quantised to 8-bit integers (``i8``: 384 bytes a
vector, plus the graph), searched by cosine with usearch's HNSW graph. It is built file by file
(``MeaningIndex.build``): a file is embedded again only when its text changed (the step index
records which version of each file the vectors are of), the build reports its progress after
each batch, stops at a stop flag, and saves what it made (to a temporary file renamed over the
old one) every ``save_every`` seconds and when it ends, so a stopped build resumes where it was.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import write_traces
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_traces(folder / "t.jsonl", [leg_counting_trace("Cows have 4 legs. So 8.")])
    >>> store = StepStore(folder)
    >>> _ = store.refresh([folder / "t.jsonl"])
    >>> files = store.ids([folder / "t.jsonl"])
    >>> index = MeaningIndex(store, embed=lambda texts: np.array(
    ...     [[1.0, 0.0] if "legs" in t else [0.0, 1.0] for t in texts], dtype=np.float32))
    >>> index.build(files).embedded
    2
    >>> [(row.step, round(score, 2)) for row, score in index.query("legs", files, limit=1)]
    [(0, 1.0)]

"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from llenvs.workbench.search._step_store import STEP_BITS, StepRow, StepStore
from llenvs.workbench.search._where import Where

__all__ = ["BATCH", "MEANING_DTYPE", "MeaningBuild", "MeaningIndex", "MeaningProgress"]

MEANING_DTYPE = "i8"
"""How the vectors are stored: 8-bit integers (normalised vectors lose little; memory bounded)."""

BATCH = 512
"""Steps embedded between two progress reports (and two looks at the stop flag)."""

Embed = Callable[[Sequence[str]], Any]
"""Texts to their normalised embeddings, one row each (a numpy array or a torch tensor)."""


@dataclass(frozen=True)
class MeaningProgress:
    """How far a build got."""

    files_done: int
    """Files embedded so far in this build."""
    files: int
    """Files this build embeds (those whose text changed since their vectors were made)."""
    steps_done: int
    """Steps embedded so far in this build."""
    steps: int
    """Steps this build embeds."""


@dataclass(frozen=True)
class MeaningBuild:
    """What a build did."""

    embedded: int
    """Steps embedded."""
    files: int
    """Files embedded whole."""
    seconds: float
    """How long it took."""
    stopped: bool
    """Whether a stop ended it early (what it embedded is kept)."""


class MeaningIndex:
    """The meaning index of one folder's steps (see the module).

    Arguments:
        store: the folder's step index.
        embed: texts to normalised vectors; by default all-MiniLM-L6-v2 (``MiniLMSimilarity``),
            loaded on first use.

    """

    def __init__(self, store: StepStore, embed: Embed | None = None) -> None:
        self.store = store
        self.path = store.path.parent / "meaning.usearch"
        """The usearch file."""
        self._embed = embed
        self._view: tuple[str, Any] | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts`` as float32 rows."""
        if self._embed is None:
            from llenvs.analysis.instruments import MiniLMSimilarity

            model = MiniLMSimilarity(batch=128)
            self._embed = model.embed
        vectors = self._embed(list(texts))
        vectors = vectors.numpy() if hasattr(vectors, "numpy") else np.asarray(vectors)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def stale(self, files: dict[int, Path]) -> list[tuple[int, int]]:
        """``(file id, steps)`` of each of ``files`` whose vectors are missing or out of date."""
        scope = ",".join(str(i) for i in files) or "NULL"
        return [
            (int(file_id), int(steps))
            for file_id, steps in self.store.db.execute(
                f"SELECT id, steps FROM files WHERE id IN ({scope}) AND "
                "(embedded_sig IS NULL OR embedded_sig != text_sig) ORDER BY id"
            )
        ]

    def build(
        self,
        files: dict[int, Path],
        progress: Callable[[MeaningProgress], None] | None = None,
        stop: Callable[[], bool] | None = None,
        *,
        save_every: float = 30.0,
    ) -> MeaningBuild:
        """Embed the steps of each of ``files`` whose text changed; save as it goes (see module)."""
        began = time.perf_counter()
        todo = self.stale(files)
        total = sum(steps for _, steps in todo)
        index = self._load()
        pending: list[tuple[int, str, int]] = []
        saved, done, finished, stopped = time.perf_counter(), 0, 0, False
        for file_id, _ in todo:
            sig, old = self.store.db.execute(
                "SELECT text_sig, max(embedded_steps, steps) FROM files WHERE id = ?", (file_id,)
            ).fetchone()
            base = file_id << STEP_BITS
            if old:
                index.remove(np.arange(base, base + old, dtype=np.uint64))
            rows = self.store.db.execute(
                "SELECT id, text FROM steps WHERE file = ? ORDER BY id", (file_id,)
            ).fetchall()
            for start in range(0, len(rows), BATCH):
                if stop is not None and stop():
                    stopped = True
                    break
                chunk = rows[start : start + BATCH]
                keys = np.array([key for key, _ in chunk], dtype=np.uint64)
                index.add(keys, self.embed([text for _, text in chunk]))
                done += len(chunk)
                if progress is not None:
                    progress(MeaningProgress(finished, len(todo), done, total))
            if stopped:
                break
            finished += 1
            pending.append((file_id, sig, len(rows)))
            if time.perf_counter() - saved > save_every:
                self._save(index, pending)
                pending, saved = [], time.perf_counter()
        self._save(index, pending)
        return MeaningBuild(done, finished, time.perf_counter() - began, stopped)

    def query(
        self, text: str, files: dict[int, Path], where: Where | None = None, *, limit: int = 20
    ) -> list[tuple[StepRow, float]]:
        """The ``limit`` steps of ``files`` nearest ``text`` in meaning that pass ``where``.

        Each with its cosine similarity, the nearest first; steps of files not embedded yet
        are not among them (``stale`` says which).
        """
        index = self._viewed()
        if index is None or len(index) == 0 or limit <= 0:
            return []
        vector = self.embed([text])[0]
        wanted = limit * 4
        while True:
            count = min(wanted, len(index))
            found = index.search(vector, count)
            keys = [int(k) for k in found.keys]
            scores = {k: 1.0 - float(d) for k, d in zip(keys, found.distances, strict=True)}
            rows = self.store.rows(keys, files, where)
            if len(rows) >= limit or count >= len(index):
                return [(row, scores[row.id]) for row in rows[:limit]]
            wanted *= 8

    def _load(self) -> Any:
        from usearch.index import Index

        if self.path.exists():
            return Index.restore(str(self.path))
        return Index(ndim=self.embed(["a"]).shape[1], metric="cos", dtype=MEANING_DTYPE)

    def _viewed(self) -> Any:
        """The saved index, memory-mapped (read again only when the file changed)."""
        from usearch.index import Index

        if not self.path.exists():
            return None
        stat = self.path.stat()
        sig = f"{stat.st_size}:{stat.st_mtime_ns}"
        if self._view is None or self._view[0] != sig:
            self._view = (sig, Index.restore(str(self.path), view=True))
        return self._view[1]

    def _save(self, index: Any, pending: list[tuple[int, str, int]]) -> None:
        """Write the index through a temporary file, then record which files it now holds."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        index.save(str(temporary))
        os.replace(temporary, self.path)
        with self.store.db:
            self.store.db.executemany(
                "UPDATE files SET embedded_sig = ?, embedded_steps = ? WHERE id = ?",
                [(sig, steps, file_id) for file_id, sig, steps in pending],
            )
