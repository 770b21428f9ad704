"""``intervene`` with a PRM: ``"judge"`` is the branch's own model, options reach the PRM."""

from __future__ import annotations

import pytest

from llenvs.core import Force, SegmentedEnvironment
from llenvs.core.errors import BackendError
from llenvs.core.run_spec import ModelSpec, PRMKind, PRMSpec
from llenvs.evaluation import BranchRequest, intervene
from llenvs.evaluation.branching import replay_trace
from llenvs.inference import get_backend
from llenvs.rewards.prm import JUDGE_SYSTEM_PROMPT
from llenvs.traces import write_traces


class Recording:
    """The scripted branch model, recording whether the judge's questions came to it."""

    def __init__(self, inner):
        self.inner, self.judged = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def generate(self, requests):
        asked = [r for r in requests if r.prompt.messages[0].content == JUDGE_SYSTEM_PROMPT]
        self.judged += len(asked)
        return self.inner.generate(requests)


@pytest.fixture
def parent_file(leg_counting, tmp_path):
    parent = replay_trace(SegmentedEnvironment(leg_counting, "sentence"), 0,
                          "Count. So 8. <answer>8</answer>", model="scripted")  # fmt: skip
    path = tmp_path / "t.jsonl"
    write_traces(path, [parent])
    return path, parent


def test_the_judge_is_the_branchs_own_model(parent_file):
    path, parent = parent_file
    prompt = parent.task.prompt
    model = Recording(get_backend("scripted", by_prompt={prompt: "So 100. <answer>100</answer>"}))
    [child] = intervene(path, BranchRequest(parent, 1, Force("So 100. ")), model, prm="judge")
    assert model.judged > 0  # its unscripted verdicts leave the steps unrated, never guessed
    assert child.run.spec.prm == PRMSpec(PRMKind.JUDGE, class_name="JudgePRM")
    assert child.run.spec.model == ModelSpec.parse("scripted")  # the judge: its own model


def test_prm_options_reach_the_prm_even_under_the_recorded_name(parent_file):
    path, parent = parent_file
    model = get_backend("scripted", outputs=["So 100. <answer>100</answer>"] * 2)
    url = "http://127.0.0.1:9/v1"  # nothing serves there: the PRM's error names it
    with pytest.raises(BackendError, match=r"the PRM 'm' at http://127.0.0.1:9/pooling"):
        intervene(path, BranchRequest(parent, 1, Force("So 100. ")), model,
                  prm="vllm/m", prm_options={"base_url": url})  # fmt: skip
    [child] = intervene(path, BranchRequest(parent, 1, Force("So 100. ")), model,
                        prm="arithmetic", prm_options={"neutral": 1.0})  # fmt: skip
    assert child.segments[0].prm_scores == {"prm": 1.0}  # "Count." checks nothing: neutral
    model = get_backend("scripted", outputs=["So 100. <answer>100</answer>"] * 2)
    [grandchild] = intervene(path, BranchRequest(child, 1, Force("So 100. ")), model,
                             prm="arithmetic", prm_options={"neutral": 0.25})  # fmt: skip
    assert grandchild.segments[0].prm_scores == {"prm": 0.25}  # made anew, with the option
    [plain] = intervene(path, BranchRequest(child, 1, Force("So 100. ")), model,
                        prm="arithmetic")  # fmt: skip
    assert plain.segments[0].prm_scores == {"prm": 0.5}  # the recorded one: its own default


def test_the_mc_prm_continues_with_the_branchs_model_and_the_traces_task(parent_file):
    import llenvs.analysis  # noqa: F401  (registers "mc", as the CLI and the workbench do)

    path, parent = parent_file
    prompt = parent.task.prompt
    # every continuation reads the rest of this script: from any step it answers 100 (right)
    model = get_backend("scripted", by_prompt={prompt: "Count. So 100. <answer>100</answer>"})
    [child] = intervene(path, BranchRequest(parent, 1, Force("So 100. ")), model,
                        prm="mc", prm_options={"rollouts": 2})  # fmt: skip
    assert child.run.spec.prm is not None and child.run.spec.prm.kind is PRMKind.MC
    assert child.success and [s.text for s in child.segments][1:] == [
        "So 100. ",
        "<answer>100</answer>",
    ]
    assert [s.prm_scores.get("prm") for s in child.segments] == [1.0, 1.0, 1.0]
