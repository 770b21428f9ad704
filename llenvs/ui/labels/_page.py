r"""The Labels page's panels: the file, what its label store holds, and which labellers to compare.

The file is chosen as in Browse: the URL's ``?file=`` (checked against the traces folders) or
the sidebar's pick among the traces folder's files; with neither, the file with the largest
label store (the most labels: a few labelled in Browse do not hide a labelled dataset). A
labels file's unreadable lines are named (file, line, why) above the rest, which loads; a file
without labels says so and how to get some.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name, text in (("a.jsonl", ""), ("b.jsonl", ""), ("c.jsonl", ""),
    ...                    ("b.labels.jsonl", "{}\n"), ("c.labels.jsonl", "{}\n{}\n")):
    ...     _ = (folder / name).write_text(text)
    >>> Path(most_labelled([str(folder / n) for n in ("a.jsonl", "b.jsonl", "c.jsonl")])).name
    'c.jsonl'

**A labelled file** (``LabelledFile``) is a trace file with its label store as the page reads
it: traces, lines and labels.

The traces come with the line each is on (Browse opens a trace by its line), and the labels
with the lines of the labels file that could not be read (``read_labels``: a line that is not
JSON, not a label, or names a trace the file does not hold is skipped, named, and the rest
loads). ``cached_labelled_file`` reads a file once per version of it and of its labels file.

Example:
    >>> import tempfile, os, warnings
    >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord, Trace
    >>> from llenvs.traces import append_labels, labels_path, write_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...           segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> _ = write_traces(path, [t]); _ = append_labels(path, [StepLabel(t.trace_id, 0, -1, "ada")])
    >>> _ = open(labels_path(path), "a").write("oops\n")
    >>> found = LabelledFile.read(path)
    >>> found.lines == {t.trace_id: 1}, found.labels.labellers(), found.labels.skipped[0].line
    (True, ('ada',), 2)

"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from llenvs.traces import Trace, TraceReader, labels_path, read_labels
from llenvs.traces.files import SkippedLine
from llenvs.traces.labels import Labels
from llenvs.ui.common import stamp, trace_file_box
from llenvs.workbench import count
from llenvs.workbench.files import resolve_trace_path, trace_files, traces_dir

__all__ = [
    "SHOWN_SKIPS",
    "LabelledFile",
    "by_labels",
    "cached_labelled_file",
    "choose_file",
    "choose_labellers",
    "most_labelled",
    "no_labels",
]


SHOWN_SKIPS = 10


"""How many unreadable lines of a labels file are named one by one."""


def most_labelled(files: Sequence[str]) -> str | None:
    """The one of ``files`` with the largest label store beside it, else the first; or None.

    Among label stores of one size, the first file's.

    Example:
        >>> most_labelled([]) is None, most_labelled(["/no/a.jsonl"])
        (True, '/no/a.jsonl')

    """
    sizes = {path: labels_path(path).stat().st_size for path in files if labels_path(path).exists()}
    if sizes:
        return max(sizes, key=lambda path: sizes[path])  # the first of the largest
    return files[0] if files else None


def by_labels(labels: Labels) -> list[str]:
    """The labellers, those who labelled the most steps first (ties: the store's order).

    Example:
        >>> from llenvs.traces import StepLabel
        >>> by_labels(Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 0, 1, "bo"),
        ...                   StepLabel("t", 1, 1, "bo"))))
        ['bo', 'ada']

    """
    steps = {name: sum(len(s) for s in labels.latest(name).values()) for name in labels.labellers()}
    return sorted(steps, key=lambda name: -steps[name])


def choose_file() -> str | None:
    """The sidebar's choice of trace file (the URL's ``file`` first); None when there is none.

    A URL naming a file outside the traces folders raises ``resolve_trace_path``'s
    ``PermissionError``, which names the folders.
    """
    files = [str(p) for p in trace_files(traces_dir())]
    wanted = st.query_params.get("file") or None
    if wanted is not None:
        resolve_trace_path(wanted)
        if wanted not in files:
            files.insert(0, wanted)
    current = wanted or most_labelled(files)
    if current is None:
        return None
    picked = trace_file_box(files, current)
    if picked != current:
        st.query_params.from_dict({"file": picked})
        st.rerun()
    return current


def no_labels(file: LabelledFile) -> bool:
    """Say what is wrong with the file's labels: unreadable lines, or none at all.

    True when there is no label to compare (the page stops there).
    """
    skipped = file.labels.skipped
    if skipped:
        named = "\n".join(f"- {line}" for line in skipped[:SHOWN_SKIPS])
        more = len(skipped) - SHOWN_SKIPS
        rest = f"\n- … and {count(more, 'more line')}" if more > 0 else ""
        st.warning(
            f"Skipped {count(len(skipped), 'line')} of `{labels_path(file.path)}` that could "
            f"not be read; the other labels are compared:\n{named}{rest}",
            icon=":material/warning:",
        )
    if file.skipped:
        st.caption(
            f"{count(len(file.skipped), 'line')} of the trace file could not be read "
            "(Browse lists them); their labels are left out."
        )
    if file.labels.labellers():
        return False
    st.info(
        f"`{Path(file.path).name}` has no step labels (its label store, "
        f"`{labels_path(file.path).name}`, holds none). Label steps in Browse's label mode "
        "(set your name as labeller in Settings), or import a ProcessBench or PRM800K step "
        "file, whose labels come with it (`llenvs import processbench FILE -o OUT`).",
        icon=":material/info:",
    )
    return True


def choose_labellers(file: LabelledFile) -> list[str]:
    """Which labellers to compare (every one at first), those with the most labels first."""
    there = by_labels(file.labels)
    return st.multiselect(
        "Labellers",
        there,
        default=there,
        key=f"labels-labellers-{file.path}",
        help="Each labeller's latest label of each step counts; every pair is compared, and "
        "every PRM's scores with each labeller",
    )


@dataclass(frozen=True)
class LabelledFile:
    """A trace file's traces (each with its line) and its labels."""

    path: str
    """The trace file."""
    traces: tuple[Trace, ...]
    """Its readable traces, in file order."""
    lines: dict[str, int]
    """Trace id -> the line it is on (from 1, as Browse numbers them)."""
    skipped: tuple[SkippedLine, ...]
    """The trace file's lines that could not be read."""
    labels: Labels
    """Its label store (``X.labels.jsonl``), the unreadable lines in ``labels.skipped``."""

    @classmethod
    def read(cls, path: str) -> LabelledFile:
        """Read ``path`` and its labels; the warnings of bad lines are kept, not raised.

        Example:
            >>> LabelledFile.read("/no/such.jsonl")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            FileNotFoundError: ...

        """
        reader = TraceReader(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the page shows what was skipped
            numbered = list(reader.numbered())
            traces = tuple(trace for _, trace in numbered)
            labels = read_labels(path, {t.trace_id for t in traces})
        return cls(
            path=path,
            traces=traces,
            lines={trace.trace_id: line for line, trace in numbered},
            skipped=tuple(reader.skipped),
            labels=labels,
        )


@st.cache_data(max_entries=4, show_spinner="Reading the traces and their labels…")
def _read(path: str, version: tuple[int, int], labels_version: tuple[int, int]) -> LabelledFile:
    del version, labels_version
    return LabelledFile.read(path)


def cached_labelled_file(path: str | os.PathLike[str]) -> LabelledFile:
    """``LabelledFile.read(path)``, read again when the file or its labels file changes.

    Example:
        >>> cached_labelled_file("/no/such.jsonl")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ...

    """
    path = str(path)
    return _read(path, stamp(path), stamp(str(labels_path(path))))
