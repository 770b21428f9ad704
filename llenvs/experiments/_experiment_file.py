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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from llenvs.core import JsonLineError, parse_json_line
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
    "start_experiment",
]

EXPERIMENT_VERSION = 1
"""The version of the experiment file's layout."""


@dataclass(frozen=True)
class ExperimentHeader:
    """Line 1 of an experiment file."""

    recipe: Recipe
    """The recipe, verbatim."""
    parents_file: str
    """The trace file the parents come from, relative to the experiment's folder (older files:
    absolute)."""
    experiment_id: str
    """A random id, written into each branch trace's metadata (``experiment``)."""
    created_at: str
    """When the experiment began (UTC, ISO 8601)."""

    def to_record(self) -> dict[str, Any]:
        """The JSON object of line 1."""
        return {
            "kind": "experiment",
            "experiment_version": EXPERIMENT_VERSION,
            "experiment_id": self.experiment_id,
            "created_at": self.created_at,
            "parents_file": self.parents_file,
            "recipe": self.recipe.to_record(),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ExperimentHeader:
        """The header ``to_record`` wrote."""
        if record.get("kind") != "experiment":
            raise ValueError("line 1 is not an experiment header (its kind is not 'experiment')")
        return cls(
            Recipe.from_record(record["recipe"]),
            str(record["parents_file"]),
            str(record["experiment_id"]),
            str(record["created_at"]),
        )


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
        write_lines_atomically(target, [_line(header.to_record())])
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
    append_lines_atomically(path, [_line(outcome.to_record())])


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
        header = ExperimentHeader.from_record(parse_json_line(raw[0], first=True))
    except (JsonLineError, ValueError, KeyError, TypeError) as error:
        raise ExperimentError(f"{target}:1: {error}") from None
    outcomes: dict[BranchKey, BranchOutcome] = {}
    for number, line in enumerate(raw[1:], start=2):
        if not line.strip():
            continue
        try:
            outcome = BranchOutcome.from_record(parse_json_line(line))
        except (JsonLineError, ValueError, KeyError, TypeError) as error:
            warnings.warn(f"{target}:{number}: skipped: {error}", stacklevel=2)
            continue
        outcomes.setdefault(outcome.key, outcome)
    return header, list(outcomes.values())


def _line(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
