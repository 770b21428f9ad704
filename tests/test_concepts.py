"""The concept map of docs/architecture.md holds: each concept's name, its face, its one module.

A reader of the tour finds a concept's module in that table; this keeps the table true as
modules move (a renamed module, a name dropped from a face, a concept defined somewhere else).
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from tests.conftest import REPO

ROW = re.compile(
    r"^\| (?P<concept>[^|]+) \| `(?P<face>[\w.]+)` \| `(?P<module>[\w/.]+)` \| `(?P<name>\w+)` \|$"
)


def _rows() -> list[dict[str, str]]:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Where each concept lives", 1)[1].split("\n## ", 1)[0]
    return [m.groupdict() for line in section.splitlines() if (m := ROW.match(line))]


def test_the_map_lists_the_concepts():
    assert len(_rows()) >= 40


@pytest.mark.parametrize("row", _rows(), ids=lambda row: row["name"])
def test_each_concept_is_exported_by_its_face_and_defined_in_its_module(row):
    face = importlib.import_module(row["face"])
    assert row["name"] in face.__all__, f"{row['face']} does not export {row['name']}"
    defined = inspect.getsourcefile(getattr(face, row["name"]))
    assert defined is not None
    assert defined == str(REPO / row["module"]), f"{row['name']} is defined in {defined}"
