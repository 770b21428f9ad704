"""``llenvs score``: a PRM's step scores stored in a trace file under a name, nothing else changed.

The scores are those ``llenvs agreement --prm`` computes now (the same library call), stored so
that ``agreement`` and the Labels page read them back; the trace ids, the other traces and the
labels stay as they were, and a file that cannot be rewritten whole is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.traces import (
    SegmentRecord,
    StepLabel,
    TaskRecord,
    Trace,
    append_labels,
    labels_path,
    read_traces,
    write_traces,
)
from tests.conftest import EXTERNAL


def _trace(texts: list[str], environment: str = "e") -> Trace:
    segments, start = [], 0
    for index, text in enumerate(texts):
        segments.append(SegmentRecord(index, start, start + len(text), text))
        start += len(text)
    return Trace(
        task=TaskRecord(environment, "a", {}, 0, "q"),
        response="".join(texts),
        segments=tuple(segments),
    )


def _agreement(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> dict:
    capsys.readouterr()
    assert main(["agreement", str(path), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_stored_scores_equal_the_scores_made_now_and_keep_ids_and_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "steps.jsonl"
    assert (
        main(["import", "processbench", str(EXTERNAL / "step_traces.jsonl"), "-o", str(out)]) == 0
    )
    before = list(read_traces(out))
    store = labels_path(out).read_bytes()
    now = _agreement(capsys, out, "--labels", "processbench", "--prm", "arithmetic")
    assert main(["score", str(out), "--prm", "arithmetic", "--name", "ar"]) == 0
    assert "scored 197 traces (1562 steps, all rated) with arithmetic, stored as 'ar'" in (
        capsys.readouterr().out
    )
    after = list(read_traces(out))
    assert [t.trace_id for t in after] == [t.trace_id for t in before]
    assert all(set(s.prm_scores) == {"ar"} for t in after for s in t.segments)
    assert [t.response for t in after] == [t.response for t in before]
    assert labels_path(out).read_bytes() == store
    stored = _agreement(capsys, out, "--labels", "processbench", "--prm", "ar")
    [made], [read] = now["prms"], stored["prms"]
    assert (made["source"], read["source"]) == ("scored now", "stored")
    assert {k: v for k, v in made.items() if k not in ("prm", "source")} == {
        k: v for k, v in read.items() if k not in ("prm", "source")
    }


def test_only_the_named_environments_are_scored_and_unrated_steps_keep_no_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, replies = tmp_path / "t.jsonl", tmp_path / "replies.jsonl"
    judged, other = _trace(["2 + 2 = 4. ", "So 5."], "gsm8k"), _trace(["1 + 1 = 3."], "math")
    write_traces(path, [judged, other])
    append_labels(path, [StepLabel(judged.trace_id, 1, -1, "ada")])
    replies.write_text('"Yes."\n"Hmm."\n')
    assert main([
        "score", str(path), "--prm", "judge", "--backend", "scripted", "--responses",
        str(replies), "--environment", "gsm8k", "--name", "judge-scripted",
    ]) == 0  # fmt: skip
    assert "scored 1 trace (2 steps, 1 unrated) with judge" in capsys.readouterr().out
    first, second = read_traces(path)
    assert [s.prm_scores for s in first.segments] == [{"judge-scripted": 1.0}, {}]
    assert second == other
    found = _agreement(capsys, path, "--labels", "ada", "--prm", "judge-scripted")
    assert found["prms"][0]["source"] == "stored" and found["prms"][0]["steps"] == 0


def test_a_file_with_an_unreadable_line_or_an_unknown_prm_is_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    write_traces(path, [_trace(["1 + 1 = 2."])])
    with path.open("a") as handle:
        handle.write("not json\n")
    before = path.read_bytes()
    with pytest.warns(UserWarning, match="line 2"):
        assert main(["score", str(path), "--prm", "arithmetic"]) == 2
    assert "rewriting it would drop them" in capsys.readouterr().err
    assert main(["score", str(path), "--prm", "nope"]) == 2
    assert "unknown prm 'nope'" in capsys.readouterr().err
    assert path.read_bytes() == before
    clean = tmp_path / "clean.jsonl"
    write_traces(clean, [_trace(["1 + 1 = 2."])])
    kept = clean.read_bytes()
    assert main(["score", str(clean), "--prm", "arithmetic", "--environment", "x"]) == 2
    assert "no trace of" in capsys.readouterr().err and clean.read_bytes() == kept
