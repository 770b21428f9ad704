"""Where the workbench finds trace files: the traces folder, uploads and imports into it.

The folder is ``$LLENVS_TRACES_DIR`` when set, else ``sample_traces`` in the working directory
(the repository root when the app runs from there); ``llenvs.workbench.files`` says
which other folders the app may open files in. Uploads and imports never replace a file:
each gets a name of its own.

Example:
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = save_upload(folder, "../runs.jsonl", TRACE_LINE)
    >>> [p.name for p in trace_files(folder)]
    ['runs.jsonl']

"""

from __future__ import annotations

import dataclasses
import itertools
import os
import re
import tempfile
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from llenvs.analysis.sidecar import (
    STUDY,
    read_all,
    thought_anchors_folders,
    write_thought_anchors,
)
from llenvs.rewards import ArithmeticPRM
from llenvs.rewards.prm import with_prm_scores
from llenvs.traces import (
    SkippedLine,
    TaskRecord,
    Trace,
    TraceFormatError,
    TraceImport,
    TraceReader,
    write_traces,
)
from llenvs.traces.files import is_sidecar, trace_line
from llenvs.traces.importers import INSPECT_FORMAT, InspectImport
from llenvs.traces.labels import append_new_labels
from llenvs.workbench.files._trace_roots import (
    DEFAULT_DIR,
    TRACES_DIR_ENV,
    inside_roots,
    traces_dir,
)

__all__ = [
    "DEFAULT_DIR",
    "TRACES_DIR_ENV",
    "ImportOutcome",
    "import_into",
    "save_upload",
    "shown_path",
    "trace_files",
    "traces_dir",
]


def shown_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a page shows it: no machine path where a shorter one says the same.

    Relative to the working folder when inside it, else with ``~`` for the home folder, else
    whole.

    Example:
        >>> shown_path(Path.cwd() / "sample_traces"), shown_path(Path.home() / "t").parts[0]
        (PosixPath('sample_traces'), '~')

    """
    full = Path(path).absolute()
    for base, shown in ((Path.cwd(), Path()), (Path.home(), Path("~"))):
        if full.is_relative_to(base) and full != base:
            return shown / full.relative_to(base)
    return full


def trace_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The trace files (``*.jsonl``, sidecars excluded) in ``folder``, by name.

    Sidecars (``llenvs.traces.files``: branches, shown with their parent; step analyses;
    labels; experiments; the lines an evaluation set aside) hold no traces of their own.

    A symlink that leads out of ``folder`` is left out: the app would refuse to open it.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp())
        >>> for name in ("a.jsonl", "a.branches.jsonl", "a.analysis.jsonl", "a.labels.jsonl"):
        ...     _ = (folder / name).write_text("")
        >>> [p.name for p in trace_files(folder)], trace_files("/no/such/folder")
        (['a.jsonl'], [])

    """
    path = Path(folder)
    if not path.is_dir():
        return []
    return sorted(
        p for p in path.glob("*.jsonl") if p.is_file() and not is_sidecar(p) and _inside(p, path)
    )


def save_upload(folder: str | os.PathLike[str], name: str, data: bytes) -> Path:
    r"""Save an uploaded trace file into ``folder`` under a safe version of its name; its path.

    An upload with no readable trace (random bytes, another format) is refused with a
    ``TraceFormatError`` saying what a trace file is and what its first bad line is, and
    nothing is saved. A file already there is never replaced: the same bytes uploaded again give
    the same file back (Streamlit hands the upload over on every rerun), other bytes get a free
    name (``runs-2.jsonl``, ``runs-3.jsonl``, ...).

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> save_upload(folder, "my run?.txt", TRACE_LINE).name
        'my_run_.txt.jsonl'
        >>> save_upload(folder, "garbage.jsonl", b"\x8f\x00 not a trace\n")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: garbage.jsonl holds no readable trace, so it was not saved: expected a llenvs trace file ...; line 1: ...

    """  # noqa: E501
    safe = _safe_name(Path(name).name) or "upload"
    stem = safe.removesuffix(".jsonl")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for target in _names(Path(folder), stem):
        if not target.exists():
            temporary = target.with_name(f".{target.name}.tmp")
            temporary.write_bytes(data)
            try:
                _check_traces(temporary, name)
            except TraceFormatError:
                temporary.unlink()
                raise
            temporary.replace(target)
            return target
        if _holds(target, data):
            return target
    raise AssertionError("unreachable: the names never run out")  # pragma: no cover


TRACE_LINE = trace_line(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()))
"""One line of a trace file: the smallest upload that holds a trace (for examples and tests)."""

EXPECTED_TRACES = (
    "expected a llenvs trace file (JSON Lines, one trace object per line with schema_version, "
    "task, response and segments, as llenvs evaluate writes it); to bring in another format "
    "use Import an outside file"
)
"""What an upload must be, said when it is not."""


