"""The tour's first interventions (docs/tour.md), step by step, on the embedded model.

"Your first interventions" steps 1-3: Browse, ``letter_counting-smollm2.jsonl`` line 14 (how
many times "d" appears in "Madrid"; the model says 1 and fails), segment 0, Force
``The answer to this question is 2.``, Generate; the branch beside its parent turns the final
answer 1 into 2 and the failure into a success. One real-model run (a few tokens). Steps 4 and 6
point at branches the sample sidecars already hold; those are checked as recorded.
"""

from __future__ import annotations

import shutil

import pytest
from scipy.stats import percentileofscore

from llenvs.core import Feedback, Force, Resample
from llenvs.traces import read_branches, read_traces
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import ModelKind
from tests.app.test_intervention import generate
from tests.app.test_pages import REPO, open_page

SAMPLES = REPO / "sample_traces"
FORCED = "The answer to this question is 2."
"""The text step 2 of the tour types into the force box."""


def test_the_readmes_first_force_turns_a_failure_into_a_success(
    tmp_path, monkeypatch, embedded_backend
):
    del embedded_backend  # converted and loaded once per session; the app shares it
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in ("letter_counting-smollm2.jsonl", "letter_counting-smollm2.branches.jsonl"):
        shutil.copy(SAMPLES / name, traces / name)
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    path = traces / "letter_counting-smollm2.jsonl"
    # 1. Browse, the file, line 14: "Madrid", the model says 1 and fails
    at = open_page("browse", file=str(path), trace="14")
    assert any("task 13 · line 14" in s.value for s in at.subheader)
    assert any(c.value.startswith("failed") for c in at.caption)
    # 2. segment 0 (selected), Force with the right count, Generate, with the trace's own model
    assert at.selectbox(key="iv-model").value is ModelKind.EMBEDDED
    assert any(s.value == "Intervene on segment 0" for s in at.subheader)
    at.text_area(key="iv-force-text").input(FORCED).run()
    # before Generate: how on-policy the text is, scored in the background
    at.button(key="iv-op-run").click().run(timeout=120)
    _, job = at.session_state["iv-op-job"]
    assert job.wait(600), "the on-policy score did not finish"
    at.run(timeout=120)
    assert "iv-op-job" not in at.session_state and not at.exception, at.exception
    [scored] = at.session_state["iv-op-scores"].values()
    assert scored.samples == len(scored.sample_means) == 16 and scored.tokens > 0
    # its place among the 16 continuations' scores, ranked by scipy (ties half, NaN out)
    rank = percentileofscore(
        scored.sample_means, scored.mean_logprob, kind="mean", nan_policy="omit"
    )
    assert scored.percentile == pytest.approx(rank)
    shown = f"{scored.summary()}; recorded on the branch Generate makes."
    assert shown in [c.value for c in at.caption]
    generate(at, timeout=900)
    assert not at.exception, at.exception
    # 3. the branch just made, beside its parent: answer 1 -> 2, failed -> succeeded
    parent = list(read_traces(path))[13]
    made = [b for b in read_branches(path) if b.parent.parent_id == parent.trace_id][-1]
    assert made.parent.intervention == Force(FORCED)
    assert made.metadata["on_policy"] == scored.to_record()  # recorded as shown, not recomputed
    assert at.selectbox(key="iv-compare").value == made.trace_id
    summary = next(d.value for d in at.dataframe if "change" in d.value.columns).set_index("")
    assert summary.loc["final answer", ["parent", "branch"]].tolist() == ["1", "2"]
    assert summary.loc["success", "change"] == "False → True"


def test_the_walkthroughs_recorded_feedback_and_resample_say_what_the_readme_says():
    products = list(read_traces(SAMPLES / "products-smollm2.jsonl"))
    branches = list(read_branches(SAMPLES / "products-smollm2.jsonl"))
    # 4. line 9 (5 * 3, failed): feedback after segment 3, answered 15, a success
    line9 = products[8]
    [feedback] = [b for b in branches if b.parent.parent_id == line9.trace_id]
    assert line9.success is False and feedback.success is True
    assert isinstance(feedback.parent.intervention, Feedback)
    assert feedback.parent.segment_index == 4  # after segment 3
    # 6. line 2 (2 * 7, failed): 8 samples from segment 0 at 0.8, seed 0; 1 of 8 succeeds
    line2 = products[1]
    samples = [b for b in branches if b.parent.parent_id == line2.trace_id]
    assert all(isinstance(s.parent.intervention, Resample) for s in samples) and len(samples) == 8
    assert sum(bool(s.success) for s in samples) == 1 and samples[0].run.spec.sampling.seed == 0


def test_every_sample_trace_records_its_prm_and_answer_opening():
    """The header names the PRM whose scores the table shows; branches open answers alike."""
    files = sorted(SAMPLES.glob("*-smollm2.jsonl")) + sorted(SAMPLES.glob("*.branches.jsonl"))
    files = [f for f in files if not f.name.endswith(".analysis.jsonl")]
    assert len(files) == 9
    for path in files:
        for trace in read_traces(path):
            scored = any(s.prm_scores for s in trace.segments)
            assert scored and trace.run.spec.prm is not None, f"{path.name}: {trace.trace_id}"
            assert trace.run.spec.answer_opening is not None, f"{path.name}: {trace.trace_id}"
