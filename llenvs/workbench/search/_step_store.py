"""The step index of a folder: every step of its trace files, in SQLite, kept beside them.

``.llenvs-search/steps.sqlite`` in a traces folder holds one row per step of each trace file in
that folder (its file, its trace's line as ``--trace`` counts, its segment index, its text and
its facts, ``StepFacts``) and an FTS5 index of the texts (the ``trigram`` tokenizer: a query
finds any substring, in any case, as ``grep -i -F`` would). A file's rows are rebuilt only
when the file or its label or analysis sidecar changed (size and modification time), in one
transaction, so a reader never sees half a file; a file gone from the folder loses its rows.

A step's row id is its file's id times 2**32 plus its place in the file: a file rebuilt with
the same texts keeps its ids, and the meaning index (``MeaningIndex``) its vectors.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import write_traces
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_traces(folder / "t.jsonl", [leg_counting_trace("Cows have 4 legs. So 8.")])
    >>> store = StepStore(folder)
    >>> store.refresh([folder / "t.jsonl"])
    1
    >>> [(r.line, r.step, r.text) for r in store.text_rows("LEGS", store.ids([folder / "t.jsonl"]))]
    [(1, 0, 'Cows have 4 legs. ')]
    >>> store.refresh([folder / "t.jsonl"])  # nothing changed: nothing read
    0

"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from llenvs.workbench.search._step_facts import (
    FACT_FIELDS,
    StepFacts,
    facts_signature,
    file_facts,
)
from llenvs.workbench.search._where import Where

__all__ = ["INDEX_FOLDER", "STEP_BITS", "StepRow", "StepStore", "file_signature"]

INDEX_FOLDER = ".llenvs-search"
"""The hidden folder beside the trace files that holds their step index and meaning index."""

STEP_BITS = 32
"""A step's id is ``file id << STEP_BITS | its place in the file``."""

_COLUMNS = ", ".join(f'"{name}"' for name in FACT_FIELDS)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, text_sig TEXT, facts_sig TEXT,
    steps INTEGER NOT NULL DEFAULT 0, embedded_sig TEXT, embedded_steps INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS steps(
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, line INTEGER NOT NULL, step INTEGER NOT NULL,
    text TEXT NOT NULL, {", ".join(f'"{n}"' for n in FACT_FIELDS)});
CREATE VIRTUAL TABLE IF NOT EXISTS texts USING fts5(
    text, content='steps', content_rowid='id', tokenize='trigram');
"""


@dataclass(frozen=True)
class StepRow:
    """One step as the index holds it."""

    id: int
    """Its id in the index (file id and place)."""
    file: Path
    """The trace file."""
    line: int
    """Its trace's line in the file (from 1, as ``--trace`` counts)."""
    step: int
    """The segment's index in its trace."""
    text: str
    """The segment's text."""
    facts: StepFacts
    """Its numbers and names."""


def file_signature(path: str | os.PathLike[str]) -> str:
    """The size and modification time of ``path`` ("-" when it is missing).

    Example:
        >>> file_signature("/no/such.jsonl")
        '-'

    """
    try:
        stat = os.stat(path)
    except OSError:
        return "-"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


