"""What Browse opens when nothing chose a file: the view the traces folder declares.

``make run`` serves ``sample_traces/``, which declares (``llenvs-browse.json``) its 321-step
Thought Anchors trace at step 158, so a new user's first Browse page is a real R1-distill trace
with its published step values. A file the URL names, one picked in the sidebar, and a traces
folder of one's own (which declares nothing) all win over it, and Home's links still open what
they name.
"""

from __future__ import annotations

import urllib.parse

import pytest

from llenvs.workbench.files import DEFAULT_VIEW_FILE, TRACE_ROOTS_ENV, TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page, texts

SAMPLES = "sample_traces"
TA_FILE = f"{SAMPLES}/thought_anchors-r1-distill-llama-8b.jsonl"


@pytest.fixture()
def default_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app as ``make run`` starts it: no traces folder set, run from the repository."""
    monkeypatch.delenv(TRACES_DIR_ENV, raising=False)
    monkeypatch.delenv(TRACE_ROOTS_ENV, raising=False)
    monkeypatch.chdir(REPO)


def _segment(at) -> str:
    return str(at.query_params.get("segment", "")).strip("[]'")


def test_browse_opens_the_samples_thought_anchors_trace_at_its_largest_move(default_root):
    at = open_page("browse")
    assert at.sidebar.selectbox[0].value == TA_FILE
    assert at.subheader[0].value == "math · task 4164 · line 3"
    assert "321 segments" in texts(at)
    assert "Segment 158" in [t.label for t in at.tabs]
    assert "Published values (Thought Anchors, imported): 321 boundaries" in texts(at)
    assert any("falls from 0.49 to 0" in c.value for c in at.sidebar.caption)
    at.button(key="nav-j").click().run()  # moving on keeps the file and the trace
    assert not at.exception and _segment(at) == "159"
    assert at.subheader[0].value.endswith("line 3")
    assert str(at.query_params["file"]).strip("[]'") == TA_FILE


def test_a_file_in_the_url_or_picked_in_the_sidebar_wins(default_root):
    at = open_page("browse", file=f"{SAMPLES}/products-smollm2.jsonl")
    assert at.subheader[0].value.startswith("products · task 0 · line 1")
    assert "Segment 0" in [t.label for t in at.tabs]
    assert not any("falls from 0.49" in c.value for c in at.sidebar.caption)
    at = open_page("browse")
    at.sidebar.selectbox[0].select(f"{SAMPLES}/basic_arithmetic-smollm2.jsonl").run()
    assert not at.exception
    assert at.subheader[0].value.startswith("basic_arithmetic · task 0 · line 1")
    at.button(key="nav-n").click().run()  # and it stays chosen
    assert (
        at.subheader[0].value.startswith("basic_arithmetic") and "line 2" in at.subheader[0].value
    )


def test_a_traces_folder_of_ones_own_opens_its_first_file_as_before(app_env):
    assert not (app_env / DEFAULT_VIEW_FILE).exists()
    at = open_page("browse")
    assert at.sidebar.selectbox[0].value == str(app_env / "broken.jsonl")  # first by name
    assert "line 1" in at.subheader[0].value


def test_a_declaration_that_cannot_be_followed_is_said_and_the_first_file_opens(
    tmp_path, monkeypatch
):
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text((REPO / SAMPLES / "products-smollm2.jsonl").read_text())
    (tmp_path / DEFAULT_VIEW_FILE).write_text('{"file": "gone.jsonl", "trace": 2}')
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("browse")
    [warning] = [w.value for w in at.sidebar.warning]
    assert DEFAULT_VIEW_FILE in warning and "`gone.jsonl` is not a file" in warning
    assert at.sidebar.selectbox[0].value == str(tmp_path / "a.jsonl")
    (tmp_path / DEFAULT_VIEW_FILE).write_text('{"file": "b.jsonl", "trace": 2, "segment": 1}')
    at = open_page("browse")
    assert not at.sidebar.warning and at.sidebar.selectbox[0].value == str(tmp_path / "b.jsonl")
    assert "line 2" in at.subheader[0].value and "Segment 1" in [t.label for t in at.tabs]


def test_homes_links_open_browse_on_what_they_name(default_root):
    home = open_page("home")
    queries = {link.proto.label: link.proto.query_string for link in home.get("page_link")}
    assert queries["Browse"] == ""  # the page guide's link: the declared view
    query = queries["Browse thought_anchor…-llama-8b.jsonl"]  # its long name cut in the middle
    featured = {"file": [TA_FILE], "trace": ["3"], "segment": ["158"]}
    assert urllib.parse.parse_qs(query) == featured  # the file's link: the declared view
    at = open_page("browse", **{k: v[0] for k, v in featured.items()})
    assert at.subheader[0].value == "math · task 4164 · line 3"
    query = queries["Browse leg_counting-smollm2.jsonl"]
    at = open_page("browse", **{k: v[0] for k, v in urllib.parse.parse_qs(query).items()})
    assert at.subheader[0].value.startswith("leg_counting · task 0 · line 1")
