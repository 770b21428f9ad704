"""Nothing in ``llenvs`` imports a layer above its own or beside it, not even at run time.

The import-time tests (``tests/core/test_import_isolation.py``,
``tests/analysis/test_plan_and_layers.py``) see only what importing a package loads. An import
inside a function, ``importlib.import_module("llenvs...")``, ``__import__`` or a
``"llenvs.x.y:factory"`` path kept to import later is invisible to them until it runs, so this
test reads every module's source instead and checks each of those against the floors of
``docs/architecture.md``: a package imports only from floors below its own, never from a
package above it or beside it on its floor. Streamlit is drawn by ``llenvs/ui`` and the pages
only, and the backends are reached through ``llenvs.inference``. The same reading keeps every
library file under ``MAX_LINES`` lines and every function under ``MAX_PARAMETERS`` parameters.
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
    "core": 1,
    "traces": 2,
    "adapters": 2,
    "inference": 2,
    "rewards": 3,
    "evaluation": 4,
    "analysis": 5,
    "experiments": 6,
    "workbench": 7,
    "cli": 8,
    "ui": 8,
}
"""The floor of each top-level part of ``llenvs``: a part imports only from lower floors (two
parts on one floor, such as ``cli`` and ``ui``, never import each other)."""

PRIVATE = {"llenvs.inference._backends": "llenvs.inference"}
"""Packages only their parent package imports: the backends are reached by name through
``llenvs.inference`` (``get_backend``, ``build_backend``, ``default_precision``)."""

STREAMLIT_PLACES = ("llenvs.ui", "app", "pages")
"""Where ``streamlit`` may be imported: the views and the pages (``llenvs.workbench`` and
every library below it run without it)."""

MAX_LINES = 400
"""The longest a library file may be: one concept per module (``STYLE.md``, rule 9)."""

MAX_PARAMETERS = 10
"""The most parameters a library function takes, ``self`` and ``cls`` not counted (``*args``
and ``**kwargs`` count one each): past that, related options become one small frozen value."""

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
    """The references that name a floor above their own or a part beside them, or a private
    package from outside its parent, as readable lines."""
    wrong = []
    for ref in references:
        line = f"{ref.source}:{ref.line} ({ref.how}) -> {ref.target}"
        for private, parent in PRIVATE.items():
            inside = ref.source == parent or ref.source.startswith(f"{parent}.")
            if _within(ref.target, private) and not inside:
                wrong.append(line)
        here, there = _layer(ref.source), _layer(ref.target)
        if here is None or there is None or there not in RANK or here == there:
            continue
        if RANK[there] >= RANK[here]:
            wrong.append(line)
    return wrong


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def _streamlit_outside_the_views(references: list[Reference]) -> list[str]:
    return [
        f"{ref.source}:{ref.line} ({ref.how}) -> {ref.target}"
        for ref in references
        if _within(ref.target, "streamlit")
        and not any(_within(ref.source, place) for place in STREAMLIT_PLACES)
    ]


def test_every_part_of_llenvs_has_a_layer():
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    parts -= {"__init__", "__pycache__", "py"}
    assert sorted(p for p in parts if p not in RANK) == []


def test_no_module_imports_a_layer_above_its_own_at_any_time():
    references = [r for path in sorted(PACKAGE.rglob("*.py")) for r in _references(path)]
    assert _upward(references) == []


def test_only_the_views_and_the_pages_import_streamlit():
    paths = [*PACKAGE.rglob("*.py"), REPO / "app.py", *(REPO / "pages").glob("*.py")]
    references = [r for path in sorted(paths) for r in _references(path)]
    assert any(r.source.startswith("llenvs.ui.") for r in references if r.target == "streamlit")
    assert _streamlit_outside_the_views(references) == []


def test_every_view_draws_with_streamlit():
    """``llenvs/ui`` holds only Streamlit views: what runs without Streamlit is a workbench
    module (``llenvs/workbench``)."""
    views = sorted((PACKAGE / "ui").rglob("*.py"))
    plain = [
        path.name
        for path in views
        if path.name != "__init__.py"
        and not any(_within(r.target, "streamlit") for r in _references(path))
    ]
    assert len(views) > 20 and plain == []


def test_the_scan_sees_imports_made_at_run_time():
    text = (
        "import importlib\n"
        "from llenvs.core import Action\n"
        "PATHS = {'mc': 'llenvs.analysis.instruments._monte_carlo_prm:make_prm'}\n"
        "def f():\n"
        "    from llenvs.evaluation import run_trajectory\n"
        "    from ..ui import pages\n"
        "    importlib.import_module('llenvs.cli.main')\n"
        "    __import__('llenvs.analysis')\n"
    )
    references = _scan(text, "llenvs.rewards.example", is_package=False)
    assert _upward(references) == [
        "llenvs.rewards.example:3 (module path string) -> "
        "llenvs.analysis.instruments._monte_carlo_prm",
        "llenvs.rewards.example:5 (nested import) -> llenvs.evaluation",
        "llenvs.rewards.example:6 (nested import) -> llenvs.ui",
        "llenvs.rewards.example:7 (import_module()) -> llenvs.cli.main",
        "llenvs.rewards.example:8 (__import__()) -> llenvs.analysis",
    ]


def test_the_scan_catches_a_sideways_import_a_private_backend_and_streamlit():
    """The three reaches this test was made stricter for: ``cli`` into ``ui`` (one floor),
    ``inference`` into ``traces`` (one floor), the pool into a backend's loading module."""
    cli = _scan("from llenvs.ui.common._cached import x\n", "llenvs.cli.example", is_package=False)
    inference = _scan(
        "def f():\n    from llenvs.traces.responses_file import read\n",
        "llenvs.inference._backend_registry",
        is_package=False,
    )
    pool = _scan(
        "def f():\n    from llenvs.inference._backends.transformers_loading import d\n",
        "llenvs.workbench.models._model_pool",
        is_package=False,
    )
    assert _upward(cli + inference + pool) == [
        "llenvs.cli.example:1 (top-level import) -> llenvs.ui.common._cached",
        "llenvs.inference._backend_registry:2 (nested import) -> llenvs.traces.responses_file",
        "llenvs.workbench.models._model_pool:2 (nested import) -> "
        "llenvs.inference._backends.transformers_loading",
    ]
    drawn = _scan("import streamlit as st\n", "llenvs.workbench.example", is_package=False)
    assert _streamlit_outside_the_views(drawn) == [
        "llenvs.workbench.example:1 (top-level import) -> streamlit"
    ]
    assert (
        _streamlit_outside_the_views(
            _scan("import streamlit as st\n", "llenvs.ui.example", is_package=False)
        )
        == []
    )