class StepStore:
    """The step index of one folder (``folder/.llenvs-search/steps.sqlite``)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        """The traces folder it indexes."""
        self.path = self.folder / INDEX_FOLDER / "steps.sqlite"
        """The SQLite file."""
        self.path.parent.mkdir(exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self.db.create_function("regexp", 2, _regexp, deterministic=True)

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def refresh(
        self,
        files: Sequence[Path],
        progress: Callable[[int, int, Path], None] | None = None,
        *,
        prune: bool = False,
    ) -> int:
        """Rebuild the rows of each of ``files`` that changed; how many were rebuilt.

        ``progress(done, total, file)`` is called before each file; ``prune`` drops the rows
        of files of the folder not in ``files`` (when ``files`` are all of its trace files).
        """
        known = {
            name: (text, facts)
            for name, text, facts in self.db.execute("SELECT name, text_sig, facts_sig FROM files")
        }
        rebuilt = 0
        for done, path in enumerate(files):
            if progress is not None:
                progress(done, len(files), path)
            signatures = (file_signature(path), facts_signature(path))
            if known.get(path.name) != signatures:
                self._rebuild(path, *signatures)
                rebuilt += 1
        if prune:
            names = {p.name for p in files}
            for (name,) in list(self.db.execute("SELECT name FROM files")):
                if name not in names:
                    with self.db:
                        self._forget(self._file_id(name))
                        self.db.execute("DELETE FROM files WHERE name = ?", (name,))
        return rebuilt

    def ids(self, files: Iterable[Path]) -> dict[int, Path]:
        """The index's id of each of ``files`` it holds."""
        wanted = {Path(p).name: Path(p) for p in files}
        return {
            file_id: wanted[name]
            for file_id, name in self.db.execute("SELECT id, name FROM files")
            if name in wanted
        }

    def text_rows(
        self, query: str, files: dict[int, Path], where: Where | None = None
    ) -> Generator[StepRow, None, None]:
        """The steps of ``files`` whose text holds ``query`` (any case), in file order."""
        where = where or Where.parse("")
        scope = ",".join(str(i) for i in files) or "NULL"
        if len(query) >= 3:  # the trigram index finds substrings of three characters or more
            phrase = '"' + query.replace('"', '""') + '"'
            sql = (
                f"SELECT s.id, s.file, s.line, s.step, s.text, {_prefixed('s')} FROM texts t "
                f"JOIN steps s ON s.id = t.rowid WHERE texts MATCH ? AND s.file IN ({scope}) "
                f"AND {where.sql} ORDER BY t.rowid"
            )
            yield from self._rows(sql, (phrase, *where.params), files)
            return
        sql = (
            f"SELECT id, file, line, step, text, {_COLUMNS} FROM steps WHERE file IN ({scope}) "
            f"AND instr(lower(text), lower(?)) > 0 AND {where.sql} ORDER BY id"
        )
        yield from self._rows(sql, (query, *where.params), files)

    def regex_rows(
        self, pattern: re.Pattern[str], files: dict[int, Path], where: Where | None = None
    ) -> Generator[StepRow, None, None]:
        """The steps of ``files`` in which ``pattern`` finds a match, in file order."""
        where = where or Where.parse("")
        scope = ",".join(str(i) for i in files) or "NULL"
        sql = (
            f"SELECT id, file, line, step, text, {_COLUMNS} FROM steps WHERE file IN ({scope}) "
            f"AND {where.sql} AND regexp(?, text) ORDER BY id"
        )
        _PATTERNS[pattern.pattern] = pattern
        yield from self._rows(sql, (*where.params, pattern.pattern), files)

    def rows(
        self, ids: Sequence[int], files: dict[int, Path], where: Where | None = None
    ) -> list[StepRow]:
        """The rows of ``ids`` that are in ``files`` and pass ``where``, in the order of ``ids``."""
        where = where or Where.parse("")
        found: dict[int, StepRow] = {}
        for start in range(0, len(ids), 500):
            chunk = ",".join(str(int(i)) for i in ids[start : start + 500])
            sql = (
                f"SELECT id, file, line, step, text, {_COLUMNS} FROM steps WHERE id IN ({chunk}) "
                f"AND {where.sql}"
            )
            found.update((row.id, row) for row in self._rows(sql, where.params, files))
        return [found[int(i)] for i in ids if int(i) in found]

    def step_count(self, files: dict[int, Path]) -> int:
        """How many steps ``files`` hold."""
        scope = ",".join(str(i) for i in files) or "NULL"
        return int(
            self.db.execute(f"SELECT count(*) FROM steps WHERE file IN ({scope})").fetchone()[0]
        )

    def _rows(
        self, sql: str, params: tuple[object, ...], files: dict[int, Path]
    ) -> Generator[StepRow, None, None]:
        cursor = self.db.execute(sql, params)
        try:
            for row in cursor:
                facts = dict(zip(FACT_FIELDS, row[5:], strict=True))
                success = facts["success"]
                facts["success"] = None if success is None else bool(success)
                path = files.get(row[1])
                if path is not None:
                    yield StepRow(row[0], path, row[2], row[3], row[4], StepFacts(**facts))
        finally:
            cursor.close()

    def _file_id(self, name: str) -> int:
        found = self.db.execute("SELECT id FROM files WHERE name = ?", (name,)).fetchone()
        if found is not None:
            return int(found[0])
        return int(self.db.execute("INSERT INTO files(name) VALUES (?)", (name,)).lastrowid or 0)

    def _forget(self, file_id: int) -> None:
        """Drop a file's rows and their texts' index entries (inside a transaction)."""
        self.db.execute(
            "INSERT INTO texts(texts, rowid, text) SELECT 'delete', id, text FROM steps "
            "WHERE file = ?",
            (file_id,),
        )
        self.db.execute("DELETE FROM steps WHERE file = ?", (file_id,))

    def _rebuild(self, path: Path, text_sig: str, facts_sig: str) -> None:
        rows: list[tuple[object, ...]] = []
        with self.db:
            file_id = self._file_id(path.name)
        base = file_id << STEP_BITS
        for line, trace, facts in file_facts(path):
            for segment, fact in zip(trace.segments, facts, strict=True):
                values = [getattr(fact, name) for name in FACT_FIELDS]
                rows.append((base + len(rows), file_id, line, segment.index, segment.text, *values))
        marks = ", ".join("?" * (5 + len(FACT_FIELDS)))
        with self.db:
            self._forget(file_id)
            self.db.executemany(f"INSERT INTO steps VALUES ({marks})", rows)
            self.db.execute(
                "INSERT INTO texts(rowid, text) SELECT id, text FROM steps WHERE file = ?",
                (file_id,),
            )
            self.db.execute(
                "UPDATE files SET text_sig = ?, facts_sig = ?, steps = ? WHERE id = ?",
                (text_sig, facts_sig, len(rows), file_id),
            )


_PATTERNS: dict[str, re.Pattern[str]] = {}
"""The compiled patterns ``regexp`` finds by their text (``regex_rows`` puts each in)."""


def _regexp(pattern: str, text: str) -> bool:
    compiled = _PATTERNS.get(pattern) or _PATTERNS.setdefault(pattern, re.compile(pattern))
    return compiled.search(text) is not None


def _prefixed(alias: str) -> str:
    return ", ".join(f'{alias}."{name}"' for name in FACT_FIELDS)
