"""An experiment of substitutes: ``how.substitute`` turns each point's forced text into a target.

The scripted model writes each parent's right answer at segment 2; the recipe asks for that
answer as a substitute target, so every branch forces the model's own try (the closest, after
one batch), records the substitute and the search, and succeeds.
"""

from __future__ import annotations

import pytest

from llenvs.core import Force, Substitute
from llenvs.experiments import (
    How,
    ParentFilter,
    Recipe,
    SegmentAt,
    SubstituteHow,
    read_experiment,
    recipe_from_toml,
    run_experiment,
)
from llenvs.inference import get_backend
from llenvs.traces import read_branches
from tests.experiments.scripted_parents import EXPECTED, parents_file

TARGET = "So {expected}. <answer>{expected}</answer>"


def test_how_substitute_makes_substitutes_of_the_forced_text_and_records_each_search(tmp_path):
    parents = parents_file(tmp_path)
    how = How(seed=3, substitute=SubstituteHow(tries=2, similarity=0.5, measure="lexical"))
    recipe = Recipe("sub", ParentFilter(), SegmentAt(2), Force(TARGET), how)
    assert recipe_from_toml(recipe.to_toml()) == recipe
    script = [f"Count. Think. So {answer}. <answer>{answer}</answer>" for answer in EXPECTED]
    run = run_experiment(recipe, parents, tmp_path / "sub", get_backend("scripted", outputs=script))
    assert run.ran == 4 and all(o.success for o in run.outcomes)
    branches = {b.parent.parent_id: b for b in read_branches(parents)}
    for outcome, answer in zip(
        sorted(run.outcomes, key=lambda o: o.task_index), EXPECTED, strict=True
    ):
        branch = branches[outcome.parent_id]
        asked = branch.parent.intervention
        target = f"So {answer}. <answer>{answer}</answer>"
        assert asked == Substitute(target, 2, 0.5, 1.0, outcome.seed)
        found = branch.metadata["substitute"]
        assert (found["target"], found["text"], found["tries"]) == (target, target, 2)
        assert found["measure"] == "lexical" and branch.segments[2].text == target
    _, recorded = read_experiment(run.path)
    assert len(recorded) == 4


def test_a_substitute_how_with_an_unknown_measure_is_refused_when_read():
    text = 'name = "x"\n[where]\nrule = "segment"\nindex = 1\n[what]\nkind = "force"\n'
    text += 'text = "y"\n[how.substitute]\nmeasure = "cosine"\n'
    with pytest.raises(ValueError, match="measure: choose minilm or lexical, got 'cosine'"):
        recipe_from_toml(text)
