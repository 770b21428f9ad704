"""Every page and action of the workbench under AppTest: no exception reaches the user."""

from __future__ import annotations

import html
import re
import urllib.parse
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from llenvs.ui.common import TEXT_CLASS
from llenvs.workbench import PAGES
from llenvs.workbench.files import TRACE_ROOTS_ENV, TRACES_DIR_ENV
from tests.app.conftest import SCRIPT
from tests.conftest import EXTERNAL

REPO = Path(__file__).resolve().parents[2]


def open_page(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py")
        at.run()
    assert not at.exception
    return at


def text_blocks(at: AppTest) -> list[str]:
    """The response texts the page shows (``llenvs.ui.common``), as a reader sees them."""
    opening = f'<div class="{TEXT_CLASS}"'
    return [
        html.unescape(m.value.split(">", 1)[1].removesuffix("</div>"))
        for m in at.markdown
        if m.value.startswith(opening)
    ]


def texts(at: AppTest) -> str:
    parts = [
        *text_blocks(at),
        *(
            e.value
            for kind in (
                "markdown",
                "caption",
                "info",
                "warning",
                "error",
                "success",
                "subheader",
                "code",
                "text",
            )
            for e in getattr(at, kind)
        ),
    ]
    return "\n".join(str(p) for p in parts)


def test_home_counts_the_traces_and_says_what_each_page_does(app_env):
    at = open_page("home")
    table = at.dataframe[0].value
    assert set(table["file"]) == {"imported-real_responses.jsonl", "html.jsonl", "broken.jsonl"}
    assert int(table.loc[table["file"] == "imported-real_responses.jsonl", "traces"].iloc[0]) == 20
    assert int(table.loc[table["file"] == "broken.jsonl", "skipped lines"].iloc[0]) == 2
    # the guide: every page of the navigation (app.py's), each a link with what it does
    links = [str(link.proto.label) for link in at.get("page_link")]
    assert [p.title for p in PAGES] == [t for t in links if t in {p.title for p in PAGES}]
    assert {"Evaluate", "Compare runs", "Settings"} <= set(links)
    captions = [c.value for c in at.caption]
    assert all(p.summary[1:] in caption for p in PAGES for caption in [" ".join(captions)])
    navigation = (REPO / "app.py").read_text()
    assert "PAGES" in navigation and "st.Page(page.file" in navigation


def _links(at: AppTest) -> dict[str, dict[str, list[str]]]:
    """The page's links by label, each with its query parameters."""
    return {
        str(link.proto.label): urllib.parse.parse_qs(link.proto.query_string)
        for link in at.get("page_link")
    }


def _opened(link: dict[str, list[str]]) -> AppTest:
    """Browse opened on a link's query, as a click on it opens it."""
    return open_page("browse", **{key: values[0] for key, values in link.items()})


def test_home_starts_a_newcomer_on_the_declared_trace_at_its_step(monkeypatch):
    """On the sample traces (as ``make run`` serves them) Home's first link, and the R1
    file's own, open the featured view: line 3 at step 158, not the file's line 1."""
    monkeypatch.delenv(TRACES_DIR_ENV, raising=False)
    monkeypatch.delenv(TRACE_ROOTS_ENV, raising=False)
    monkeypatch.chdir(REPO)
    at = open_page("home")
    featured = "thought_anchors-r1-distill-llama-8b.jsonl, line 3 at step 158"
    labels = [str(link.proto.label) for link in at.get("page_link")]
    assert labels[0] == f"Start here: {featured}"  # before the folder's files
    assert any("falls from 0.49 to 0" in c.value for c in at.caption)
    links = _links(at)
    start = links[f"Start here: {featured}"]
    assert start == links["Browse thought_anchor…-llama-8b.jsonl"]  # the name cut in the middle
    [help] = [link.proto.help for link in at.get("page_link") if "…" in link.proto.label]
    assert help.startswith(f"Opens {featured}: Opened on a real reasoning trace")
    assert start == {
        "file": ["sample_traces/thought_anchors-r1-distill-llama-8b.jsonl"],
        "trace": ["3"],
        "segment": ["158"],
    }
    browse = _opened(start)
    assert browse.subheader[0].value == "math · task 4164 · line 3"
    assert "Segment 158" in [t.label for t in browse.tabs]
    assert links["Browse leg_counting-smollm2.jsonl"] == {
        "file": ["sample_traces/leg_counting-smollm2.jsonl"],
        "segment": ["0"],
    }


def test_home_without_a_declared_view_starts_on_the_first_file(app_env):
    at = open_page("home")
    first = sorted(p.name for p in app_env.glob("*.jsonl") if p.name.count(".") == 1)[0]
    start = _links(at)[f"Start here: {first}"]
    assert start == {"file": [str(app_env / first)], "segment": ["0"]}
    assert "line 1" in _opened(start).subheader[0].value


def test_home_says_a_declared_view_it_cannot_follow(tmp_path, monkeypatch):
    (tmp_path / "a.jsonl").write_text(
        (REPO / "sample_traces" / "products-smollm2.jsonl").read_text()
    )
    (tmp_path / "llenvs-browse.json").write_text('{"file": "gone.jsonl"}')
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("home")
    assert any("`gone.jsonl` is not a file" in w.value for w in at.warning)
    assert _links(at)["Start here: a.jsonl"] == {
        "file": [str(tmp_path / "a.jsonl")],
        "segment": ["0"],
    }


def test_long_file_names_are_cut_in_the_middle_so_they_still_differ(tmp_path, monkeypatch):
    """Cut at the end, both would read ``thought_anchors-r1-distill-ll``."""
    long = "thought_anchors-r1-distill-llama-8b"
    sample = (REPO / "sample_traces" / "products-smollm2.jsonl").read_text()
    for name in (f"{long}.jsonl", f"{long}-2.jsonl"):
        (tmp_path / name).write_text(sample)
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    options = open_page("browse").sidebar.selectbox[0].options
    assert len(set(options)) == 2 and all(len(o) <= 30 and "…" in o for o in options)
    assert sorted(o.endswith("-8b-2.jsonl") for o in options) == [False, True]
    assert all(o.endswith("-8b.jsonl") or o.endswith("-8b-2.jsonl") for o in options)
    home = open_page("home")
    browse = [
        label
        for label in (str(link.proto.label) for link in home.get("page_link"))
        if label.startswith("Browse ")
    ]
    assert len(set(browse)) == 2 and all(len(label) <= len("Browse ") + 30 for label in browse)
    assert any(label.endswith("-8b-2.jsonl") for label in browse)


def test_home_on_an_empty_folder_says_how_to_import_or_record(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path / "none"))
    at = open_page("home")
    assert "llenvs import" in at.info[0].value and "llenvs evaluate" in at.info[0].value
    browse = open_page("browse")
    assert "llenvs import" in browse.info[0].value


