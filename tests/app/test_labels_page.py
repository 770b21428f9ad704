"""The Labels page: the library's numbers (those of ``llenvs agreement --json``), links to Browse.

On the sample ``sample_traces/processbench-prm800k.jsonl`` (197 ProcessBench/PRM800K solutions,
their labels in the store, ArithmeticPRM's and the embedded judge's scores stored), the page's
tables equal ``llenvs agreement --json`` on the same file, the judge's numbers equal those
``bench/prm.py`` published, and a disagreement's link opens Browse at its trace and step. A
file without labels says so; a labels file with a malformed line names it and compares the rest.
"""

from __future__ import annotations

import json
import math
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llenvs.cli.main import main
from llenvs.traces import StepLabel, TraceReader, append_labels, labels_path, write_traces
from llenvs.workbench.files import TRACE_ROOTS_ENV, TRACES_DIR_ENV
from tests.app.conftest import html_trace
from tests.app.test_pages import REPO, open_page, texts
from tests.conftest import read_jsonl

SAMPLE = "sample_traces/processbench-prm800k.jsonl"
MEASURES = ("auroc", "f1", "accuracy", "accuracy_error", "accuracy_correct")
"""The measures of a PRM against a labeller, in the page's table's order."""
JUDGE = "judge-smollm2"
"""The name the sample stores the embedded judge's scores under."""


