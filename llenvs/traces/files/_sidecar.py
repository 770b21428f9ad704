"""The files beside a trace file ``X.jsonl``: what each holds, and the one place they are named.

Each sidecar is append-only and read by one library reader: ``X.branches.jsonl``
(interventions, ``llenvs.traces.files``), ``X.analysis.jsonl`` (rollouts and forced answers,
``llenvs.analysis.sidecar``), ``X.labels.jsonl`` (human step labels),
``X.experiment.jsonl`` (a recipe and its branches' outcomes), and ``X.skipped.jsonl`` (the
unreadable lines an evaluation set aside). Every path to one of them is built here.

Example:
    >>> sidecar_path("out/runs.jsonl", Sidecar.ANALYSIS).as_posix()
    'out/runs.analysis.jsonl'
    >>> is_sidecar("out/runs.labels.jsonl"), is_sidecar("out/runs.jsonl")
    (True, False)

"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path

__all__ = ["Sidecar", "analysis_path", "branches_path", "is_sidecar", "sidecar_path"]


class Sidecar(Enum):
    """A kind of file kept beside a trace file (its value names it: ``X.<value>.jsonl``).

    Example:
        >>> Sidecar.BRANCHES.suffix, [s.value for s in Sidecar][:2]
        ('.branches.jsonl', ['branches', 'analysis'])

    """

    BRANCHES = "branches"
    """Interventions on the file's traces, each a trace naming its parent."""
    ANALYSIS = "analysis"
    """Rounds of rollouts and forced-answer curves, under the key they were made with."""
    LABELS = "labels"
    """Human step labels with labeller, time and history (never written into traces)."""
    EXPERIMENT = "experiment"
    """A recipe and the outcomes of its branches."""
    SKIPPED = "skipped"
    """The unreadable lines an evaluation moved out of its results file."""

    @property
    def suffix(self) -> str:
        """The end of the sidecar's file name.

        Example:
            >>> Sidecar.LABELS.suffix
            '.labels.jsonl'

        """
        return f".{self.value}.jsonl"


def sidecar_path(trace_path: str | os.PathLike[str], kind: Sidecar) -> Path:
    """The ``kind`` sidecar of a trace file: ``<stem>.<kind>.jsonl`` in the same folder.

    ``runs.jsonl`` gives ``runs.<kind>.jsonl``; any other name gets the suffix appended. A
    branches file is its own branches sidecar, so branches of branches sit beside their parents
    in one file (and a branch opened in Browse finds its children).

    Example:
        >>> sidecar_path("runs.json", Sidecar.BRANCHES).name
        'runs.json.branches.jsonl'
        >>> sidecar_path("runs.branches.jsonl", Sidecar.BRANCHES).name
        'runs.branches.jsonl'
        >>> sidecar_path("runs.branches.jsonl", Sidecar.ANALYSIS).name
        'runs.branches.analysis.jsonl'

    """
    path = Path(trace_path)
    if kind is Sidecar.BRANCHES and path.name.endswith(kind.suffix):
        return path
    stem = path.stem if path.suffix == ".jsonl" else path.name
    return path.with_name(f"{stem}{kind.suffix}")


def branches_path(trace_path: str | os.PathLike[str]) -> Path:
    """The branches sidecar of a trace file (``sidecar_path(path, Sidecar.BRANCHES)``).

    Example:
        >>> branches_path("out/runs.jsonl").as_posix()
        'out/runs.branches.jsonl'

    """
    return sidecar_path(trace_path, Sidecar.BRANCHES)


def analysis_path(trace_path: str | os.PathLike[str]) -> Path:
    """The analysis sidecar of a trace file (``sidecar_path(path, Sidecar.ANALYSIS)``).

    Example:
        >>> analysis_path("out/runs.jsonl").name, analysis_path("runs.json").name
        ('runs.analysis.jsonl', 'runs.json.analysis.jsonl')

    """
    return sidecar_path(trace_path, Sidecar.ANALYSIS)


def is_sidecar(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a sidecar (of any kind) rather than a trace file.

    Example:
        >>> [is_sidecar(f"a.{s.value}.jsonl") for s in Sidecar], is_sidecar("a.jsonl")
        ([True, True, True, True, True], False)

    """
    return Path(path).name.endswith(tuple(kind.suffix for kind in Sidecar))