def test_home_imports_an_outside_file_into_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(EXTERNAL))  # the app reads only its folders
    at = open_page("home")
    at.selectbox[0].select("processbench")
    at.text_input[1].input(str(EXTERNAL / "step_traces.jsonl"))
    at.button[0].click().run()
    assert not at.exception
    assert "Imported 197 traces" in at.success[0].value
    assert "their 1119 step labels beside it" in at.success[0].value
    assert (tmp_path / "imported-step_traces.jsonl").is_file()
    assert (tmp_path / "imported-step_traces.labels.jsonl").is_file()  # the labels: apart
    at.text_input[1].input(str(tmp_path / "missing.jsonl"))
    at.button[0].click().run()
    assert not at.exception and "No such file" in at.error[0].value


def test_home_opens_a_file_by_path_and_refuses_a_missing_one(app_env):
    at = open_page("home")
    at.text_input[0].input(str(app_env / "html.jsonl")).run()
    assert not at.exception and not at.error
    at.text_input[0].input(str(app_env / "no-such-file.jsonl")).run()
    assert "No such file" in at.error[0].value


def test_browse_shows_a_trace_segment_by_segment(app_env):
    at = open_page("browse", file=str(app_env / "imported-real_responses.jsonl"))
    assert "20 of 20 traces match" in texts(at)
    assert at.subheader[0].value.startswith("leg_counting · task 31 · line 1")
    segments = at.dataframe[1].value
    assert list(segments.columns[:5]) == ["#", "text", "reward", "cumulative", "PRM"]
    assert segments["PRM"].notna().any()


