r"""The label store of a trace file: human step labels in ``X.labels.jsonl``, beside ``X.jsonl``.

Labels never go into trace files, so sharing a trace file shares no labels; exporting them is
an explicit act (``llenvs export FILE --labels LABELLER``). The store is append-only: one
``StepLabel`` per line (``{"trace_id", "segment", "label", "labeller", "note", "time",
"previous"}``), appended whole under the file's lock (``file_lock``), so labellers in several
processes (two app sessions, an import) never lose one another's lines. The latest line of a
labeller on a step wins (``Labels.latest``); the lines before it are its history
(``Labels.changes``). ``read_labels`` never raises on a bad line: it skips it, records file,
line and why in ``Labels.skipped``, and warns once.

Example:
    >>> import tempfile, os
    >>> trace_file = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> append_labels(trace_file, [StepLabel("t1", 0, 1, "ada"), StepLabel("t1", 1, -1, "ada")])
    2
    >>> append_labels(trace_file, [StepLabel("t1", 1, 0, "ada", note="fine after all")])
    1
    >>> labels = read_labels(trace_file)
    >>> {s: l.label for s, l in labels.latest("ada")["t1"].items()}
    {0: 1, 1: 0}
    >>> [(c.label, c.previous) for c in labels.changes("t1", 1)]
    [(-1, None), (0, -1)]
    >>> labels_path(trace_file).name
    'runs.labels.jsonl'

**As read** (``Labels``): every line in order, and the lines skipped.

The history is the file's order (appends are serialised by the file's lock), so "latest" means
the last line, whatever the clocks of the machines that wrote them said.

Example:
    >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 0, -1, "ada", previous=1),
    ...                  StepLabel("t", 1, 1, "bo")))
    >>> labels.labellers(), labels.latest("ada")["t"][0].label
    (('ada', 'bo'), -1)
    >>> [change.label for change in labels.changes("t", 0)]
    [1, -1]

"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from llenvs.core import BOM, JsonLineError, parse_json_line, read_record, record_dict
from llenvs.traces.files import Sidecar, SkippedLine, file_lock, limited_lines, sidecar_path
from llenvs.traces.labels._label import StepLabel
from llenvs.traces.records import TraceFormatError

SHOWN_SKIPS = 3


"""How many skipped lines the one warning of ``read_labels`` names before a count."""


FEW_TRACES = 16


"""An append labelling at most this many traces reads only their lines of the store (found by
their ids' bytes, unparsed otherwise); a bigger one (an import) reads every line."""


def labels_path(trace_file: str | os.PathLike[str]) -> Path:
    """The labels file of a trace file (``sidecar_path(trace_file, Sidecar.LABELS)``).

    Example:
        >>> labels_path("out/runs.jsonl").as_posix()
        'out/runs.labels.jsonl'

    """
    return sidecar_path(trace_file, Sidecar.LABELS)


def label_line(label: StepLabel) -> bytes:
    r"""One label as one line of JSON (UTF-8, newline-terminated).

    Example:
        >>> label_line(StepLabel("t", 0, 1, "ada", time="2025-01-01T00:00:00+00:00"))
        b'{"trace_id": "t", "segment": 0, "label": 1, "labeller": "ada", "note": "", "time": "2025-01-01T00:00:00+00:00", "previous": null}\n'

    """  # noqa: E501
    return (json.dumps(record_dict(label), ensure_ascii=False) + "\n").encode("utf-8")


def append_labels(trace_file: str | os.PathLike[str], labels: Iterable[StepLabel]) -> int:
    """Append ``labels`` to the labels file of ``trace_file``; the number of lines written.

    Every label is checked before anything is written (a ``StepLabel`` checks its values when
    made; anything else is a ``TypeError``). Under the file's lock, each label's ``previous``
    is set to its labeller's latest label of that step (from the file, then from the labels
    before it in ``labels``) and an empty ``time`` to now (UTC); the lines are then appended in
    one write, flushed and synced. A torn last line left by an interrupted writer is closed
    with a newline first, so it stays a line of its own (and is skipped when read).

    Example:
        >>> import tempfile, os
        >>> trace_file = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> append_labels(trace_file, [StepLabel("t", 0, 1, "ada"), StepLabel("t", 0, None, "ada")])
        2
        >>> [(l.label, l.previous) for l in read_labels(trace_file).history]
        [(1, None), (None, 1)]
        >>> append_labels(trace_file, [{"trace_id": "t"}])
        Traceback (most recent call last):
        ...
        TypeError: append_labels takes StepLabel values, got dict

    """
    return _append(trace_file, labels, keep_known=True)


def append_new_labels(trace_file: str | os.PathLike[str], labels: Iterable[StepLabel]) -> int:
    """``append_labels`` for the labels the store does not hold yet; the number written.

    A label whose labeller's latest label of that step is the same (label and note) is left
    out, so an import given twice stores its labels once; a label that differs is appended
    (the file's labels changed since), and becomes the latest.

    Example:
        >>> import tempfile, os
        >>> trace_file = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> imported = [StepLabel("t", 0, 1, "processbench"), StepLabel("t", 1, -1, "processbench")]
        >>> append_new_labels(trace_file, imported), append_new_labels(trace_file, imported)
        (2, 0)

    """
    return _append(trace_file, labels, keep_known=False)


def _append(
    trace_file: str | os.PathLike[str], labels: Iterable[StepLabel], *, keep_known: bool
) -> int:
    """Append ``labels`` (those the store does not hold, unless ``keep_known``) under the lock."""
    given = list(labels)
    for label in given:
        if not isinstance(label, StepLabel):
            raise TypeError(f"append_labels takes StepLabel values, got {type(label).__name__}")
    if not given:
        return 0
    path = labels_path(trace_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(path), open(path, "a+b") as handle:
        traces = {label.trace_id for label in given}
        needles = _needles(traces) if len(traces) <= FEW_TRACES else None
        current = {_key(label): label for label in _read(path, None, needles)[0]}
        now = datetime.now(UTC).isoformat()
        lines = []
        for label in given:
            key = _key(label)
            known = current.get(key)
            if not keep_known and known is not None and _same(known, label):
                continue
            previous = None if known is None else known.label
            filled = dataclasses.replace(label, time=label.time or now, previous=previous)
            current[key] = filled
            lines.append(label_line(filled))
        if not lines:
            return 0
        data = b"".join(lines)
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                data = b"\n" + data
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return len(lines)


def read_labels(
    trace_file: str | os.PathLike[str], trace_ids: Collection[str] | None = None
) -> Labels:
    r"""The labels of ``trace_file`` (from its labels file); empty when it has none.

    Never raises on a bad line: a line that is not JSON (by ``llenvs.core``'s
    rules; a torn last line too), that is not a label (a missing or unknown field, a wrong
    type, a label outside -1, 0, 1 and null, an empty labeller, a negative segment) or, when
    ``trace_ids`` is given, that names a trace not among them, is skipped and recorded in
    ``Labels.skipped`` with file, line and why; one warning names them (the first
    ``SHOWN_SKIPS``, then a count), and the rest loads.

    Example:
        >>> import tempfile, os, warnings
        >>> trace_file = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> _ = append_labels(trace_file, [StepLabel("t1", 0, 1, "ada"), StepLabel("t9", 0, 1, "ada")])
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     labels = read_labels(trace_file, trace_ids={"t1"})
        >>> [l.trace_id for l in labels.history], [str(s).split(", ")[1] for s in labels.skipped]
        (['t1'], ["line 2: unknown trace id 't9' (not in the trace file)"])
        >>> len(caught)
        1

    """  # noqa: E501
    path = labels_path(trace_file)
    if not path.exists():
        return Labels(())
    known = None if trace_ids is None else frozenset(trace_ids)
    history, skipped = _read(path, known)
    if skipped:
        named = "; ".join(str(line) for line in skipped[:SHOWN_SKIPS])
        more = len(skipped) - SHOWN_SKIPS
        rest = f"; and {more} more" if more > 0 else ""
        plural = "" if len(skipped) == 1 else "s"
        warnings.warn(f"skipped {len(skipped)} line{plural} of {path}: {named}{rest}", stacklevel=2)
    return Labels(tuple(history), tuple(skipped))


def _read(
    path: Path, known: frozenset[str] | None, needles: tuple[bytes, ...] | None = None
) -> tuple[list[StepLabel], list[SkippedLine]]:
    """Every readable label of the labels file ``path``, and the lines skipped.

    ``needles``: only the lines holding one of them are read (the others are passed over
    unparsed, and not reported): an append reads only the lines of the traces it labels.
    """
    history: list[StepLabel] = []
    skipped: list[SkippedLine] = []
    shown = os.fspath(path)
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return history, skipped
    with handle:
        for number, _, raw, _ in limited_lines(handle, None):
            assert raw is not None  # no limit: every line is read
            if needles is not None and not any(needle in raw for needle in needles):
                continue
            label = label_of_line(raw, number, shown)
            if label is None:
                continue
            if isinstance(label, SkippedLine):
                skipped.append(label)
                continue
            if known is not None and label.trace_id not in known:
                reason = f"unknown trace id {label.trace_id!r} (not in the trace file)"
                skipped.append(SkippedLine(shown, number, reason))
                continue
            history.append(label)
    return history, skipped


def label_of_line(raw: bytes, number: int, path: str) -> StepLabel | SkippedLine | None:
    r"""Line ``number`` of the labels file ``path``: its label, why it is skipped, or None (blank).

    A line without its ``\n`` is a torn last line (an interrupted write), said so when skipped.

    Example:
        >>> label_of_line(b'{"trace_id": "t", "segment": 0, "label": 1, "labeller": "ada"}\n',
        ...               1, "x.labels.jsonl").labeller
        'ada'
        >>> label_of_line(b"  \n", 2, "x.labels.jsonl") is None
        True
        >>> print(label_of_line(b'{"trace_id": "t"', 3, "x.labels.jsonl"))  # doctest: +ELLIPSIS
        x.labels.jsonl, line 3: torn last line (an interrupted write): ...

    """
    if not raw.removeprefix(BOM if number == 1 else b"").strip():
        return None
    torn = not raw.endswith(b"\n")
    try:
        return read_record(
            StepLabel, parse_json_line(raw, first=number == 1), "label", TraceFormatError
        )
    except (JsonLineError, TraceFormatError) as error:
        reason = f"torn last line (an interrupted write): {error}" if torn else str(error)
        return SkippedLine(path, number, reason, torn=torn)


def _needles(trace_ids: Iterable[str]) -> tuple[bytes, ...]:
    """The bytes a line labelling one of ``trace_ids`` holds: its id as a JSON string.

    Both spellings: as ``label_line`` writes it, and with non-ASCII characters escaped.
    """
    found = set()
    for trace_id in trace_ids:
        found.add(json.dumps(trace_id, ensure_ascii=False).encode("utf-8"))
        found.add(json.dumps(trace_id).encode("ascii"))
    return tuple(sorted(found))


def _key(label: StepLabel) -> tuple[str, str, int]:
    """What one labeller's latest label is kept under: labeller, trace id, segment."""
    return (label.labeller, label.trace_id, label.segment)


def _same(stored: StepLabel, label: StepLabel) -> bool:
    """Whether ``label`` says what ``stored`` says (its label and note)."""
    return (stored.label, stored.note) == (label.label, label.note)


@dataclass(frozen=True)
class Labels:
    """What a labels file holds: every label line in file order, and the lines skipped.

    Example:
        >>> Labels(()).labellers(), Labels(()).latest("ada")
        ((), {})

    """

    history: tuple[StepLabel, ...]
    """Every label line, in file order (a later line on the same step of the same labeller
    replaces the earlier one; both stay here)."""
    skipped: tuple[SkippedLine, ...] = ()
    """The lines that could not be read (file, line, why), in order."""

    def labellers(self) -> tuple[str, ...]:
        """Everyone who labelled a step here, in the order they first appear.

        Example:
            >>> Labels((StepLabel("t", 0, 1, "bo"), StepLabel("t", 0, 1, "ada"),
            ...         StepLabel("u", 0, 1, "bo"))).labellers()
            ('bo', 'ada')

        """
        return tuple(dict.fromkeys(label.labeller for label in self.history))

    def latest(self, labeller: str) -> dict[str, dict[int, StepLabel]]:
        """``trace_id -> segment -> label``: each step's latest label by ``labeller``.

        Steps whose latest line clears the label are left out, and so are traces left with no
        labelled step. Traces and segments come in the order they were first labelled.

        Example:
            >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada"),
            ...                  StepLabel("t", 0, None, "ada", previous=1)))
            >>> {t: sorted(steps) for t, steps in labels.latest("ada").items()}
            {'t': [1]}

        """
        found: dict[str, dict[int, StepLabel]] = {}
        for label in self.history:
            if label.labeller == labeller:
                found.setdefault(label.trace_id, {})[label.segment] = label
        kept = {
            trace_id: {segment: label for segment, label in steps.items() if not label.cleared}
            for trace_id, steps in found.items()
        }
        return {trace_id: steps for trace_id, steps in kept.items() if steps}

    def changes(self, trace_id: str, segment: int) -> tuple[StepLabel, ...]:
        """The history of one step: every label line on it, by any labeller, in file order.

        Example:
            >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada"),
            ...                  StepLabel("t", 0, -1, "bo")))
            >>> [(c.labeller, c.label) for c in labels.changes("t", 0)]
            [('ada', 1), ('bo', -1)]

        """
        return tuple(
            label
            for label in self.history
            if label.trace_id == trace_id and label.segment == segment
        )
