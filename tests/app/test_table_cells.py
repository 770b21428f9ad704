"""No table of the workbench shows a raw ``None``: every page walked on the sample traces.

Streamlit's dataframe draws a missing value as the word "None" unless told otherwise, and an
f-string of a missing answer writes it into a cell. Every page is opened on a copy of the
sample traces (with their sidecars, labels and experiments) in the states that fill its tables,
and every table is checked: a missing cell is drawn as ``MISSING``, no cell's text says None.
The source is checked too, so a table added later cannot leak one unseen.
"""

from __future__ import annotations

import ast
import json
import re
import shutil

import pandas as pd
import pytest

from llenvs.workbench import MISSING
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page

NONE_WORD = re.compile(r"\bNone\b")


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """A copy of the sample traces folder, sidecars, labels and experiments included."""
    folder = tmp_path_factory.mktemp("samples") / "traces"
    shutil.copytree(REPO / "sample_traces", folder)
    return folder


def _line_of(path, trace_id):
    """The line (from 1) of the trace ``trace_id`` in ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if json.loads(line)["trace_id"] == trace_id)


def _branched(folder, stem):
    """The line of the first parent the file's branches sidecar holds a branch of."""
    first = (folder / f"{stem}.branches.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return _line_of(folder / f"{stem}.jsonl", json.loads(first)["parent"]["parent_id"])


def _tables(at):
    """Each table the page shows, as its cells and the text it draws for a missing one."""
    for element in at.dataframe:
        cells = element.value
        cells = cells.data if hasattr(cells, "data") else cells  # a Styler's frame
        shown = element.proto.placeholder if element.proto.HasField("placeholder") else "None"
        yield pd.DataFrame(cells), shown


def _leaks(at, where):
    """Where the page's tables show None, and how many tables have a missing cell at all."""
    leaks, missing = [], 0
    for number, (cells, shown) in enumerate(_tables(at)):
        gaps = [c for c in cells.columns if cells[c].isna().any()]
        missing += bool(gaps)
        if gaps and shown != MISSING:
            leaks.append(f"{where}, table {number}: missing cells in {gaps} drawn as {shown!r}")
        for column in cells.columns:
            texts = [v for v in cells[column] if isinstance(v, str) and NONE_WORD.search(v)]
            if texts:
                leaks.append(f"{where}, table {number}, column {column!r}: {texts[0]!r}")
    return leaks, missing


def _plan(at):
    at.toggle(key="sv-plan").set_value(True).run()


def _experiment(number):
    def open_it(at):
        at.radio(key="xp-mode").set_value(at.radio(key="xp-mode").options[1]).run()
        box = at.selectbox(key="xp-open")
        box.set_value(box.options[number]).run()

    return open_it


VIEWS = {
    "home": ("home", {}, None, False),
    "browse the R1 trace, planning": (
        "browse",
        {"file": "thought_anchors-r1-distill-llama-8b.jsonl", "trace": "3", "segment": "158"},
        _plan,
        True,  # the step values: no forced answers, no importance past the end
    ),
    "browse branches": ("browse", {"file": "leg_counting-smollm2.jsonl"}, None, False),
    "browse stored step values and branches": (
        "browse",
        {"file": "products-smollm2.jsonl"},
        None,
        True,
    ),
    "compare": ("compare", {"file": "products-smollm2.jsonl"}, None, False),
    "compare runs": ("compare_runs", {}, None, False),
    "experiment 1": ("experiments", {}, _experiment(0), False),
    "experiment 2": ("experiments", {}, _experiment(1), False),
    "labels": ("labels", {"file": "processbench-prm800k.jsonl"}, None, True),  # no estimate
}
"""Each view walked: its page, its URL (files in the samples folder), what is done on it, and
whether it is known to show a missing value (so the walk meets some)."""


@pytest.mark.parametrize("view", VIEWS)
def test_no_table_shows_none(samples, monkeypatch, view):
    monkeypatch.setenv(TRACES_DIR_ENV, str(samples))
    page, params, then, has_missing = VIEWS[view]
    params = {k: str(samples / v) if k == "file" else v for k, v in params.items()}
    if page == "browse" and "trace" not in params:  # the first trace with branches
        params["trace"] = str(_branched(samples, params["file"].removesuffix(".jsonl")))
    at = open_page(page, **params)
    if then is not None:
        then(at)
    assert not at.exception, at.exception
    leaks, missing = _leaks(at, view)
    assert not leaks, "\n".join(leaks)
    assert at.dataframe and missing >= has_missing


def _dataframe_calls(path):
    """The ``st.dataframe`` calls of one source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "dataframe"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "st"
    ]


def test_every_table_in_the_source_draws_a_missing_value_as_missing():
    files = [
        *(REPO / "llenvs" / "ui").rglob("*.py"),
        *(REPO / "pages").glob("*.py"),
        REPO / "app.py",
    ]
    calls = [(path, call) for path in files for call in _dataframe_calls(path)]
    bare = [
        f"{path.relative_to(REPO)}:{call.lineno}"
        for path, call in calls
        if not any(
            k.arg == "placeholder" and isinstance(k.value, ast.Name) and k.value.id == "MISSING"
            for k in call.keywords
        )
    ]
    assert len(calls) >= 20 and not bare, f"st.dataframe without placeholder=MISSING: {bare}"
