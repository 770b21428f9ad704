"""The early-answering recipe: the answer forced after 0, 1/3 and 2/3 of the reasoning, and the
share of answers equal to the final one against the fraction kept.

The scripted backend gives all branches of one parent (one conversation) one script, read
from the length of the open assistant turn, so each fraction runs as its own experiment here
(one branch per parent and backend) and the map is drawn over their outcomes together.
"""

from __future__ import annotations

import dataclasses

from llenvs.core import Force
from llenvs.core.run_spec import DEFAULT_TEXT
from llenvs.experiments import (
    RelativePositions,
    plan_file,
    ready_recipe,
    run_experiment,
    summarize,
)
from llenvs.inference import get_backend
from llenvs.traces import SegmentFlag, read_branches
from tests.experiments.scripted_parents import parents_file


def test_early_answering_agreement_by_fraction_kept(tmp_path):
    parents = parents_file(tmp_path)
    recipe = ready_recipe("early-answering")
    assert recipe.what == Force(DEFAULT_TEXT)
    assert [p.segment for p in plan_file(recipe, parents)[:4]] == [0, 1, 2, 0]  # 0 and .25 meet
    outcomes = []
    for fraction in (0.0, 0.34, 0.67):
        one = dataclasses.replace(recipe, where=RelativePositions((fraction,)))
        scripts = []
        for branch in plan_file(one, parents):
            kept = "".join(s.text for s in branch.request.parent.segments[: branch.request.at])
            # no reasoning kept: the model guesses 5; after 1 or 2 segments: its final answer
            answer = "5" if branch.segment == 0 else branch.parent_answer
            scripts.append(kept + DEFAULT_TEXT + f"{answer}</answer>")
        backend = get_backend("scripted", outputs=scripts)
        run = run_experiment(one, parents, tmp_path / f"early{fraction}", backend, in_flight=4)
        assert run.complete and run.ran == 4
        outcomes.extend(run.outcomes)
    answers = {(o.task_index, o.segment): o.answer for o in outcomes}
    assert answers[(0, 0)] == "5" and answers[(0, 1)] == "8" and answers[(3, 2)] == "187"
    forced = [b for b in read_branches(parents)]
    assert len(forced) == 12
    assert all(
        SegmentFlag.FORCED in b.segments[b.parent.segment_index].flags
        and b.segments[b.parent.segment_index].text == DEFAULT_TEXT
        for b in forced
    )
    summary = summarize(outcomes, bins=3)
    # fraction kept 0 -> bin 0, 1/3 -> bin 1, 2/3 -> bin 2
    assert [b.branches for b in summary.map] == [4, 4, 4]
    assert [b.same_answer for b in summary.map] == [0.0, 1.0, 1.0]
    # parents 2 and 3 succeeded; answering 5 at once fails them: 2 flips, in the first bin
    assert [b.success_to_fail for b in summary.map] == [2, 0, 0]