def test_browse_buttons_move_between_segments_and_traces(app_env):
    at = open_page("browse", file=str(app_env / "imported-real_responses.jsonl"))
    at.button(key="nav-j").click().run()
    assert at.query_params["segment"] == ["1"] or at.query_params["segment"] == "1"
    at.button(key="nav-j").click().run()
    at.button(key="nav-k").click().run()
    assert str(at.query_params["segment"]).strip("[]'") == "1"
    at.button(key="nav-n").click().run()
    assert str(at.query_params["trace"]).strip("[]'") == "2"
    assert "line 2" in at.subheader[0].value
    at.button(key="nav-p").click().run()
    assert "line 1" in at.subheader[0].value
    [box] = [b for b in at.text_input if str(b.key).startswith("seg-input-")]
    box.input("999").run()  # past the last segment: refused, the range named, nothing moved
    assert not at.exception
    [refused] = [e.value for e in at.error]
    assert re.fullmatch(r"segment must be 0\.\.\d+ \(the trace's segments\), got 999", refused)
    assert str(at.query_params["segment"]).strip("[]'") == "0"
    box.input("3").run()
    assert not at.exception
    assert str(at.query_params["segment"]).strip("[]'") == "3"
    assert "Segment 3" in [t.label for t in at.tabs]


def test_browse_opens_a_shared_url(app_env):
    at = open_page(
        "browse", file=str(app_env / "imported-real_responses.jsonl"), trace="5", segment="2"
    )
    assert "line 5" in at.subheader[0].value
    assert "Segment 2" in [t.label for t in at.tabs]


def test_browse_filters_narrow_the_list(app_env):
    at = open_page("browse", file=str(app_env / "imported-real_responses.jsonl"))
    at.sidebar.multiselect[0].select("leg_counting").run()
    assert "12 of 20 traces match" in texts(at)
    at.sidebar.radio[0].set_value(
        at.sidebar.radio[0].options
        and next(o for o in at.sidebar.radio[0].options if "failed" in str(o))
    ).run()
    assert not at.exception
    assert "6 of 20 traces match" in texts(at)
    at.sidebar.text_input[0].input("31").run()  # task index
    assert not at.exception
    at.sidebar.text_input[0].input("").run()
    at.sidebar.text_input[1].input("zzz-nothing-matches").run()
    assert "No trace matches" in at.info[0].value
    at.sidebar.text_input[1].input("").run()
    at.sidebar.slider[-1].set_value(0.5).run()  # PRM minimum
    assert not at.exception


def test_browse_shows_html_as_text(app_env):
    at = open_page("browse", file=str(app_env / "html.jsonl"), segment="1")
    assert any(SCRIPT in t for t in text_blocks(at))  # shown as text, escaped
    for element in at.markdown:
        assert SCRIPT not in element.value or not getattr(element.proto, "allow_html", False)


def test_browse_lists_skipped_lines_and_reports_a_bad_trace_as_a_message(app_env):
    at = open_page("browse", file=str(app_env / "broken.jsonl"))
    assert "2 line(s) of broken.jsonl could not be read" in at.warning[0].value
    assert "line 2" in at.code[0].value and "line 3" in at.code[0].value
    bad = open_page("browse", file=str(app_env / "broken.jsonl"), trace="4")
    assert any("line 4" in e.value for e in bad.error)


def test_browse_reports_a_missing_file_as_a_message(app_env):
    at = open_page("browse", file=str(app_env / "no-such-traces.jsonl"))
    assert "No such file" in at.error[0].value


def test_compare_shows_counts_aligned_cuts_and_agreement(app_env):
    at = open_page("compare", file=str(app_env / "imported-real_responses.jsonl"), trace="2")
    assert "line 2" in texts(at)

    def counts():  # a metric per segmenter (the step values' plan below adds its tokens)
        return [m for m in at.metric if m.label.startswith("`")]

    assert len(counts()) == 3
    aligned = at.dataframe[0].value
    assert list(aligned.columns) == ["text", "steps", "sentence", "line:\\n\\n"]
    at.slider[0].set_value(4).run()
    assert not at.exception and len(counts()) == 4


def test_compare_refuses_a_bad_spec_and_a_catastrophic_pattern_with_messages(app_env):
    at = open_page("compare")
    at.text_input[0].input("sentense").run()
    assert not at.exception and "choose one of" in at.error[0].value
    at.text_input[0].input("pattern:(a|aa)+$").run()
    at.text_area[0].input("a" * 64 + "b").run()
    assert not at.exception
    assert any("backtracks catastrophically" in e.value for e in at.error)


@pytest.mark.parametrize(
    ("page", "shown"),
    [
        ("home", "Traces folder:"),
        ("browse", "characters 0–14 ·"),  # the file's first trace, at its first segment
        ("compare", "Text: html.jsonl, line 1 "),
    ],
)
def test_every_page_opens_on_a_url_with_garbage_parameters(app_env, page, shown):
    """A trace and segment that are not numbers fall back to the file's first trace and
    segment, with no error."""
    at = open_page(page, file=str(app_env / "html.jsonl"), trace="x", segment="-4")
    assert shown in texts(at) and not at.error
