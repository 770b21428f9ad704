r"""Search every step of the trace files under some paths: by text, by regex or by meaning.

``search_steps`` brings each folder's step index up to date (``StepStore.refresh``: only the
files that changed are read), then yields hits as the index finds them, so the first ones come
before the rest are looked for. A path is a trace file or a folder (its trace files and those
of its subfolders, hidden folders left out). Text and regex hits come in file, trace and step
order; meaning hits the nearest first, among the steps already embedded
(``build_meaning_index`` embeds the rest). ``where`` filters every kind (``Where``).

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import write_traces
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_traces(folder / "t.jsonl", [leg_counting_trace("Cows have 4 legs. So 8."),
    ...                                      leg_counting_trace("Birds have 2 legs. So 4.")])
    >>> [(h.trace, h.step, h.snippet) for h in search_steps([folder], "legs", where="prm > 0.5")]
    []
    >>> [(h.trace, h.snippet) for h in search_steps([folder], r"\d legs", SearchMode.REGEX)]
    [(1, 'Cows have «4 legs». '), (2, 'Birds have «2 legs». ')]
    >>> next(search_steps([folder], "(", SearchMode.REGEX))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.workbench.search.SearchError: --regex '(': missing ), unterminated subpattern at ...

"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from pathlib import Path

from llenvs.core.errors import LlenvsError
from llenvs.workbench.files import trace_files
from llenvs.workbench.search._meaning_index import MeaningBuild, MeaningIndex, MeaningProgress
from llenvs.workbench.search._step_hit import StepHit, snippet
from llenvs.workbench.search._step_store import INDEX_FOLDER, StepRow, StepStore
from llenvs.workbench.search._where import Where

__all__ = [
    "SearchError",
    "SearchMode",
    "build_meaning_index",
    "search_folders",
    "search_steps",
]


class SearchError(LlenvsError, ValueError):
    """A search that cannot run: a bad pattern, a missing path, a folder with no traces."""

    __module__ = "llenvs.workbench.search"


class SearchMode(Enum):
    """How the query is read."""

    TEXT = "text"
    """A piece of text found anywhere in a step, in any case."""
    REGEX = "regex"
    """A Python regular expression (``re.search``)."""
    MEANING = "meaning"
    """Steps nearest in meaning (all-MiniLM-L6-v2 embeddings), the nearest first."""


def search_folders(paths: Sequence[str | os.PathLike[str]]) -> dict[Path, list[Path]]:
    """The trace files ``paths`` name, by the folder whose index holds them.

    Example:
        >>> search_folders(["/no/such/folder"])
        Traceback (most recent call last):
        ...
        llenvs.workbench.search.SearchError: /no/such/folder does not exist

    """
    found: dict[Path, list[Path]] = {}
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.setdefault(path.parent.resolve(), []).append(path.resolve())
        elif path.is_dir():
            for folder in [path, *sorted(_subfolders(path))]:
                for file in trace_files(folder):
                    found.setdefault(folder.resolve(), []).append(file.resolve())
        else:
            raise SearchError(f"{path} does not exist")
    if not found:
        raise SearchError(f"no trace files (*.jsonl) in {', '.join(str(p) for p in paths)}")
    return {folder: sorted(set(files)) for folder, files in found.items()}


def search_steps(
    paths: Sequence[str | os.PathLike[str]],
    query: str,
    mode: SearchMode = SearchMode.TEXT,
    where: str | Where | None = None,
    *,
    limit: int | None = None,
) -> Iterator[StepHit]:
    """The steps under ``paths`` that ``query`` finds (see the module), up to ``limit``."""
    condition = where if isinstance(where, Where) else Where.parse(where or "")
    pattern = _pattern(query) if mode is SearchMode.REGEX else None
    if mode is not SearchMode.MEANING and not query:
        raise SearchError("the query is empty: give some text or a pattern")
    folders = search_folders(paths)
    found = (
        _meaning_hits(folders, query, condition, limit or 20)
        if mode is SearchMode.MEANING
        else _text_hits(folders, query, pattern, condition)
    )
    for count, hit in enumerate(found):
        if limit is not None and count >= limit:
            return
        yield hit


def build_meaning_index(
    paths: Sequence[str | os.PathLike[str]],
    progress: Callable[[MeaningProgress], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> MeaningBuild:
    """Embed the steps under ``paths`` not embedded yet (or whose text changed), by folder."""
    builds = []
    for folder, files in search_folders(paths).items():
        store = StepStore(folder)
        try:
            store.refresh(files, prune=_whole(folder, files))
            builds.append(MeaningIndex(store).build(store.ids(files), progress, stop))
        finally:
            store.close()
        if builds[-1].stopped:
            break
    return MeaningBuild(
        sum(b.embedded for b in builds),
        sum(b.files for b in builds),
        sum(b.seconds for b in builds),
        any(b.stopped for b in builds),
    )


def _pattern(query: str) -> re.Pattern[str]:
    try:
        return re.compile(query)
    except re.error as error:
        raise SearchError(f"--regex {query!r}: {error}") from None


def _text_hits(
    folders: dict[Path, list[Path]],
    query: str,
    pattern: re.Pattern[str] | None,
    where: Where,
) -> Iterator[StepHit]:
    for folder, files in folders.items():
        store = StepStore(folder)
        try:
            store.refresh(files, prune=_whole(folder, files))
            ids = store.ids(files)
            if pattern is not None:
                rows = store.regex_rows(pattern, ids, where)
                finder = pattern
            else:
                rows = store.text_rows(query, ids, where)
                finder = re.compile(re.escape(query), re.IGNORECASE)
            try:
                for row in rows:
                    match = finder.search(row.text)
                    yield _hit(row, None if match is None else match.span())
            finally:
                rows.close()  # its cursor, before the database it reads
        finally:
            store.close()


def _meaning_hits(
    folders: dict[Path, list[Path]], query: str, where: Where, limit: int
) -> Iterator[StepHit]:
    found: list[tuple[StepRow, float]] = []
    for folder, files in folders.items():
        store = StepStore(folder)
        try:
            store.refresh(files, prune=_whole(folder, files))
            found.extend(MeaningIndex(store).query(query, store.ids(files), where, limit=limit))
        finally:
            store.close()
    for row, score in heapq.nlargest(limit, found, key=lambda pair: pair[1]):
        yield _hit(row, None, score)


def _hit(row: StepRow, span: tuple[int, int] | None, score: float | None = None) -> StepHit:
    return StepHit(
        str(row.file), row.line, row.step, row.text, snippet(row.text, span), row.facts, score, span
    )


def _whole(folder: Path, files: list[Path]) -> bool:
    """Whether ``files`` are all of ``folder``'s trace files (then gone files are dropped)."""
    return {f.name for f in files} == {f.name for f in trace_files(folder)}


def _subfolders(path: Path) -> Iterator[Path]:
    for root, names, _ in os.walk(path):
        names[:] = [n for n in names if not n.startswith(".") and n != INDEX_FOLDER]
        for name in names:
            yield Path(root) / name
