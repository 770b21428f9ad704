"""The Search page's view model: hits as table rows with a Browse link, and the meaning build job.

``hit_table`` turns hits into the page's table: one row per step, its Browse link (``browse_url``:
Browse at that file, trace line and segment; ``label=True`` in label mode, where the label keys
label it), the snippet and the numbers. ``MeaningIndexJob`` builds the meaning index of some
paths on a worker (``BackgroundJob``) and keeps how far it got for the page's progress bar.

Example:
    >>> from llenvs.workbench.search._step_facts import StepFacts
    >>> hit = StepHit("/t/runs.jsonl", 3, 7, "So 4 legs.", "So 4 «legs».",
    ...               StepFacts("farm", "m", prm=0.25))
    >>> browse_url(hit)
    'browse?file=%2Ft%2Fruns.jsonl&trace=3&segment=7'
    >>> hit_table([hit])[["file", "trace", "step", "prm", "snippet"]].values.tolist()
    [['runs.jsonl', 3, 7, 0.25, 'So 4 «legs».']]

"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd

from llenvs.workbench import MODE_PARAM, BrowseLocation
from llenvs.workbench.jobs import BackgroundJob
from llenvs.workbench.search._label_queue import QueueEntry
from llenvs.workbench.search._meaning_index import MeaningBuild, MeaningProgress
from llenvs.workbench.search._step_hit import StepHit
from llenvs.workbench.search._step_search import build_meaning_index
from llenvs.workbench.search._step_store import StepStore

__all__ = ["HIT_COLUMNS", "MeaningIndexJob", "browse_url", "hit_table", "queue_labels"]

SHOWN_FACTS = (
    "prm", "reward", "label", "value", "importance", "moved", "tags", "success",
    "environment", "model", "labeller",
)  # fmt: skip
"""The facts in the table's order: the step's own numbers first, then its trace's."""

HIT_COLUMNS = ("open", "file", "trace", "step", "snippet", "score", *SHOWN_FACTS)
"""The table's columns, in order (``score`` only for a meaning search)."""


def browse_url(hit: StepHit, *, label: bool = False) -> str:
    """The app's link to Browse at ``hit``'s step (in label mode when ``label``)."""
    params = BrowseLocation(hit.file, hit.trace, hit.step).to_params()
    if label:
        params[MODE_PARAM] = "label"
    return f"browse?{urlencode(params)}"


def hit_table(hits: Sequence[StepHit], *, label: bool = False) -> pd.DataFrame:
    """One row per hit: its Browse link, file name, trace line, step, snippet and numbers."""
    rows = []
    for hit in hits:
        row: dict[str, object] = {
            "open": browse_url(hit, label=label),
            "file": Path(hit.file).name,
            "trace": hit.trace,
            "step": hit.step,
            "snippet": hit.snippet,
            "score": hit.score,
        }
        row.update({name: getattr(hit.facts, name) for name in SHOWN_FACTS})
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(HIT_COLUMNS))
    if all(hit.score is None for hit in hits):
        table = table.drop(columns="score")
    return table


class MeaningIndexJob(BackgroundJob):
    """``build_meaning_index(paths)`` on a worker; ``progress()`` says how far it got."""

    def __init__(self, paths: Sequence[str | os.PathLike[str]], *, session: str = "") -> None:
        super().__init__(name="llenvs-meaning-index", start=False, session=session)
        self.paths = tuple(paths)
        """What is embedded."""
        self.build: MeaningBuild | None = None
        """What the build did, once it ended."""
        self._progress = MeaningProgress(0, 0, 0, 0)
        self._lock = threading.Lock()
        self.start()

    def progress(self) -> MeaningProgress:
        """How far the build got."""
        with self._lock:
            return self._progress

    def _observe(self, progress: MeaningProgress) -> None:
        with self._lock:
            self._progress = progress

    def work(self) -> None:
        """Embed the steps not embedded yet; a stop ends it after the batch in hand."""
        self.build = build_meaning_index(self.paths, self._observe, lambda: self.stop_token.stopped)


def queue_labels(entries: Sequence[QueueEntry]) -> list[int | None]:
    """The latest label of each entry's step (None: not labelled yet), from the step index.

    The index is brought up to date first, so a label given in Browse a moment ago counts.
    """
    found: dict[tuple[str, int, int], int | None] = {}
    by_folder: dict[Path, set[Path]] = {}
    for entry in entries:
        path = Path(entry.file).resolve()
        by_folder.setdefault(path.parent, set()).add(path)
    for folder, files in by_folder.items():
        store = StepStore(folder)
        try:
            store.refresh(sorted(files))
            for file_id, path in store.ids(files).items():
                for line, step, label in store.db.execute(
                    "SELECT line, step, label FROM steps WHERE file = ?", (file_id,)
                ):
                    found[(str(path), line, step)] = label
        finally:
            store.close()
    return [found.get((str(Path(e.file).resolve()), e.trace, e.step)) for e in entries]
