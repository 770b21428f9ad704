"""Nothing in ``llenvs`` imports a layer above its own, not even at run time.

The import-time tests (``tests/core/test_import_isolation.py``,
``tests/analysis/test_plan_and_layers.py``) see only what importing a package loads. An import
inside a function, ``importlib.import_module("llenvs...")``, ``__import__`` or a
``"llenvs.x.y:factory"`` path kept to import later is invisible to them until it runs, so this
test reads every module's source instead and checks each of those against the layer order of
``DESIGN.md``: core < inference, rewards, traces, adapters < evaluation < analysis < ui, cli.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "llenvs"

RANK = {
    "tiktoken_cache": 0,
    "core": 0,
    "inference": 1,
    "rewards": 1,
    "traces": 1,
    "adapters": 1,
    "evaluation": 2,
    "analysis": 3,
    "experiments": 3,
    "ui": 4,
    "cli": 4,
}
"""The layer of each top-level part of ``llenvs`` (higher may import lower, never the reverse)."""

ALLOWED = {("llenvs.core.registry", "llenvs.adapters")}
"""DESIGN.md: "The registry resolves adapters lazily by name" (the guide's
``environment_registry`` comes with the built-in adapters named)."""

MODULE_PATH = re.compile(r"llenvs(?:\.\w+)+(?::\w+)?")
IMPORTERS = {"import_module", "__import__"}


@dataclass(frozen=True)
class Reference:
    """One module naming another: where, how, and what."""

    source: str
    line: int
    how: str
    target: str


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, source: str, is_package: bool) -> str:
    """The module an ``ImportFrom`` names, relative imports resolved against ``source``."""
    if node.level == 0:
        return node.module or ""
    base = source.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _references(path: Path) -> list[Reference]:
    """Every import (at any depth), import by string, and kept module path in ``path``."""
    return _scan(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")


def _scan(text: str, source: str, is_package: bool) -> list[Reference]:
    """``_references`` of the source ``text`` of module ``source``, in line order."""
    tree = ast.parse(text)
    found: list[Reference] = []
    top_level = {id(node) for node in tree.body}
    named = set()  # the strings given to an importer, reported as that call
    for node in ast.walk(tree):
        where = "top-level import" if id(node) in top_level else "nested import"
        if isinstance(node, ast.Import):
            found += [Reference(source, node.lineno, where, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, source, is_package)
            found.append(Reference(source, node.lineno, where, module))
        elif isinstance(node, ast.Call):
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else None
            name = function.id if isinstance(function, ast.Name) else name
            if name in IMPORTERS and node.args and isinstance(node.args[0], ast.Constant):
                target = node.args[0].value
                if isinstance(target, str):
                    found.append(Reference(source, node.lineno, f"{name}()", target))
                    named.add(id(node.args[0]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in named:
                continue
            if MODULE_PATH.fullmatch(node.value):
                target = node.value.partition(":")[0]
                found.append(Reference(source, node.lineno, "module path string", target))
    return sorted(found, key=lambda r: r.line)


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "llenvs" and len(parts) > 1 else None


def _upward(references: list[Reference]) -> list[str]:
    """The references that name a layer above their own, as readable lines."""
    wrong = []
    for ref in references:
        here, there = _layer(ref.source), _layer(ref.target)
        if here is None or there is None or there not in RANK:
            continue
        if (ref.source, f"llenvs.{there}") in ALLOWED:
            continue
        if RANK[there] > RANK[here]:
            wrong.append(f"{ref.source}:{ref.line} ({ref.how}) -> {ref.target}")
    return wrong


def test_every_part_of_llenvs_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    parts -= {"__init__", "__pycache__", "py"}
    assert sorted(p for p in parts if p not in RANK) == []


def test_no_module_imports_a_layer_above_its_own_at_any_time():
    references = [r for path in sorted(PACKAGE.rglob("*.py")) for r in _references(path)]
    assert _upward(references) == []


def test_the_scan_sees_imports_made_at_run_time():
    text = (
        "import importlib\n"
        "from llenvs.core import Action\n"
        "PATHS = {'mc': 'llenvs.analysis.monte_carlo_prm:make_prm'}\n"
        "def f():\n"
        "    from llenvs.evaluation import run_trajectory\n"
        "    from ..ui import pages\n"
        "    importlib.import_module('llenvs.cli.main')\n"
        "    __import__('llenvs.analysis')\n"
    )
    references = _scan(text, "llenvs.rewards.example", is_package=False)
    assert _upward(references) == [
        "llenvs.rewards.example:3 (module path string) -> llenvs.analysis.monte_carlo_prm",
        "llenvs.rewards.example:5 (nested import) -> llenvs.evaluation",
        "llenvs.rewards.example:6 (nested import) -> llenvs.ui",
        "llenvs.rewards.example:7 (import_module()) -> llenvs.cli.main",
        "llenvs.rewards.example:8 (__import__()) -> llenvs.analysis",
    ]
