"""``llenvs analyze --returns`` with the real all-MiniLM-L6-v2 and new rollouts in the same run.

On the embedded SmolLM2, the first sample trace ("1. The answer is 12." ten times over: a
rollout from before a step often says the step again) gets rollouts, and the same run compares
each with the step it replaced by MiniLM sentence embeddings and stores what it found; a second
run adds rollouts and compares only those. The table's ``back`` and ``w/o return`` columns are
counted again here from the sidecar's own lines: the rollouts' verdicts and the stored returns.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from llenvs.analysis import RETURN_THRESHOLD, analysis_path
from llenvs.analysis.instruments import MINILM
from llenvs.cli import _analyze_command as analyze_command
from llenvs.cli.main import main
from llenvs.traces import find_trace

SEGMENTS = 10
"""The first sample trace's segments; it failed, so the value after the last one is 0, exact."""


def _stored(store: Path) -> list[dict]:
    return [json.loads(line) for line in store.read_text(encoding="utf-8").splitlines()]


def _columns(out: list[str]) -> dict[str, tuple[str, str]]:
    """Each row's ``back`` and ``w/o return`` cells, by the row's label, cut where the header
    puts them."""
    [header] = [line for line in out if line.startswith("seg ")]
    back, without = header.index("back"), header.index("w/o return")
    rows = out[out.index(header) + 1 : out.index(header) + 2 + SEGMENTS]
    return {
        row.split()[0]: (row[back : back + 5].strip(), row[without : without + 10].strip())
        for row in rows
    }


def _expected(lines: list[dict]) -> dict[str, tuple[str, str]]:
    """``back`` and ``w/o return`` of each row, from the stored rollouts and returns."""
    rollouts = {}
    for line in lines:
        if line["kind"] == "rollouts":
            for r in line["rollouts"]:
                assert r["error"] is None
                rollouts[(r["boundary"], r["number"])] = r["success"]
    returned = {}
    for line in lines:
        if line["kind"] == "returns":
            for r in line["returns"]:
                returned[(r["boundary"], r["number"])] = r["at"] is not None
    assert set(returned) == set(rollouts)  # every rollout compared, once
    value = {SEGMENTS: 0.0}
    by_boundary = defaultdict(list)
    for (boundary, number), success in rollouts.items():
        by_boundary[boundary].append((success, returned[(boundary, number)]))
    for boundary, found in by_boundary.items():
        value[boundary] = sum(s for s, _ in found) / len(found)
    cells = {}
    for boundary in range(SEGMENTS):
        found = by_boundary.get(boundary)
        if not found:
            cells[str(boundary)] = ("", "")
            continue
        share = f"{sum(r for _, r in found) / len(found):.2f}"
        kept = [s for s, r in found if not r]
        without = ""
        if kept and boundary + 1 in value:
            without = f"{value[boundary + 1] - sum(kept) / len(kept):+.2f}"
        cells[str(boundary)] = (share, without)
    cells["end"] = ("", "")
    return cells


def test_analyze_returns_with_minilm_compares_the_rollouts_it_makes(
    monkeypatch, sample_copy, embedded_backend, capsys
):
    monkeypatch.setattr(analyze_command, "recorded_backend", lambda *a, **k: embedded_backend)
    trace = find_trace(sample_copy, "1")
    assert len(trace.segments) == SEGMENTS and trace.success is False
    store = analysis_path(sample_copy)
    argv = ["analyze", str(sample_copy), "--trace", "1", "--no-progress"]
    argv += ["--tokens-per-second", "15", "--schedule", "fixed", "--max-tokens", "12"]
    argv += ["--returns", "--similarity", "minilm"]

    assert main([*argv, "--budget", str(SEGMENTS)]) == 0  # one rollout a boundary
    out = capsys.readouterr().out.splitlines()
    assert "10 rollouts (10 generated now, 0 read back) in 1 rounds" in "\n".join(out)
    lines = _stored(store)
    assert [line["kind"] for line in lines] == ["rollouts", "returns"]
    rollouts_key, returns_key = lines[0]["key"], lines[1]["key"]
    assert returns_key == {
        **rollouts_key,
        "similarity": MINILM,
        "return_threshold": RETURN_THRESHOLD,
    }
    for found in lines[1]["returns"]:  # returned where, and only where, MiniLM says 0.8
        assert -1.0 <= found["similarity"] <= 1.0 + 1e-6
        assert (found["at"] is not None) == (found["similarity"] >= RETURN_THRESHOLD), found
    assert _columns(out) == _expected(lines)
    returned = sum(r["at"] is not None for r in lines[1]["returns"])
    assert (
        f"Removed content returned in {returned} of 10 rollouts (similarity ≥ 0.8: {MINILM} "
        "sentence embeddings)"
    ) in out

    # more rollouts: only the new ones are compared, the first ten read back
    assert main([*argv, "--budget", "14"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "14 rollouts (4 generated now, 10 read back) in 2 rounds" in "\n".join(out)
    lines = _stored(store)
    assert [line["kind"] for line in lines] == ["rollouts", "returns"] * 2
    new = {(r["boundary"], r["number"]) for r in lines[2]["rollouts"]}
    assert {(r["boundary"], r["number"]) for r in lines[3]["returns"]} == new
    assert lines[3]["key"] == returns_key and len(new) == 4
    assert _columns(out) == _expected(lines)

    # read back alone (--budget 0): the same columns, nothing compared again
    assert main(["analyze", str(sample_copy), "--trace", "1", "--budget", "0", "--returns"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert _columns(again) == _expected(lines)
    assert len(_stored(store)) == 4