def _past_a_face(references: list[Reference]) -> list[str]:
    """The references that reach a private module (``_name``) from outside the package holding
    it: other packages import a package through its face, its ``__init__``."""
    wrong = []
    for ref in references:
        parts = ref.target.split(".")
        for at, part in enumerate(parts):
            if part.startswith("_") and not part.startswith("__"):
                if not _within(ref.source, ".".join(parts[:at])):
                    wrong.append(f"{ref.source}:{ref.line} ({ref.how}) -> {ref.target}")
                break
    return wrong


def test_other_packages_import_a_package_through_its_face():
    paths = [*PACKAGE.rglob("*.py"), REPO / "app.py", *(REPO / "pages").glob("*.py")]
    references = [r for path in sorted(paths) for r in _references(path)]
    assert any("._" in r.target for r in references)  # there are private modules to guard
    assert _past_a_face(references) == []


def test_the_face_check_catches_a_reach_into_a_private_module():
    text = (
        "from llenvs.workbench.jobs import BackgroundJob\n"
        "from llenvs.workbench.jobs._job_queue import JobQueue\n"
        "def f():\n"
        "    from llenvs.workbench.files._trace_index import TraceIndex\n"
        "PATH = 'llenvs.workbench.models._model_pool:shared_pool'\n"
    )
    outside = _scan(text, "llenvs.ui.example", is_package=False)
    assert _past_a_face(outside) == [
        "llenvs.ui.example:2 (top-level import) -> llenvs.workbench.jobs._job_queue",
        "llenvs.ui.example:4 (nested import) -> llenvs.workbench.files._trace_index",
        "llenvs.ui.example:5 (module path string) -> llenvs.workbench.models._model_pool",
    ]
    inside = _scan(text, "llenvs.workbench.jobs._background_job", is_package=False)
    assert _past_a_face(inside) == [
        "llenvs.workbench.jobs._background_job:4 (nested import) -> "
        "llenvs.workbench.files._trace_index",
        "llenvs.workbench.jobs._background_job:5 (module path string) -> "
        "llenvs.workbench.models._model_pool",
    ]


def _too_many_parameters(text: str, source: str) -> list[str]:
    """The functions (at any depth) in the source ``text`` of module ``source`` that take more
    than ``MAX_PARAMETERS`` parameters, in line order."""
    wrong = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = node.args
        named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        count = sum(a.arg not in ("self", "cls") for a in named)
        count += (arguments.vararg is not None) + (arguments.kwarg is not None)
        if count > MAX_PARAMETERS:
            wrong.append((node.lineno, f"{source}:{node.lineno} {node.name} ({count} parameters)"))
    return [line for _, line in sorted(wrong)]


GUIDE_SIGNATURES = {"llenvs.evaluation._evaluation": {"run_segmented_evaluation"}}
"""Functions whose keyword arguments the user's guide (``segmentation-guide.md``) calls by name:
``run_segmented_evaluation`` is the guide's entry point to an evaluation, its keywords the
guide's and the run spec's (tasks, sampling, batch, steps, results file, control, answer
opening, PRM), so it keeps them."""


def test_no_library_function_takes_more_than_ten_parameters():
    paths = sorted(PACKAGE.rglob("*.py"))
    found = [
        line
        for path in paths
        for line in _too_many_parameters(path.read_text(encoding="utf-8"), _module_name(path))
        if line.split(" ")[1] not in GUIDE_SIGNATURES.get(_module_name(path), set())
    ]
    assert len(paths) > 100 and found == []


def test_the_parameter_count_catches_an_eleven_parameter_function():
    text = (
        "def ten(a, b, /, c, *args, d, e, f, g, h, **kwargs): ...\n"
        "class C:\n"
        "    def eleven(self, a, b, c, d, e, f, g, h, i, j, k=0): ...\n"
        "    @classmethod\n"
        "    def made(cls, a, b, c, d, e, f, g, h, i, j): ...\n"
        "async def later(*, a, b, c, d, e, f, g, h, i, j, k):\n"
        "    def inner(*args, a, b, c, d, e, f, g, h, i, j, **kwargs): ...\n"
    )
    assert _too_many_parameters(text, "llenvs.example") == [
        "llenvs.example:3 eleven (11 parameters)",
        "llenvs.example:6 later (11 parameters)",
        "llenvs.example:7 inner (12 parameters)",
    ]


def test_no_library_file_is_over_400_lines():
    lengths = {
        path.relative_to(REPO).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    assert [f"{path}: {n} lines" for path, n in lengths.items() if n > MAX_LINES] == []
