"""``JsonlEventLog``: an evaluation's events, one JSON object per line, appended as they happen.

Each line is written and flushed at once, so a crash loses at most the line being written (a
torn last line, which readers skip). A ``step`` line's ``segment_index`` is 0-based, the
``index`` of the same segment in the run's traces.

Example:
    >>> import json, tempfile, pathlib
    >>> from llenvs.evaluation.episodes._events import RunEnded
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "logs" / "run.jsonl"
    >>> log = JsonlEventLog(path)
    >>> log(RunEnded(completed=1, succeeded=1, errors=0, seconds=0.1)); log.close()
    >>> json.loads(path.read_text())["event"]
    'end'

"""

from __future__ import annotations

import json
import os
from pathlib import Path

from llenvs.core import RunEvent
from llenvs.evaluation.episodes import event_record

__all__ = ["JsonlEventLog"]


class JsonlEventLog:
    """Appends events to ``path`` (its folder is created); a ``RunObserver``, ``close`` ends it.

    Example:
        >>> import tempfile, pathlib
        >>> JsonlEventLog(pathlib.Path(tempfile.mkdtemp()) / "e.jsonl").path.suffix
        '.jsonl'

    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def __call__(self, event: RunEvent) -> None:
        """Write one event as a line and flush it."""
        self._file.write(json.dumps(event_record(event), ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()
