"""The view Browse opens when nothing chose one, as a traces folder declares it.

A traces folder may hold ``llenvs-browse.json``: the trace file (a name in the folder), the
trace in it (its line) and the segment Browse opens when its URL names no file, with a line
saying why (shown under the file choice). The sample folder declares its 321-step Thought
Anchors trace at the step where the published values fall most, so the first trace a new user
reads is a real R1-distill trace with real step values. A folder without the file opens its
first trace file by name, at its first trace. A file the URL names, or one picked in the
sidebar, always wins; so does a traces folder of one's own (it declares nothing unless its
owner writes the file).

Example:
    >>> import json, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> browse_default(folder) is None
    True
    >>> _ = (folder / "runs.jsonl").write_text("")
    >>> _ = (folder / DEFAULT_VIEW_FILE).write_text(json.dumps(
    ...     {"file": "runs.jsonl", "trace": 2, "segment": 5, "about": "The long one."}))
    >>> found = browse_default(folder)
    >>> Path(found.location.file).name, found.location.line, found.location.segment, found.about
    ('runs.jsonl', 2, 5, 'The long one.')

"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llenvs.workbench._browse_location import BrowseLocation
from llenvs.workbench.files._trace_roots import inside_roots

__all__ = ["DEFAULT_VIEW_FILE", "BrowseDefault", "browse_default"]

DEFAULT_VIEW_FILE = "llenvs-browse.json"
"""The file, in a traces folder, that declares the view Browse opens by default."""


@dataclass(frozen=True)
class BrowseDefault:
    """The view a traces folder declares for Browse to open, and why.

    Example:
        >>> BrowseDefault(BrowseLocation("a.jsonl", 3, 10), "Its largest step.").location.line
        3

    """

    location: BrowseLocation
    """The file (its path, the folder's included), the trace's line and the segment."""
    about: str = ""
    """Why this view: one line shown beside the file choice (empty: nothing shown)."""


def browse_default(folder: str | os.PathLike[str]) -> BrowseDefault | None:
    """The view ``folder``'s ``llenvs-browse.json`` declares; None when it declares none.

    ``file`` (required) is a trace file's name in ``folder``; ``trace`` (a line, from 1) and
    ``segment`` (from 0) are optional: the first trace shown, segment 0. A declaration that
    cannot be followed (not JSON, a field of the wrong type, a file outside ``folder`` or not
    there) is a ``ValueError`` naming the declaring file and what is wrong.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / DEFAULT_VIEW_FILE).write_text('{"file": "gone.jsonl"}')
        >>> browse_default(folder)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../llenvs-browse.json: its file `gone.jsonl` is not a file in ...
        >>> _ = (folder / DEFAULT_VIEW_FILE).write_text('{"file": "a.jsonl", "trace": 0}')
        >>> browse_default(folder)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: .../llenvs-browse.json: `trace` must be a line number (from 1), got 0

    """
    path = Path(folder) / DEFAULT_VIEW_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a readable JSON object ({error})") from error
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    name = data.get("file")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{path}: `file` must name a trace file in {folder}, got {name!r}")
    line = _whole(path, data, "trace", 1, "a line number (from 1)")
    segment = _whole(path, data, "segment", 0, "a segment index (from 0)")
    about = data.get("about", "")
    if not isinstance(about, str):
        raise ValueError(f"{path}: `about` must be text, got {about!r}")
    file = Path(folder) / name
    try:
        inside_roots(file, [Path(folder)])
    except PermissionError as error:
        raise ValueError(f"{path}: its file `{name}` lies outside {folder}") from error
    if not file.is_file():
        raise ValueError(f"{path}: its file `{name}` is not a file in {folder}")
    return BrowseDefault(BrowseLocation(str(file), line, segment or 0), about)


def _whole(path: Path, data: dict[str, Any], field: str, least: int, what: str) -> int | None:
    """``data[field]`` when it is a whole number at least ``least``; None when absent."""
    value = data.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{path}: `{field}` must be {what}, got {value!r}")
    return value
