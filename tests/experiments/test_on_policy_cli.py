"""``llenvs experiment --force ... --on-policy K`` through the CLI, on the embedded SmolLM2.

Each branch records how on-policy its forced text is (``metadata.on_policy``), its outcome the
percentile and the mean; both are computed again here from their definition (the text scored
after the parent's prefix, K continuations of as many tokens sampled from the same prefix at
temperature 1 with the run's derived seeds, the percentile the share of samples below it, ties
counting half), and the summary's table of rates by percentile is counted again from the
outcomes.
"""

from __future__ import annotations

import re
import shutil

from llenvs.cli import _experiment_command as experiment_command
from llenvs.cli.main import main
from llenvs.core import GenerationRequest, SamplingParams
from llenvs.evaluation.branching import prefix_prompt
from llenvs.evaluation.episodes import derived_seeds
from llenvs.experiments import read_experiment
from llenvs.traces import read_branches, read_traces
from tests.analysis.conftest import SAMPLE
from tests.floats import close

FORCED = "Each cow has 4 legs."
K = 4


def _percentile(mean: float, samples: list[float]) -> float:
    below = sum(s < mean for s in samples) + 0.5 * sum(s == mean for s in samples)
    return 100 * below / len(samples)


def _bin_lines(outcomes) -> list[str]:
    """The summary's lines of rates by percentile, counted from the outcomes (4 bins of 25)."""
    bins: dict[int, list] = {}
    for outcome in outcomes:
        bins.setdefault(min(3, int(outcome.on_policy // 25)), []).append(outcome)
    lines = []
    for number in sorted(bins):
        inside = bins[number]
        flips = sum(o.parent_success != o.success for o in inside)
        changed = sum(o.answer != o.parent_answer for o in inside)
        lines.append(
            f"  [{25 * number}, {25 * (number + 1)}) n={len(inside)}: flips "
            f"{100 * flips / len(inside):.1f}%, answer changed {100 * changed / len(inside):.1f}%"
        )
    return lines


def test_experiment_on_policy_records_each_branchs_score_and_tables_the_rates(
    tmp_path, monkeypatch, capsys, embedded_backend
):
    parents_path = tmp_path / "runs.jsonl"
    shutil.copy(SAMPLE, parents_path)
    parents = {t.trace_id: t for t in read_traces(parents_path)}
    # the trace's own model, already loaded once for the session
    monkeypatch.setattr(experiment_command, "recorded_backend", lambda *a, **k: embedded_backend)
    argv = ["experiment", str(parents_path), "--at", "0", "--force", FORCED]
    argv += ["--on-policy", str(K), "--samples", "2", "--max-tokens", "8"]
    argv += ["-o", str(tmp_path / "force"), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("4 branches planned, 0 recorded before")

    header, outcomes = read_experiment(tmp_path / "force.experiment.jsonl")
    assert header.recipe.how.on_policy == K and len(outcomes) == 4
    branches = {b.trace_id: b for b in read_branches(parents_path)}
    scored = {}
    for outcome in outcomes:
        record = branches[outcome.branch_id].metadata["on_policy"]
        parent = parents[outcome.parent_id]
        # the outcome keeps the branch's percentile and mean
        assert (outcome.on_policy, outcome.on_policy_logprob) == (
            record["percentile"],
            record["mean_logprob"],
        )
        assert record["samples"] == K and len(record["sample_mean_logprobs"]) == K
        assert record["percentile"] == _percentile(
            record["mean_logprob"], record["sample_mean_logprobs"]
        )
        scored.setdefault(outcome.parent_id, []).append(record)
        # the forced text and the segment it replaces, scored after the parent's prefix
        prompt = prefix_prompt(parent, outcome.segment)
        forced, original = embedded_backend.score(
            [(prompt, FORCED), (prompt, parent.segments[outcome.segment].text)]
        )
        assert record["tokens"] == len(forced.token_ids)
        assert record["mean_logprob"] == close(forced.mean)
        assert record["total_logprob"] == close(forced.total)
        assert record["original_mean_logprob"] == close(original.mean)
    # one score per point, shared by its two samples; each point's own samples, made again
    assert set(scored) == set(parents)
    for parent_id, records in scored.items():
        assert records[0] == records[1]
        prompt = prefix_prompt(parents[parent_id], 0)
        length = records[0]["tokens"]
        requests = [
            GenerationRequest(
                prompt, SamplingParams(max_tokens=length, temperature=1.0, seed=seed), length
            )
            for seed in derived_seeds(header.recipe.how.seed, K)
        ]
        texts = [g.text for g in embedded_backend.generate(requests)]
        means = [s.mean for s in embedded_backend.score([(prompt, t) for t in texts])]
        assert records[0]["sample_mean_logprobs"] == close(means)

    # the summary: the rates by percentile, counted from the outcomes, after their heading
    heading = out.index("by on-policy percentile of the forced text:")
    table = []
    for line in out[heading + 1 :]:
        if not line.startswith("  ["):
            break
        table.append(line)
    assert table == _bin_lines(outcomes)
    assert sum(int(re.search(r"n=(\d+)", line)[1]) for line in table) == 4
    assert out[heading + 1 + len(table)].startswith("recorded in ")


def test_on_policy_with_a_backend_that_cannot_score_is_refused_before_any_branch(tmp_path, capsys):
    parents_path = tmp_path / "runs.jsonl"
    shutil.copy(SAMPLE, parents_path)
    responses = tmp_path / "responses.jsonl"
    responses.write_text('"<answer>8</answer>"\n' * 4, encoding="utf-8")
    argv = ["experiment", str(parents_path), "--at", "0", "--force", FORCED, "--on-policy", "4"]
    argv += ["--backend", "scripted", "--responses", str(responses), "-o", str(tmp_path / "x")]
    assert main([*argv, "--no-progress"]) == 2
    assert "scripted cannot score a text" in capsys.readouterr().err
    assert list(read_branches(parents_path)) == []
    assert not (tmp_path / "x.experiment.jsonl").exists()
