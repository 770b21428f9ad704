"""The view a traces folder declares for Browse: the sample folder's, and declarations refused.

The sample folder's declaration is checked against its data, not taken on trust: the trace it
opens is the one whose published values move most in all (the sum of ``|v_{i+1} - v_i|``: the
321-step trace, whose values fall in several places; the 24-step one falls once, at its first
step), at the step where they move most.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from llenvs.analysis import analysis_path, read_published
from llenvs.traces import read_traces
from llenvs.workbench import BrowseLocation
from llenvs.workbench.files import DEFAULT_VIEW_FILE, BrowseDefault, browse_default, trace_files
from tests.conftest import REPO

SAMPLES = REPO / "sample_traces"


def _moves(path: Path) -> dict[int, list[float]]:
    """Per line of ``path``: its published values' ``|v_{i+1} - v_i|``, step by step."""
    found = {}
    for line, trace in enumerate(read_traces(path), start=1):
        [published] = read_published(analysis_path(path), trace.trace_id)
        rates = [t.successes / t.trials for t in published.tallies]
        found[line] = [abs(b - a) for a, b in itertools.pairwise(rates)]
    return found


def test_the_sample_folder_opens_on_the_largest_published_move_of_its_samples():
    declared = browse_default(SAMPLES)
    assert declared is not None
    location = declared.location
    path = Path(str(location.file))
    assert path in trace_files(SAMPLES)  # one of the files Browse lists
    with_values = [p for p in trace_files(SAMPLES) if "thought_anchors" in p.name]
    assert with_values == [path]  # the only sample with published values
    moves = _moves(path)
    assert location.line == max(moves, key=lambda line: sum(moves[line]))
    sizes = moves[location.line]
    assert location.segment == sizes.index(max(sizes)) and round(max(sizes), 2) == 0.49
    [trace] = [t for n, t in enumerate(read_traces(path), start=1) if n == location.line]
    assert len(trace.segments) == 321
    assert "step 158" in declared.about and "from 0.49 to 0" in declared.about


def test_a_folder_without_a_declaration_declares_nothing(tmp_path):
    assert browse_default(tmp_path) is None
    assert browse_default(tmp_path / "missing") is None


def test_a_declaration_needs_only_a_file(tmp_path):
    (tmp_path / "runs.jsonl").write_text("")
    (tmp_path / DEFAULT_VIEW_FILE).write_text(json.dumps({"file": "runs.jsonl"}))
    assert browse_default(tmp_path) == BrowseDefault(BrowseLocation(str(tmp_path / "runs.jsonl")))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '{"file": "runs.jsonl",\n "trace": }',
            "not a readable JSON object (Expecting value: line 2",
        ),
        ('["runs.jsonl"]', "expected a JSON object, got list"),
        ('{"trace": 2}', "`file` must name a trace file"),
        ('{"file": "runs.jsonl", "trace": "2"}', "`trace` must be a line number (from 1), got '2'"),
        ('{"file": "runs.jsonl", "trace": true}', "`trace` must be a line number"),
        ('{"file": "runs.jsonl", "segment": -1}', "`segment` must be a segment index (from 0)"),
        ('{"file": "runs.jsonl", "about": 3}', "`about` must be text"),
        ('{"file": "../outside.jsonl"}', "its file `../outside.jsonl` lies outside"),
        ('{"file": "gone.jsonl"}', "its file `gone.jsonl` is not a file in"),
    ],
)
def test_a_declaration_that_cannot_be_followed_names_its_file_and_what_is_wrong(
    tmp_path, text, said
):
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "runs.jsonl").write_text("")
    (tmp_path / "outside.jsonl").write_text("")
    (folder / DEFAULT_VIEW_FILE).write_text(text)
    with pytest.raises(ValueError) as raised:
        browse_default(folder)
    assert str(raised.value).startswith(f"{folder / DEFAULT_VIEW_FILE}: ")
    assert said in str(raised.value)
