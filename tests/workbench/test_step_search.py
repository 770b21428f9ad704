"""Step search: known hits at known places, filters that exclude known steps, freshness, meaning."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from llenvs.traces import StepLabel, append_labels, write_traces
from llenvs.workbench.search import (
    LabelQueueError,
    MeaningIndex,
    QueueEntry,
    SearchError,
    SearchMode,
    StepStore,
    Where,
    WhereError,
    build_meaning_index,
    read_label_queue,
    search_steps,
    write_label_queue,
)
from tests.helpers import scored_trace

SAMPLES = Path(__file__).parents[2] / "sample_traces"
ANCHORS = "thought_anchors-r1-distill-llama-8b"


TRACES = [
    scored_trace("farm", ("Cows have 4 legs. ", 0.9), ("Hens have 2 legs. ", 0.2), ("So 6.", 0.8)),
    scored_trace(
        "space",
        ("The rocket burns fuel. ", 0.7),
        ("Orbit needs speed. ", 0.4),
        ("So yes.", None),
        success=False,
    ),
]


@pytest.fixture
def folder(tmp_path) -> Path:
    write_traces(tmp_path / "runs.jsonl", TRACES)
    append_labels(tmp_path / "runs.jsonl", [StepLabel(TRACES[0].trace_id, 1, -1, "ada")])
    return tmp_path


def _places(hits) -> list[tuple[str, int, int]]:
    return [(Path(h.file).name, h.trace, h.step) for h in hits]


def test_text_finds_known_steps_in_any_case_with_the_match_marked(folder):
    hits = list(search_steps([folder], "LEGS"))
    assert _places(hits) == [("runs.jsonl", 1, 0), ("runs.jsonl", 1, 1)]
    assert hits[0].text == "Cows have 4 legs. "
    assert hits[0].snippet == "Cows have 4 «legs». "
    assert (hits[0].facts.environment, hits[0].facts.prm, hits[0].facts.success) == (
        "farm",
        0.9,
        True,
    )
    assert hits[0].record()["file"] == str((folder / "runs.jsonl").resolve())


def test_a_query_of_under_three_characters_is_found_too(folder):
    assert _places(search_steps([folder], "6.")) == [("runs.jsonl", 1, 2)]


def test_regex_hits_and_a_bad_pattern_named(folder):
    assert _places(search_steps([folder / "runs.jsonl"], r"\d legs", SearchMode.REGEX)) == [
        ("runs.jsonl", 1, 0),
        ("runs.jsonl", 1, 1),
    ]
    with pytest.raises(SearchError, match=r"--regex '\[': unterminated character set"):
        list(search_steps([folder], "[", SearchMode.REGEX))


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("prm < 0.5", [(1, 1)]),
        ('label == "wrong"', [(1, 1)]),
        ("label == 1", []),
        ('environment == "farm" and not prm > 0.5', [(1, 1)]),
        ("success", [(1, 0), (1, 1)]),
        ("prm >= 0.9 or prm <= 0.2", [(1, 0), (1, 1)]),
    ],
)
def test_filters_keep_and_exclude_known_steps(folder, where, expected):
    hits = search_steps([folder], "s", where=where)
    assert [(h.trace, h.step) for h in hits if "legs" in h.text] == expected


def test_filters_over_numbers_the_label_store_and_the_analysis_sidecar(tmp_path):
    for suffix in (".jsonl", ".analysis.jsonl"):
        shutil.copy(SAMPLES / f"{ANCHORS}{suffix}", tmp_path / f"{ANCHORS}{suffix}")
    everything = list(search_steps([tmp_path], "e", limit=None))
    moved = list(search_steps([tmp_path], "e", where="moved", limit=None))
    assert 0 < len(moved) < len(everything)
    assert all(h.facts.moved is not None and h.facts.moved > 0.5 for h in moved)
    first = next(h for h in everything if (h.trace, h.step) == (1, 0))
    assert first.facts.tags == "problem_setup" and first.facts.value is not None
    tagged = list(search_steps([tmp_path], "e", where='tags ~ "SETUP"', limit=None))
    assert {h.facts.tags for h in tagged} == {"problem_setup"}


def test_a_bad_where_lists_the_fields():
    with pytest.raises(WhereError, match=r"unknown field 'rewrd'.*the fields: environment, model"):
        Where.parse("rewrd > 1")
    with pytest.raises(WhereError, match="a '\\(' is not closed"):
        Where.parse("(prm > 1")
    with pytest.raises(WhereError, match="label is a number or one of wrong"):
        Where.parse('label == "meh"')
    with pytest.raises(WhereError, match="unexpected"):
        Where.parse("prm > 1 prm")


def test_missing_paths_and_empty_queries_get_one_message(folder):
    with pytest.raises(SearchError, match="no/such does not exist"):
        list(search_steps([folder / "no" / "such"], "x"))
    with pytest.raises(SearchError, match="the query is empty"):
        list(search_steps([folder], ""))


def test_first_hits_come_before_the_rest_are_looked_for(folder):
    hits = search_steps([folder], "s", limit=1)
    assert len(list(hits)) == 1


def test_the_index_is_kept_fresh_file_by_file(folder):
    store = StepStore(folder)
    assert store.refresh([folder / "runs.jsonl"]) == 1
    assert store.refresh([folder / "runs.jsonl"]) == 0  # nothing changed: nothing read
    store.close()
    write_traces(folder / "other.jsonl", [scored_trace("farm", ("Spiders have 8 legs.", 0.1))])
    assert ("other.jsonl", 1, 0) in _places(search_steps([folder], "legs"))
    append_labels(folder / "runs.jsonl", [StepLabel(TRACES[0].trace_id, 0, 1, "bo")])
    assert _places(search_steps([folder], "legs", where="label == 1")) == [("runs.jsonl", 1, 0)]
    (folder / "other.jsonl").unlink()
    assert ("other.jsonl", 1, 0) not in _places(search_steps([folder], "legs"))


@pytest.mark.slow
def test_meaning_ranks_a_paraphrase_above_unrelated_steps_and_builds_incrementally(folder):
    built = build_meaning_index([folder])
    assert (built.embedded, built.files, built.stopped) == (6, 1, False)
    hits = list(
        search_steps(
            [folder], "a spacecraft must go fast to stay in orbit", SearchMode.MEANING, limit=3
        )
    )
    assert (hits[0].trace, hits[0].step) == (2, 1)
    assert hits[0].score is not None and hits[0].score > hits[1].score
    assert build_meaning_index([folder]).embedded == 0  # nothing changed: nothing embedded
    write_traces(
        folder / "more.jsonl", [scored_trace("farm", ("Velocity keeps satellites up.", 0.5))]
    )
    assert build_meaning_index([folder]).embedded == 1
    filtered = search_steps(
        [folder], "orbit speed", SearchMode.MEANING, where="prm < 0.45", limit=1
    )
    assert _places(filtered) == [("runs.jsonl", 2, 1)]


def test_a_stopped_meaning_build_keeps_what_it_made_and_resumes(folder):
    for name in ("a", "b"):
        write_traces(folder / f"{name}.jsonl", [scored_trace("x", ("One. ", 0.5), ("Two.", 0.5))])
    store = StepStore(folder)
    files = [folder / name for name in ("a.jsonl", "b.jsonl", "runs.jsonl")]
    store.refresh(files)
    ids = store.ids(files)
    calls = []

    def embed(texts):
        calls.append(len(texts))
        return [[1.0, 0.0] for _ in texts]

    stopped = MeaningIndex(store, embed).build(ids, stop=lambda: len(calls) >= 2)
    assert stopped.stopped and stopped.files == 1
    resumed = MeaningIndex(store, embed).build(ids)
    assert not resumed.stopped and resumed.files == len(files) - 1
    assert MeaningIndex(store, embed).stale(ids) == []
    os.utime(folder / "a.jsonl", ns=(time.time_ns(), time.time_ns() + 10**9))
    store.refresh(files)
    assert [file_id for file_id, _ in MeaningIndex(store, embed).stale(ids)] == [
        i for i, p in ids.items() if p.name == "a.jsonl"
    ]
    store.close()


def test_hits_export_as_a_label_queue(folder, tmp_path):
    hits = list(search_steps([folder], "legs"))
    queue = tmp_path / "legs.queue.jsonl"
    assert write_label_queue(queue, (QueueEntry(h.file, h.trace, h.step) for h in hits)) == 2
    assert [(Path(e.file).name, e.trace, e.step) for e in read_label_queue(queue)] == [
        ("runs.jsonl", 1, 0),
        ("runs.jsonl", 1, 1),
    ]
    queue.write_text('{"file": "a.jsonl", "trace": 1}\n')
    with pytest.raises(LabelQueueError, match=r"legs\.queue\.jsonl, line 1: not a queue entry"):
        read_label_queue(queue)
