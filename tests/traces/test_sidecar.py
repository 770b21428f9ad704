"""Sidecar names: one module builds them, and every reader and the workbench use it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from llenvs.analysis import analysis_path
from llenvs.traces import Sidecar, branches_path, is_sidecar, sidecar_path
from llenvs.traces.files import skipped_path
from llenvs.workbench.files import TRACE_LINE, trace_files

LLENVS = Path(__file__).resolve().parents[2] / "llenvs"


@pytest.mark.parametrize("kind", list(Sidecar))
def test_each_sidecar_sits_beside_its_trace_file(tmp_path, kind):
    path = sidecar_path(tmp_path / "runs.jsonl", kind)
    assert path == tmp_path / f"runs.{kind.value}.jsonl" and is_sidecar(path)
    assert sidecar_path("runs.json", kind).name == f"runs.json.{kind.value}.jsonl"


def test_the_named_paths_are_the_modules_own():
    assert branches_path("a/runs.jsonl") == sidecar_path("a/runs.jsonl", Sidecar.BRANCHES)
    assert analysis_path("a/runs.jsonl") == sidecar_path("a/runs.jsonl", Sidecar.ANALYSIS)
    assert skipped_path("a/runs.jsonl") == sidecar_path("a/runs.jsonl", Sidecar.SKIPPED)
    assert branches_path("a/runs.branches.jsonl").name == "runs.branches.jsonl"  # its own


def test_the_workbench_lists_no_sidecar_of_any_kind_as_a_trace_file(tmp_path):
    (tmp_path / "runs.jsonl").write_bytes(TRACE_LINE)
    for kind in Sidecar:
        sidecar_path(tmp_path / "runs.jsonl", kind).write_bytes(TRACE_LINE)
    assert [p.name for p in trace_files(tmp_path)] == ["runs.jsonl"]


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module's module, classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            for statement in node.body:  # attribute docstrings too: a string statement
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    found.add(id(statement.value))
    return found


def test_no_other_module_spells_a_sidecar_name_in_code():
    suffixes = tuple(kind.suffix for kind in Sidecar)
    found = []
    for path in sorted(LLENVS.rglob("*.py")):
        if path.name == "sidecar.py":
            continue
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and " " not in node.value  # a name or a piece of one, not prose (help text)
                and any(suffix in node.value for suffix in suffixes)
            ):
                found.append(f"{path.relative_to(LLENVS)}:{node.lineno}: {node.value!r}")
    assert found == []
