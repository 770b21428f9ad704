"""The Settings page under AppTest: saved in the traces folder, a bad spec refused, no key kept."""

from __future__ import annotations

import json

import pytest

from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import SETTINGS_FILE, ModelKind, Settings, load_settings
from tests.app.test_pages import open_page, texts

KEY = "sk-test-0123456789abcdef-never-on-disk"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return traces


def test_settings_are_saved_and_read_back(folder):
    at = open_page("settings")
    at.selectbox(key="settings-prm").set_value("arithmetic").run()
    at.text_input(key="settings-segmenter").input("line").run()
    at.button(key="settings-save").click().run()
    assert not at.exception
    assert load_settings(folder) == Settings(prm="arithmetic", segmenter="line")
    again = open_page("settings")
    assert again.selectbox(key="settings-prm").value == "arithmetic"
    assert again.text_input(key="settings-segmenter").value == "line"


def test_a_bad_segmenter_spec_names_the_valid_ones_and_is_not_saved(folder):
    at = open_page("settings")
    at.text_input(key="settings-segmenter").input("sentense").run()
    [error] = at.error
    assert "unknown segmenter 'sentense'" in error.value and "sentence" in error.value
    assert at.button(key="settings-save").disabled
    assert not (folder / SETTINGS_FILE).exists()


def test_a_server_is_saved_without_its_key_and_a_typed_key_reaches_no_file(folder):
    at = open_page("settings")
    at.selectbox(key="settings-model").set_value(ModelKind.OPENAI).run()
    at.text_input(key="settings-url").input("http://127.0.0.1:9/v1").run()
    at.text_input(key="settings-served").input("my-model").run()
    at.text_input(key="settings-key-typed").input(KEY).run()
    assert "A key is set for this session." in texts(at)
    at.button(key="settings-save").click().run()
    assert not at.exception
    saved = json.loads((folder / SETTINGS_FILE).read_text())
    assert saved["model"] == "openai" and saved["server"]["base_url"] == "http://127.0.0.1:9/v1"
    assert load_settings(folder).choice().backend_name == "openai/my-model"
    for path in folder.rglob("*"):  # the traces folder, logs included
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path
    assert all(KEY not in str(e.value) for e in [*at.markdown, *at.caption, *at.success])


def test_a_broken_settings_file_is_named_and_the_page_still_works(folder):
    (folder / SETTINGS_FILE).write_text('{"prm": "nope"}')
    at = open_page("settings")
    assert any(SETTINGS_FILE in e.value and "prm must be one of" in e.value for e in at.error)


def test_the_models_kept_loaded_are_set_here_unless_the_variable_fixes_them(folder, monkeypatch):
    from llenvs.workbench.models import MAX_MODELS_ENV, max_models

    monkeypatch.delenv(MAX_MODELS_ENV, raising=False)
    at = open_page("settings")
    at.text_input(key="settings-max-models").input("3").run()
    at.button(key="settings-save").click().run()
    assert not at.exception
    assert load_settings(folder).max_models == 3 and max_models() == 3
    monkeypatch.setenv(MAX_MODELS_ENV, "1")
    fixed = open_page("settings")
    assert fixed.text_input(key="settings-max-models").disabled
    assert max_models() == 1
