"""The app opens only its own files: links and path boxes outside the traces folders are refused."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from llenvs.traces.files import MAX_LINE_ENV
from llenvs.workbench.files import TRACE_ROOTS_ENV, TRACES_DIR_ENV
from tests.app.conftest import make_folder
from tests.app.test_pages import open_page, texts

MB = 2**20


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A traces folder (with a symlink out), an extra root, and an outside folder of real traces."""
    base = tmp_path_factory.mktemp("roots")
    found = {name: make_folder(base / name) for name in ("traces", "extra", "outside")}
    (found["traces"] / "escape.jsonl").symlink_to(found["outside"] / "html.jsonl")
    return found


@pytest.fixture()
def roots(folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    monkeypatch.setenv(TRACES_DIR_ENV, str(folders["traces"]))
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(folders["extra"]))
    return folders


def assert_refused(at: AppTest, path: str, roots: dict[str, Path]) -> None:
    """One error, naming the path and the allowed folders; no trace file was read."""
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert f"`{path}` is outside the traces folders" in error
    assert str(roots["traces"].resolve()) in error and str(roots["extra"].resolve()) in error
    assert TRACE_ROOTS_ENV in error
    shown = texts(at)
    assert "could not be read" not in shown and "traces match" not in shown
    assert not at.dataframe and not at.subheader


def browse_links(at: AppTest, path: str) -> list[object]:
    """The page links on the page that open ``path`` in Browse."""
    query = urllib.parse.urlencode({"file": path})
    return [link for link in at.get("page_link") if link.proto.query_string == query]


def outside_paths(roots: dict[str, Path]) -> dict[str, str]:
    traces = roots["traces"]
    return {
        "passwd": "/etc/passwd",
        "bashrc": os.path.expanduser("~/.bashrc"),
        "dotdot": f"{traces}/../outside/html.jsonl",
        "relative dotdot": os.path.relpath(roots["outside"] / "html.jsonl"),
        "symlink": str(traces / "escape.jsonl"),
        "absolute": str(roots["outside"] / "imported-real_responses.jsonl"),
    }


@pytest.mark.parametrize(
    "where", ["passwd", "bashrc", "dotdot", "relative dotdot", "symlink", "absolute"]
)
def test_browse_refuses_a_link_to_a_file_outside_the_traces_folders(roots, where):
    path = outside_paths(roots)[where]
    assert_refused(open_page("browse", file=path), path, roots)


@pytest.mark.parametrize("where", ["passwd", "symlink", "absolute"])
def test_compare_refuses_a_link_to_a_file_outside_the_traces_folders(roots, where):
    path = outside_paths(roots)[where]
    at = open_page("compare", file=path)
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert f"`{path}` is outside the traces folders" in error
    assert "Text:" not in texts(at)


@pytest.mark.parametrize("where", ["passwd", "dotdot", "symlink", "absolute"])
def test_the_home_path_box_refuses_a_file_outside_the_traces_folders(roots, where):
    path = outside_paths(roots)[where]
    at = open_page("home")
    assert TRACE_ROOTS_ENV in at.text_input[0].help
    at.text_input[0].input(path).run()
    assert not at.exception
    (error,) = [e.value for e in at.error]
    assert f"`{path}` is outside the traces folders" in error
    assert str(roots["traces"].resolve()) in error and str(roots["extra"].resolve()) in error
    assert not browse_links(at, path)


def test_home_lists_no_symlink_that_leads_out(roots):
    table = open_page("home").dataframe[0].value
    assert "escape.jsonl" not in set(table["file"]) and "html.jsonl" in set(table["file"])


def test_the_import_path_box_refuses_a_file_outside_the_traces_folders(roots, tmp_path):
    at = open_page("home")
    at.selectbox[0].select("reasoning_gym")
    path = outside_paths(roots)["absolute"]
    at.text_input[1].input(path)
    at.button[0].click().run()
    assert not at.exception and not at.success
    assert f"`{path}` is outside the traces folders" in at.error[0].value
    assert not list(roots["traces"].glob("imported-imported-*"))


def test_an_import_with_no_trace_is_refused_and_writes_nothing(roots):
    at = open_page("home")
    before = sorted(p.name for p in roots["traces"].iterdir())
    at.selectbox[0].select("openai_chat")
    at.text_input[1].input(str(roots["traces"] / "html.jsonl"))
    at.button[0].click().run()
    assert not at.exception and not at.success
    # html.jsonl holds llenvs traces: the importer says so, naming file and line
    assert "html.jsonl, line 1: an llenvs trace, not a row to import" in at.error[0].value
    assert sorted(p.name for p in roots["traces"].iterdir()) == before


def test_files_in_the_traces_folder_and_in_an_extra_root_open(roots):
    for folder in ("traces", "extra"):
        at = open_page("browse", file=str(roots[folder] / "imported-real_responses.jsonl"))
        assert not at.error, at.error
        assert "20 of 20 traces match" in texts(at)
        assert at.subheader[0].value.startswith("leg_counting · task 31 · line 1")
    at = open_page("home")
    at.text_input[0].input(str(roots["extra"] / "html.jsonl")).run()
    assert not at.exception and not at.error
    assert browse_links(at, str(roots["extra"] / "html.jsonl"))
    compare = open_page("compare", file=str(roots["extra"] / "html.jsonl"))
    assert not compare.error and "html_env, task 0" in texts(compare)


def test_a_line_over_the_limit_is_skipped_with_a_message_and_the_rest_loads(
    roots, tmp_path, monkeypatch
):
    monkeypatch.setenv(MAX_LINE_ENV, "1")
    folder = tmp_path / "big"
    folder.mkdir()
    good = (roots["traces"] / "html.jsonl").read_bytes()
    long_line = b'{"response": "' + b"x" * (2 * MB) + b'"}\n'
    path = folder / "big.jsonl"
    path.write_bytes(good + long_line + good)
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(folder))
    at = open_page("browse", file=str(path))
    assert not at.error
    shown = texts(at)
    assert "1 line(s) of big.jsonl could not be read and were skipped" in shown
    assert f"{path}, line 2: {len(long_line):,} bytes, longer than the line limit of 1 MB" in shown
    assert "2 of 2 traces match" in shown
