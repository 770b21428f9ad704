r"""A responses file: canned responses for the scripted backend, one JSON value per line.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = p.write_text('"One."\n')
    >>> read_responses(p)
    [(None, 'One.')]

"""

from __future__ import annotations

from pathlib import Path

from llenvs.core import JsonLineError, parse_json_line

__all__ = ["read_responses"]


def read_responses(path: Path) -> list[tuple[int | None, str]]:
    r"""The responses of a JSONL file: ``(task_index or None, text)`` per line.

    A line is a JSON string, or an object with ``response`` (and optionally ``task_index``).
    Blank lines are skipped; any other line (not UTF-8, not JSON, another shape) is an error
    naming the file and line.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
        >>> _ = p.write_text('"One. Two."\n{"task_index": 4, "response": "Three."}\n')
        >>> read_responses(p)
        [(None, 'One. Two.'), (4, 'Three.')]

    """
    found: list[tuple[int | None, str]] = []
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{number}"
            try:
                value = parse_json_line(raw, first=number == 1)
            except JsonLineError as error:
                raise ValueError(f"{where}: {error}") from None
            if isinstance(value, str):
                found.append((None, value))
            elif isinstance(value, dict) and isinstance(value.get("response"), str):
                index = value.get("task_index")
                if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
                    raise ValueError(f"{where}: task_index must be an integer, got {index!r}")
                found.append((index, value["response"]))
            else:
                raise ValueError(
                    f"{where}: expected a JSON string or an object with a 'response' string"
                )
    return found
