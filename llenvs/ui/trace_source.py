"""Where the workbench finds trace files: the traces folder, uploads and imports into it.

The folder is ``$LLENVS_TRACES_DIR`` when set, else ``sample_traces`` in the working directory
(the repository root when the app runs from there).

Example:
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = save_upload(folder, "../runs.jsonl", b"")
    >>> [p.name for p in trace_files(folder)]
    ['runs.jsonl']

"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from llenvs.rewards import PRM_REWARD_NAME, ArithmeticPRM
from llenvs.traces import SkippedLine, TraceImport, write_traces
from llenvs.ui.trace_scoring import with_prm_scores

__all__ = [
    "TRACES_DIR_ENV",
    "ImportOutcome",
    "import_into",
    "save_upload",
    "trace_files",
    "traces_dir",
]

TRACES_DIR_ENV = "LLENVS_TRACES_DIR"
"""The environment variable that names the traces folder."""

DEFAULT_DIR = "sample_traces"
"""The traces folder when the environment variable is not set."""


def traces_dir() -> Path:
    """The traces folder: ``$LLENVS_TRACES_DIR``, else ``./sample_traces``.

    Example:
        >>> os.environ[TRACES_DIR_ENV] = "/tmp/t"; str(traces_dir())
        '/tmp/t'
        >>> del os.environ[TRACES_DIR_ENV]; str(traces_dir())
        'sample_traces'

    """
    return Path(os.environ.get(TRACES_DIR_ENV) or DEFAULT_DIR)


def trace_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The trace files (``*.jsonl``, branch sidecars excluded) in ``folder``, by name.

    Example:
        >>> trace_files("/no/such/folder")
        []

    """
    path = Path(folder)
    if not path.is_dir():
        return []
    return sorted(
        p for p in path.glob("*.jsonl") if p.is_file() and not p.name.endswith(".branches.jsonl")
    )


def save_upload(folder: str | os.PathLike[str], name: str, data: bytes) -> Path:
    """Save an uploaded file into ``folder`` under a safe version of its name; its path.

    Example:
        >>> import tempfile
        >>> save_upload(tempfile.mkdtemp(), "my run?.txt", b"{}").name
        'my_run_.txt.jsonl'

    """
    safe = re.sub(r"[^\w.-]", "_", Path(name).name) or "upload"
    if not safe.endswith(".jsonl"):
        safe += ".jsonl"
    target = Path(folder) / safe
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{safe}.tmp")
    temporary.write_bytes(data)
    temporary.replace(target)
    return target


@dataclass(frozen=True)
class ImportOutcome:
    """What an import wrote: the trace file, how many traces, the rows it skipped.

    Example:
        >>> ImportOutcome(Path("a.jsonl"), 3, ()).count
        3

    """

    path: Path
    """The trace file written."""
    count: int
    """Traces written."""
    skipped: tuple[SkippedLine, ...]
    """Rows of the source that could not be read."""


def import_into(
    folder: str | os.PathLike[str],
    format: str,
    source: str | os.PathLike[str],
    *,
    score_arithmetic: bool = True,
) -> ImportOutcome:
    """Import ``source`` (in ``format``) as ``imported-<name>.jsonl`` in ``folder``.

    With ``score_arithmetic``, every segment gets a ``prm`` score (ArithmeticPRM), as
    ``llenvs import --prm arithmetic`` gives it.

    Example:
        >>> import tempfile, json
        >>> folder = tempfile.mkdtemp()
        >>> src = os.path.join(folder, "chat.src")
        >>> _ = open(src, "w").write(json.dumps({"messages": [
        ...     {"role": "user", "content": "q"}, {"role": "assistant", "content": "1 + 1 = 2."}]}))
        >>> outcome = import_into(folder, "openai_chat", src)
        >>> outcome.path.name, outcome.count
        ('imported-chat.jsonl', 1)

    """
    reader = TraceImport(format, source)
    target = Path(folder) / f"imported-{Path(source).stem}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    prm = ArithmeticPRM()
    traces = (with_prm_scores(t, prm, PRM_REWARD_NAME) if score_arithmetic else t for t in reader)
    count = write_traces(target, traces)
    return ImportOutcome(target, count, tuple(reader.skipped))
