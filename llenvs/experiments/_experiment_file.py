"""The experiment file ``NAME.experiment.jsonl``: the recipe on line 1, then one line per branch.

Line 1 records the recipe verbatim with the parents' file and the experiment's id; each later
line is one finished branch (``BranchOutcome``), appended whole under the file's lock, so a
killed run loses no finished branch and a torn last line is skipped with a warning naming the
file and line. Running the same recipe on the same parents again resumes: the branches already
recorded are kept. A file made by another recipe (or for other parents) is refused, never mixed.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.experiments._parent_filter import ParentFilter
    >>> from llenvs.experiments._recipe import Recipe
    >>> from llenvs.experiments._where import EveryBoundary
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> path = experiment_path(folder / "runs.jsonl")
    >>> path.name
    'runs.experiment.jsonl'
    >>> recipe = Recipe("r", ParentFilter(), EveryBoundary(), COMPLETE)
    >>> header = start_experiment(path, recipe, folder / "runs.jsonl")
    >>> start_experiment(path, recipe, folder / "runs.jsonl") == header
    True
    >>> read_experiment(path)[1]
    []

"""

from __future__ import annotations

import json
import os
import secrets
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from llenvs.core import (
    RECORD,
    JsonLineError,
    Text,
    parse_json_line,
    read_record,
    record_dict,
)
from llenvs.experiments._branch_outcome import BranchKey, BranchOutcome
from llenvs.experiments._experiment_error import ExperimentError
from llenvs.experiments._recipe import Recipe
from llenvs.traces.files import (
    Sidecar,
    append_lines_atomically,
    file_lock,
    sidecar_path,
    write_lines_atomically,
)

__all__ = [
    "EXPERIMENT_VERSION",
    "ExperimentHeader",
    "append_outcome",
    "experiment_path",
    "read_experiment",
    "read_header",
    "start_experiment",
]

EXPERIMENT_VERSION: Final = 1
"""The version of the experiment file's layout."""


@dataclass(frozen=True)
class ExperimentHeader:
    """Line 1 of an experiment file (``read_header`` reads it)."""

    __pydantic_config__ = RECORD

    kind: Literal["experiment"] = field(default="experiment", kw_only=True, repr=False)
    """``experiment``: the line is the header."""
    experiment_version: Literal[1] = field(default=EXPERIMENT_VERSION, kw_only=True)
    """The version of the file's layout (``EXPERIMENT_VERSION``)."""
    recipe: Recipe
    """The recipe, verbatim."""
    parents_file: Text
    """The trace file the parents come from, relative to the experiment's folder (older files:
    absolute)."""
    experiment_id: Text
    """A random id, written into each branch trace's metadata (``experiment``)."""
    created_at: Text
    """When the experiment began (UTC, ISO 8601)."""


def read_header(data: object) -> ExperimentHeader:
    """The header of line 1's JSON value: its kind and layout version checked first.

    A later layout's fields may differ: such a line is named as a newer llenvs's, not read.
    Every layout so far is 1, so no older one needs upgrading.

    Example:
        >>> read_header({"kind": "branch"})
        Traceback (most recent call last):
        ...
        ValueError: line 1 is not an experiment header (its kind is 'branch', not 'experiment')
        >>> read_header({"kind": "experiment", "experiment_version": 2})
        Traceback (most recent call last):
        ...
        ValueError: unknown experiment_version 2: this llenvs reads 1 (a newer llenvs wrote it)
        >>> read_header({"kind": "experiment", "experiment_version": 1})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: header.recipe: missing

    """
    fields = data if isinstance(data, dict) else {}
    kind, version = fields.get("kind"), fields.get("experiment_version")
    if kind != "experiment":
        raise ValueError(
            f"line 1 is not an experiment header (its kind is {kind!r}, not 'experiment')"
        )
    if version != EXPERIMENT_VERSION or isinstance(version, bool):
        raise ValueError(
            f"unknown experiment_version {version!r}: this llenvs reads {EXPERIMENT_VERSION} "
            "(a newer llenvs wrote it)"
        )
    return read_record(ExperimentHeader, data, "header")


