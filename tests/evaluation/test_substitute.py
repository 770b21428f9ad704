"""On-policy substitutes: the model's own segment closest to a target, on the embedded model.

The checks that can fail: the chosen try is the closest one recorded and its similarity is the
measure's own; sampling stops as soon as a try comes close, and not before; a target the model
would never write is said plainly not to be reached; the model's own substitute is likelier to
it than the target forced; the branch forces the chosen text, records the substitute, and is
made again from its record.
"""

from __future__ import annotations

import json

import pytest

from llenvs.analysis.instruments import LexicalSimilarity, MiniLMSimilarity
from llenvs.cli.main import main
from llenvs.core import Substitute, intervention_from_record
from llenvs.core.errors import OutOfBoundsError, RecordFormatError
from llenvs.evaluation import BranchRequest, intervene
from llenvs.evaluation.branching import (
    branch,
    find_substitute,
    rerun_branch,
    substitution_from_record,
)
from llenvs.inference import get_backend
from llenvs.traces import BranchRecord, SegmentFlag, read_branches, read_traces, write_traces
from tests.conftest import REPO
from tests.helpers import leg_counting_trace

SAMPLE = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"
"""Traces the embedded model wrote greedily: each segment is its own choice."""

FAR = "Photosynthesis turns sunlight into sugar inside the chloroplasts of green leaves."
"""A target no try on a leg-counting trace comes close to."""


def _trace():
    return next(iter(read_traces(SAMPLE)))


def test_a_substitute_is_a_record_checked_when_made():
    made = Substitute("So 4 legs. ", tries=4, similarity=0.5, temperature=0.7, seed=2)
    assert intervention_from_record(json.loads(json.dumps(made.to_record()))) == made
    assert BranchRecord("p", 1, made).intervention == made
    with pytest.raises(OutOfBoundsError, match=r"tries must be 1\.\.256"):
        Substitute("x", tries=0)
    with pytest.raises(ValueError, match="temperature must be above 0"):
        Substitute("x", temperature=0.0)
    with pytest.raises(ValueError, match="target text that is not blank"):
        Substitute("  ")
    with pytest.raises(RecordFormatError, match="choose from kind, text, tries, similarity"):
        intervention_from_record({"kind": "substitute", "text": "x", "try": 3})


def test_branch_alone_refuses_a_substitute_it_has_not_searched_for():
    parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    backend = get_backend("scripted", outputs=["Count. So 9. <answer>9</answer>"])
    with pytest.raises(ValueError, match="searched for before it branches"):
        branch(BranchRequest(parent, 1, Substitute("So 100. ")), backend)


def test_sampling_stops_at_the_first_batch_that_comes_close():
    parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    backend = get_backend("scripted", outputs=["Count. So 100 legs. More"])
    found = find_substitute(
        parent, 1, Substitute("So 100 legs.", tries=12, similarity=0.9), backend,
        LexicalSimilarity(), batch=3,
    )  # fmt: skip
    assert (found.tries, found.asked, found.text) == (3, 12, "So 100 legs. ")
    assert found.reached and found.similarity == pytest.approx(1.0)
    assert substitution_from_record(json.loads(json.dumps(found.to_record()))) == found


def test_the_embedded_model_s_closest_try_is_chosen_and_measured_as_recorded(embedded_backend):
    trace, at = _trace(), 2
    target = trace.segments[at].text  # the model's own greedy segment
    asked = Substitute(target, tries=8, similarity=0.999, seed=5)
    found = find_substitute(trace, at, asked, embedded_backend, MiniLMSimilarity(), batch=4)
    assert len(found.try_similarities) == found.tries
    assert found.similarity == max(found.try_similarities)
    again = MiniLMSimilarity().similarities(target, [found.text])[0]
    assert found.similarity == pytest.approx(again, abs=1e-4)
    if found.reached:  # it stopped at the batch that came close, not later
        assert found.tries in (4, 8)
        assert all(score < 0.999 for score in found.try_similarities[: found.tries - 4])
    else:
        assert found.tries == 8


def test_a_far_target_is_not_reached_and_its_substitute_is_likelier_than_it(embedded_backend):
    trace, at = _trace(), 2
    asked = Substitute(FAR, tries=6, similarity=0.9, seed=1)
    found = find_substitute(
        trace, at, asked, embedded_backend, MiniLMSimilarity(), batch=3, on_policy_samples=6
    )
    assert not found.reached and found.tries == 6 and found.similarity < 0.9
    assert found.summary().startswith("no try came close: the closest of 6 tries")
    assert found.on_policy is not None and found.forced_on_policy is not None
    assert found.on_policy.mean_logprob > found.forced_on_policy.mean_logprob
    assert found.forced_on_policy.percentile < 50


def test_intervene_forces_the_chosen_text_and_the_branch_is_made_again(embedded_backend, tmp_path):
    path = tmp_path / "t.jsonl"
    write_traces(path, [_trace()])
    parent = _trace()
    asked = Substitute(parent.segments[1].text, tries=4, similarity=0.5, seed=3)
    [child] = intervene(
        path, BranchRequest(parent, 1, asked), embedded_backend, similarity=LexicalSimilarity()
    )
    found = substitution_from_record(child.metadata["substitute"])
    assert child.parent is not None and child.parent.intervention == asked
    assert child.segments[0].text == parent.segments[0].text
    assert child.segments[1].text == found.text and SegmentFlag.FORCED in child.segments[1].flags
    [stored] = read_branches(path)
    assert stored.metadata["substitute"] == child.metadata["substitute"]
    again = rerun_branch(stored, parent, embedded_backend)
    assert again.response == child.response  # the chosen text forced again, greedy after it


def test_llenvs_intervene_substitute_prints_and_records_the_search(tmp_path, capsys):
    traces = tmp_path / "runs.jsonl"
    write_traces(traces, [leg_counting_trace("Count. So 8. <answer>8</answer>")])
    responses = tmp_path / "responses.jsonl"  # the scripted model's response, one a line
    responses.write_text(json.dumps("Count. So 100 legs. Done. <answer>100</answer>") + "\n")
    argv = ["intervene", str(traces), "--at", "1", "--substitute", "So 100 legs.", "--tries", "3"]
    argv += ["--similarity", "0.9", "--measure", "lexical", "--backend", "scripted"]
    assert main([*argv, "--responses", str(responses), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "substitute found in 3 of 3 tries: similarity 1.00 (asked 0.90, lexical)" in printed
    [child] = read_branches(traces)
    assert child.metadata["substitute"]["target"] == "So 100 legs."
    assert child.metadata["substitute"]["tries"] == 3
    assert child.segments[1].text == "So 100 legs. "


def test_llenvs_intervene_refuses_a_similarity_out_of_range(tmp_path, capsys):
    traces = tmp_path / "runs.jsonl"
    write_traces(traces, [leg_counting_trace("Count. So 8. <answer>8</answer>")])
    argv = ["intervene", str(traces), "--at", "1", "--substitute", "x", "--similarity", "1.5"]
    with pytest.raises(SystemExit):
        main(argv)
    assert "--similarity: expected a number in (0, 1], got 1.5" in capsys.readouterr().err
    assert not (tmp_path / "runs.branches.jsonl").exists()
