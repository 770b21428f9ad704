"""Step-file rows as a Hugging Face ``datasets`` dataset on disk (``save_to_disk``), and back.

``llenvs export --format hf`` writes one; ``llenvs import hf FOLDER`` reads it. The columns are
``HF_FEATURES``: the trace id, the dataset and row id, the generator, the problem, the steps,
their labels (-1, 0, 1 or null), the first wrong step, the labeller, and the answer fields.
``datasets`` is imported only here, when a dataset is written or read.

Example:
    >>> import tempfile, os
    >>> folder = os.path.join(tempfile.mkdtemp(), "labels.hf")
    >>> row = {"trace_id": "t1", "problem": "q", "steps": ["a", "b"], "labels": [1, -1],
    ...        "first_error_step": 1, "labeller": "ada"}
    >>> write_hf_dataset(folder, [row])
    1
    >>> [back] = [r.data for r in read_hf_rows(folder)]
    >>> back["steps"], back["labels"], back["labeller"], back["final_answer_correct"]
    (['a', 'b'], [1, -1], 'ada', None)

"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from llenvs.traces.files import file_lock
from llenvs.traces.importers._rows import Row
from llenvs.traces.records import TraceFormatError

__all__ = ["HF_COLUMNS", "hf_features", "read_hf_rows", "write_hf_dataset"]

HF_COLUMNS: dict[str, str] = {
    "trace_id": "string",
    "dataset": "string",
    "id": "string",
    "generator": "string",
    "problem": "string",
    "steps": "list of string",
    "labels": "list of int8",
    "first_error_step": "int64",
    "labeller": "string",
    "ground_truth_answer": "string",
    "final_answer": "string",
    "final_answer_correct": "bool",
}
"""The dataset's columns and their types (a row lacking one holds null there)."""


def hf_features() -> Any:
    """The ``datasets.Features`` of ``HF_COLUMNS`` (so an all-null column keeps its type).

    Example:
        >>> hf_features()["labels"]
        List(Value('int8'))

    """
    from datasets import Features, Sequence, Value

    features = {}
    for name, kind in HF_COLUMNS.items():
        inner = kind.removeprefix("list of ")
        features[name] = Sequence(Value(inner)) if inner != kind else Value(kind)
    return Features(features)


def write_hf_dataset(path: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]]) -> int:
    """Save ``rows`` as a dataset folder at ``path``, replacing what is there; their number.

    The dataset is saved to a temporary folder beside ``path`` and renamed to it under
    ``path``'s lock, so a failure leaves ``path`` as it was; an old ``path`` is moved aside
    first and removed after. A row's columns outside ``HF_COLUMNS`` are refused.

    Example:
        >>> import tempfile, os
        >>> write_hf_dataset(os.path.join(tempfile.mkdtemp(), "x"), [{"colour": "red"}])
        Traceback (most recent call last):
        ...
        ValueError: a dataset row has columns this format has no place for: colour

    """
    listed = []
    for row in rows:
        extra = sorted(set(row) - set(HF_COLUMNS))
        if extra:
            raise ValueError(
                f"a dataset row has columns this format has no place for: {', '.join(extra)}"
            )
        listed.append({name: row.get(name) for name in HF_COLUMNS})
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(target):
        staging = Path(
            tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        )
        try:
            _save(listed, staging)
            old = None
            if target.exists() or target.is_symlink():
                old = staging.with_name(staging.name.removesuffix(".tmp") + ".old")
                os.replace(target, old)
            os.replace(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if old is not None:
            _remove(old)
    return len(listed)


def read_hf_rows(path: str | os.PathLike[str]) -> Iterator[Row]:
    """The rows of the dataset folder ``path``, numbered from 1, as plain Python values.

    A folder that is not a saved dataset is a ``FileNotFoundError`` or ``TraceFormatError``
    naming it.

    Example:
        >>> import tempfile
        >>> list(read_hf_rows(tempfile.mkdtemp()))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ... is not a dataset saved by save_to_disk ...

    """
    from datasets import Dataset, load_from_disk

    folder = Path(path)
    if not (folder / "dataset_info.json").is_file():
        raise FileNotFoundError(
            f"{folder} is not a dataset saved by save_to_disk (no dataset_info.json in it): "
            "give the folder llenvs export --format hf wrote"
        )
    dataset = load_from_disk(os.fspath(folder))
    if not isinstance(dataset, Dataset):
        raise TraceFormatError(f"{folder}: a dataset of several splits; give one split's folder")
    for number, row in enumerate(dataset, start=1):
        yield Row(number, dict(row))


def _save(rows: list[dict[str, Any]], folder: Path) -> None:
    """Save ``rows`` with ``hf_features()`` into ``folder``, without progress bars."""
    from datasets import Dataset
    from datasets.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        Dataset.from_list(rows, features=hf_features()).save_to_disk(os.fspath(folder))
    finally:
        if shown:
            hf_logging.enable_progress_bar()


def _remove(path: Path) -> None:
    """Remove a file or folder (what an old output was)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