def experiment_path(out: str | os.PathLike[str]) -> Path:
    """The experiment file of ``out``: itself when named ``*.experiment.jsonl``, else its sidecar.

    Example:
        >>> experiment_path("a/hint.experiment.jsonl").name, experiment_path("a/hint").name
        ('hint.experiment.jsonl', 'hint.experiment.jsonl')

    """
    path = Path(out)
    if path.name.endswith(Sidecar.EXPERIMENT.suffix):
        return path
    return sidecar_path(path, Sidecar.EXPERIMENT)


def start_experiment(
    path: str | os.PathLike[str],
    recipe: Recipe,
    parents_file: str | os.PathLike[str],
    *,
    overwrite: bool = False,
) -> ExperimentHeader:
    """The header of ``path``: written now for a new file, read back (and checked) otherwise.

    An existing file made by another recipe or for another parents' file is refused
    (``ExperimentError``), so a resumed run never mixes two experiments; ``overwrite``
    replaces it (atomically) with a new experiment instead.
    """
    target = Path(path)
    parents = Path(parents_file).resolve()
    with file_lock(target):
        if not overwrite and target.exists() and target.stat().st_size > 0:
            header, _ = read_experiment(target)
            if header.recipe != recipe or recorded_parents(target, header.parents_file) != parents:
                raise ExperimentError(
                    f"{target} holds another experiment (recipe {header.recipe.name!r} on "
                    f"{header.parents_file}): choose another -o, or start it again with --overwrite"
                )
            return header
        created = datetime.now(UTC).isoformat(timespec="seconds")
        # relative to the experiment's folder: the two move together (a checkout elsewhere)
        relative = os.path.relpath(parents, target.resolve().parent)
        header = ExperimentHeader(recipe, relative, secrets.token_hex(8), created)
        write_lines_atomically(target, [_line(header)])
        return header


def recorded_parents(path: str | os.PathLike[str], recorded: str) -> Path:
    """The parents' file an experiment at ``path`` records, as an absolute path.

    Recorded relative to the experiment's folder (files written before: absolute; a moved
    absolute one that is gone, the file of that name beside the experiment).

    Example:
        >>> recorded_parents("/x/out/a.experiment.jsonl", "../runs.jsonl").as_posix()
        '/x/runs.jsonl'
        >>> recorded_parents("/x/a.experiment.jsonl", "/gone/runs.jsonl").as_posix()
        '/x/runs.jsonl'

    """
    folder = Path(path).resolve().parent
    where = Path(recorded)
    if not where.is_absolute():
        return (folder / where).resolve()
    return where if where.exists() else folder / where.name


def append_outcome(path: str | os.PathLike[str], outcome: BranchOutcome) -> None:
    """Append one finished branch's line (whole, under the file's lock)."""
    append_lines_atomically(path, [_line(outcome)])


def read_experiment(path: str | os.PathLike[str]) -> tuple[ExperimentHeader, list[BranchOutcome]]:
    """The header and the recorded branches (the first record of a branch kept).

    A malformed line after the first is skipped with a warning naming the file and line; a
    malformed first line is an ``ExperimentError`` naming them.
    """
    target = Path(path)
    if not target.exists():
        raise ExperimentError(f"{target}: no such experiment file")
    raw = target.read_bytes().splitlines()
    if not raw:
        raise ExperimentError(f"{target}: the experiment file is empty")
    try:
        header = read_header(parse_json_line(raw[0], first=True))
    except (JsonLineError, ValueError) as error:
        raise ExperimentError(f"{target}:1: {error}") from None
    outcomes: dict[BranchKey, BranchOutcome] = {}
    for number, line in enumerate(raw[1:], start=2):
        if not line.strip():
            continue
        try:
            outcome = read_record(BranchOutcome, parse_json_line(line), "branch")
        except (JsonLineError, ValueError) as error:
            warnings.warn(f"{target}:{number}: skipped: {error}", stacklevel=2)
            continue
        outcomes.setdefault(outcome.key, outcome)
    return header, list(outcomes.values())


def _line(record: ExperimentHeader | BranchOutcome) -> bytes:
    return (json.dumps(record_dict(record), ensure_ascii=False) + "\n").encode("utf-8")