@pytest.fixture()
def samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app as ``make run`` starts it: the sample folder, run from the repository."""
    monkeypatch.delenv(TRACES_DIR_ENV, raising=False)
    monkeypatch.delenv(TRACE_ROOTS_ENV, raising=False)
    monkeypatch.chdir(REPO)


def _agreement_json(capsys: pytest.CaptureFixture[str], path: str, *args: str) -> Any:
    capsys.readouterr()
    assert main(["agreement", path, *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _tables(at: Any) -> Iterator[tuple[str, list[list[Any]]]]:
    """Each PRM section's subheader with its table's rows (one table per section, in order)."""
    headers = [h.value for h in at.subheader if " against " in h.value]
    tables = [d.value for d in at.dataframe if list(d.value.columns)[:2] == ["measure", "estimate"]]
    tables = tables[-len(headers) :] if headers else []
    for header, table in zip(headers, tables, strict=True):
        yield header, table[["estimate", "low", "high"]].values.tolist()


def _same(shown: float, recorded: float | None) -> bool:
    return math.isnan(shown) if recorded is None else shown == recorded


def test_the_pages_numbers_are_llenvs_agreements_on_the_sample(samples, capsys):
    at = open_page("labels")
    assert at.sidebar.selectbox[0].value == SAMPLE  # the one file with labels opens first
    record = _agreement_json(
        capsys, SAMPLE, "--labels", "processbench", "--labels", "prm800k",
        "--prm", "arithmetic", "--prm", JUDGE,
    )  # fmt: skip
    coverage = at.dataframe[0].value.set_index("labeller")
    for name, counted in record["labellers"].items():
        row = coverage.loc[name]
        assert row["traces"] == counted["traces"]
        assert row["with an error"] == counted["traces_with_error"]
        assert row["steps labelled"] == counted["steps_labelled"]
        assert row["coverage"] == counted["coverage"]
        assert [row["−1 wrong"], row["0 neutral"], row["+1 right"]] == [
            counted["counts"][label] for label in ("-1", "0", "1")
        ]
    shown = dict(_tables(at))
    assert len(shown) == len(record["prms"]) == 4
    for prm in record["prms"]:
        rows = shown[f"{prm['prm']} against {prm['labeller']}"]
        for row, measure in zip(rows, MEASURES, strict=True):
            expected = prm[measure]
            assert all(
                _same(value, expected[end])
                for value, end in zip(row, ("value", "low", "high"), strict=True)
            ), (prm["prm"], prm["labeller"], measure, row, expected)
    captions = texts(at)
    assert "188 traces labelled and scored (95 with an error)" in captions  # arithmetic
    assert "63 traces labelled and scored (32 with an error)" in captions  # the judge: GSM8K


def test_the_samples_judge_scores_give_the_numbers_bench_prm_published(samples, capsys):
    """``bench/prm.py``'s JudgePRM row (docs/benchmarks.md) from the sample's stored scores."""
    found = _agreement_json(capsys, SAMPLE, "--labels", "processbench", "--prm", JUDGE)
    [judge] = found["prms"]
    assert (judge["traces"], judge["source"]) == (63, "stored")
    benchmarks = (REPO / "docs" / "benchmarks.md").read_text()
    [row] = re.findall(r"^\| JudgePRM \(SmolLM2-135M-Instruct\) \|(.*)\|$", benchmarks, re.M)
    published = [float(cell) for cell in row.split("|")]
    ours = [judge[m]["value"] for m in ("accuracy", "accuracy_error", "accuracy_correct")]
    ours += [judge["f1"]["value"], judge["auroc"]["value"]]
    assert [round(v, 3) for v in ours] == published


def test_a_disagreement_links_to_its_trace_and_step_in_browse(samples, capsys):
    at = open_page("labels")
    record = _agreement_json(
        capsys, SAMPLE, "--labels", "processbench", "--prm", "arithmetic", "--resamples", "0"
    )
    first = record["prms"][0]["disagreements"][0]
    link = next(  # the first disagreement listed under "arithmetic against processbench"
        link
        for link in at.get("page_link")
        if re.match(r"line \d+, segment \d+: processbench .*, arithmetic ", link.proto.label)
    )
    params = dict(urllib.parse.parse_qsl(link.proto.query_string))
    assert params["file"] == SAMPLE
    lines = {t.trace_id: n for n, t in TraceReader(REPO / SAMPLE).numbered()}
    assert params == {
        "file": SAMPLE,
        "trace": str(lines[first["trace_id"]]),
        "segment": str(first["segment"]),
    }
    assert str(link.proto.label).startswith(
        f"line {lines[first['trace_id']]}, segment {first['segment']}: processbench −1, "
        f"arithmetic {first['other']:.3f}"
    )
    browse = open_page("browse", **params)
    assert browse.subheader[0].value.endswith(f"line {params['trace']}")
    assert f"Segment {params['segment']}" in [t.label for t in browse.tabs]


def test_a_file_without_labels_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    write_traces(tmp_path / "plain.jsonl", [html_trace()])
    at = open_page("labels")
    assert not at.exception
    assert "has no step labels" in texts(at)
    assert not at.dataframe


def test_a_malformed_labels_line_is_named_and_the_rest_compared(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    out = _gsm8k_file(tmp_path, 6)
    rows = [r for r in read_jsonl("step_traces.jsonl") if r["dataset"] == "processbench/gsm8k"]
    first = next(iter(TraceReader(out)))
    store = labels_path(out)
    with store.open("a") as handle:
        handle.write('{"trace_id": "' + first.trace_id + '", "segment": "x"}\n')
    append_labels(out, [StepLabel(first.trace_id, 0, -1, "ada")])
    capsys.readouterr()
    at = open_page("labels", file=str(out))
    lines = len(store.read_text().splitlines())
    [warning] = at.warning
    assert f"{store}, line {lines - 1}" in warning.value
    assert "Skipped 1 line" in warning.value
    coverage = at.dataframe[0].value.set_index("labeller")
    counted = _agreement_json(capsys, str(out), "--labels", "processbench", "--labels", "ada")
    assert (
        coverage.loc["processbench", "steps labelled"]
        == (counted["labellers"]["processbench"]["steps_labelled"])
    )
    assert coverage.loc["ada", "steps labelled"] == 1  # the line after the bad one loads too
    assert counted["labellers"]["processbench"]["steps_labelled"] == sum(
        label is not None for r in rows[:6] for label in r["labels"]
    )


def _gsm8k_file(folder: Path, count: int) -> Path:
    """The first ``count`` GSM8K rows of the step file imported into ``folder/steps.jsonl``."""
    rows = [r for r in read_jsonl("step_traces.jsonl") if r["dataset"] == "processbench/gsm8k"]
    (folder / "in").mkdir()
    source = folder / "in" / "rows.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in rows[:count]) + "\n")
    out = folder / "steps.jsonl"
    assert main(["import", "processbench", str(source), "-o", str(out)]) == 0
    return out


def test_a_prm_scored_now_on_the_page_gives_the_clis_numbers(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    out = _gsm8k_file(tmp_path, 12)
    at = open_page("labels", file=str(out))
    assert not dict(_tables(at))  # the file stores no scores
    assert "The file stores no PRM scores" in texts(at)
    assert at.selectbox(key="labels-now-prm").value == "arithmetic"
    at.button(key="labels-now-score").click().run()
    assert not at.exception
    record = _agreement_json(capsys, str(out), "--labels", "processbench", "--prm", "arithmetic")
    [prm] = record["prms"]
    assert prm["source"] == "scored now"
    rows = dict(_tables(at))["arithmetic against processbench"]
    for row, measure in zip(rows, MEASURES, strict=True):
        assert all(
            _same(value, prm[measure][end])
            for value, end in zip(row, ("value", "low", "high"), strict=True)
        )
    assert "Scores made now; 12 traces labelled and scored" in texts(at)


def test_it_opens_on_the_most_labelled_file_not_on_one_labelled_in_browse(tmp_path, monkeypatch):
    """Labels kept on an earlier file (a few steps labelled in Browse) do not hide the labelled
    dataset: the page opens on the file with the largest label store, as the tour says."""
    folder = tmp_path / "traces"
    folder.mkdir()
    for name in ("a-first.jsonl", "processbench-prm800k.jsonl"):
        (folder / name).write_bytes((REPO / SAMPLE).read_bytes() if "process" in name else b"")
    write_traces(folder / "a-first.jsonl", [html_trace()])
    append_labels(folder / "a-first.jsonl", [StepLabel(html_trace().trace_id, 0, 1, "me")])
    labels_path(folder / "processbench-prm800k.jsonl").write_bytes(
        labels_path(REPO / SAMPLE).read_bytes()
    )
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    at = open_page("labels")
    assert not at.exception, at.exception
    assert Path(at.sidebar.selectbox[0].value).name == "processbench-prm800k.jsonl"
