"""The app tests' folder of traces (real imported ones, an HTML trace, a broken file), and the
check every app test goes through: a test fails when ``page_guard`` showed an internal error.

Pages show every error as a message (``llenvs.ui.common.shows_errors``); one of an internal
type (``KeyError``, ``TypeError``, ...: ``is_internal_error``) is a bug that a page test must not
pass over. The guard logs those; ``pytest_runtest_call`` below watches that log around each
test and fails the test when something was logged. A test that shows one on purpose is marked
``shows_internal_errors``.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
from llenvs.ui.common import LOGGER, is_internal_error
from llenvs.workbench.files import TRACES_DIR_ENV, import_into
from tests.app.served_app import CHROMIUM_ARGS
from tests.conftest import EXTERNAL

INTERNAL_ERRORS_MARK = "shows_internal_errors"
"""The mark of a test whose page shows an internal error on purpose (the check's own tests)."""


class _ShownErrors(logging.Handler):
    """Keeps the internal errors ``page_guard`` logs while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.errors: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and is_internal_error(error):
            self.errors.append(error)


@contextmanager
def internal_errors_shown() -> Iterator[list[BaseException]]:
    """The internal errors pages showed inside the block (page_guard's log, every thread)."""
    handler = _ShownErrors()
    LOGGER.addHandler(handler)
    try:
        yield handler.errors
    finally:
        LOGGER.removeHandler(handler)


def check_no_internal_errors(errors: list[BaseException]) -> None:
    """Fail the test when a page showed an internal error (each one named with its message)."""
    if errors:
        shown = "; ".join(f"{type(e).__name__}: {e}" for e in errors)
        pytest.fail(f"a page showed an internal error (a bug, not bad input): {shown}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{INTERNAL_ERRORS_MARK}: the page shows an internal error on purpose"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    if item.get_closest_marker(INTERNAL_ERRORS_MARK) is not None:
        return (yield)
    with internal_errors_shown() as errors:
        result = yield
    check_no_internal_errors(errors)
    return result


SCRIPT = "<script>alert(1)</script>"


def html_trace() -> Trace:
    texts = ["Let me think. ", f"The page says {SCRIPT} here. ", "<b>bold?</b> <answer>4</answer>"]
    segments, offset = [], 0
    for index, text in enumerate(texts):
        segments.append(
            SegmentRecord(index, offset, offset + len(text), text, prm_scores={"prm": 0.2 * index})
        )
        offset += len(text)
    return Trace(
        task=TaskRecord("html_env", "test", {}, 0, "What does <i>it</i> say?"),
        response="".join(texts),
        segments=tuple(segments),
        final_rewards={"correctness": 1.0},
        success=True,
    )


def make_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    import_into(folder, "reasoning_gym", EXTERNAL / "real_responses.jsonl")
    write_traces(folder / "html.jsonl", [html_trace()])
    good = (folder / "html.jsonl").read_text()
    (folder / "broken.jsonl").write_text(
        good
        + "not json at all\n"
        + '{"task": 3}\n'
        + good.replace('"terminal": false', '"terminal": "no"', 1)
    )
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's chromium, headless, driven by playwright: one per test module."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, (
        "Debian chromium is missing: `apt-get install chromium` (.ci/run installs it); "
        "the browser tests need it"
    )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def traces_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("traces"))


@pytest.fixture()
def app_env(traces_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces_folder))
    return traces_folder
