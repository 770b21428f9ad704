"""The app tests' check on page_guard: an internal error shown on a page fails the test."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import check_no_internal_errors, internal_errors_shown


def _page_raising_key_error() -> None:
    from llenvs.ui.common import shows_errors

    with shows_errors("reading the trace"):
        {}["segments"]  # a bug: a lookup of a key that is not there


def _page_raising_user_errors() -> None:
    from llenvs.core.errors import UnknownName
    from llenvs.traces import TraceFormatError
    from llenvs.ui.common import shows_errors

    for error in (
        TraceFormatError("runs.jsonl, line 2: trace.segments: missing"),
        UnknownName("environment", "nope", ["leg_counting"]),
        ValueError("token_size must be > 0, got 0"),
        FileNotFoundError(2, "No such file or directory", "runs.jsonl"),
    ):
        with shows_errors():
            raise error


@pytest.mark.shows_internal_errors
def test_a_page_showing_a_key_error_fails_the_check():
    with internal_errors_shown() as errors:
        at = AppTest.from_function(_page_raising_key_error).run()
    assert [e.value for e in at.error] == ["reading the trace: KeyError: segments"]
    assert [type(e) for e in errors] == [KeyError]
    with pytest.raises(pytest.fail.Exception, match=r"a page showed an internal error.*KeyError"):
        check_no_internal_errors(errors)


def test_a_page_showing_user_errors_passes_the_check():
    with internal_errors_shown() as errors:
        at = AppTest.from_function(_page_raising_user_errors).run()
    shown = [e.value.split(":")[0] for e in at.error]
    assert shown == ["TraceFormatError", "UnknownName", "ValueError", "FileNotFoundError"]
    assert errors == []
    check_no_internal_errors(errors)