def _check_traces(path: Path, name: str) -> None:
    """Refuse a file of ``name`` in which no line reads as a trace (its first bad line said)."""
    reader = TraceReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # said in the error, when no trace is readable
        if next(iter(reader), None) is not None:
            return
    first = reader.skipped[0] if reader.skipped else None
    bad = f"line {first.line}: {first.reason}" if first else "the file holds no line"
    shown = Path(name).name
    raise TraceFormatError(
        f"{shown} holds no readable trace, so it was not saved: {EXPECTED_TRACES}; {bad}"
    )


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
    labels: int = 0
    """Human step labels of the source put in the new file's label store (never in traces)."""
    notes: tuple[str, ...] = ()
    """What the import found beyond its traces (an Inspect log's redacted or absent reasoning,
    its scores kept as metadata), in words."""


def import_into(
    folder: str | os.PathLike[str],
    format: str,
    source: str | os.PathLike[str],
    *,
    score_arithmetic: bool = True,
) -> ImportOutcome:
    """Import ``source`` (in ``format``) into a new file ``imported-<name>.jsonl`` in ``folder``.

    For ``thought-anchors``, ``source`` is a problem folder, a folder above them, or a ``.zip``
    of them; the published step values go to the new file's analysis sidecar. For ``inspect``,
    an Inspect log (``.eval`` or ``.json``), read with Inspect's reader (``InspectImport``).

    A file of that name already there is kept: the import goes to ``imported-<name>-2.jsonl``
    (then ``-3``, ...). A source with no row that imports is refused with a
    ``TraceFormatError`` saying why, and nothing is written. With ``score_arithmetic``, every
    segment gets a ``prm`` score (ArithmeticPRM), as ``llenvs import --prm arithmetic`` gives it.
    The source's human step labels (step files) go to the new file's label store, not into
    its traces.

    Example:
        >>> import tempfile, json
        >>> folder = tempfile.mkdtemp()
        >>> src = os.path.join(folder, "chat.src")
        >>> _ = open(src, "w").write(json.dumps({"messages": [
        ...     {"role": "user", "content": "q"}, {"role": "assistant", "content": "1 + 1 = 2."}]}))
        >>> outcome = import_into(folder, "openai_chat", src)
        >>> outcome.path.name, outcome.count, import_into(folder, "openai_chat", src).path.name
        ('imported-chat.jsonl', 1, 'imported-chat-2.jsonl')
        >>> import_into(folder, "reasoning_gym", src)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: nothing to import: no row of chat.src reads as reasoning_gym (1 row(s) skipped; the first: ...chat.src, line 1: not a reasoning_gym row: ...); nothing was written

    """  # noqa: E501
    if format == STUDY:
        return _import_thought_anchors(Path(folder), Path(source), score_arithmetic)
    reader: TraceImport | InspectImport
    if format == INSPECT_FORMAT:
        reader = InspectImport(source)
    else:
        reader = TraceImport(format, source)
    prm = ArithmeticPRM()
    traces = (with_prm_scores(t, prm, "arithmetic") if score_arithmetic else t for t in reader)
    first = next(traces, None)
    if first is None:
        raise TraceFormatError(_nothing_imported(reader))
    stem = _safe_name(Path(source).stem) or "upload"
    target = next(p for p in _names(Path(folder), f"imported-{stem}") if not p.exists())
    count = write_traces(target, itertools.chain([first], traces))
    labels = append_new_labels(target, reader.labels)  # after the traces: none left behind
    notes = tuple(reader.summary.notes()) if isinstance(reader, InspectImport) else ()
    return ImportOutcome(target, count, tuple(reader.skipped), labels, notes)


def _import_thought_anchors(folder: Path, source: Path, score_arithmetic: bool) -> ImportOutcome:
    """Thought Anchors' folders (or a ``.zip`` of them) into ``imported-<name>.jsonl``."""
    with tempfile.TemporaryDirectory() as staging:
        if source.is_file() and zipfile.is_zipfile(source):
            with zipfile.ZipFile(source) as archive:
                archive.extractall(staging)  # names are kept inside ``staging``
            root = Path(staging)
        else:
            root = source
        imported = read_all(thought_anchors_folders(root))
    if score_arithmetic:
        prm = ArithmeticPRM()
        imported = [
            dataclasses.replace(item, trace=with_prm_scores(item.trace, prm, "arithmetic"))
            for item in imported
        ]
    stem = _safe_name(source.stem) or "thought-anchors"
    target = next(p for p in _names(folder, f"imported-{stem}") if not p.exists())
    written, _ = write_thought_anchors(target, imported)
    return ImportOutcome(target, len(written), ())


def _nothing_imported(reader: TraceImport | InspectImport) -> str:
    name = Path(reader.path).name
    if reader.skipped:
        why = f"{len(reader.skipped)} row(s) skipped; the first: {reader.skipped[0]}"
    else:
        why = "it has no rows"
    return (
        f"nothing to import: no row of {name} reads as {reader.format} ({why}); nothing was written"
    )


def _safe_name(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name).lstrip(".")


def _names(folder: Path, stem: str) -> Iterator[Path]:
    """``folder/<stem>.jsonl``, then ``<stem>-2.jsonl``, ``<stem>-3.jsonl``, ..."""
    yield folder / f"{stem}.jsonl"
    for number in itertools.count(2):
        yield folder / f"{stem}-{number}.jsonl"


def _holds(path: Path, data: bytes) -> bool:
    """True when ``path`` is a file whose bytes are ``data``."""
    return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data


def _inside(path: Path, folder: Path) -> bool:
    try:
        inside_roots(path, [folder])
    except PermissionError:
        return False
    return True
