"""Recipes round-trip through JSON and TOML, and bad recipe files name the file."""

from __future__ import annotations

import json

import pytest

from llenvs.core import COMPLETE, Feedback, Force, Resample, SamplingParams
from llenvs.experiments import (
    READY_RECIPES,
    EveryBoundary,
    How,
    MatchingRegex,
    ParentFilter,
    ParentOutcome,
    PRMBelow,
    Recipe,
    RelativePositions,
    SegmentAt,
    TopImportance,
    load_recipe,
    recipe_from_toml,
)

RECIPES = [
    *READY_RECIPES.values(),
    Recipe(
        "all-fields",
        ParentFilter("leg_counting", ParentOutcome.FAILED, (0, 3), 5),
        MatchingRegex(r"\d+ \"legs\""),
        Resample(2, SamplingParams(temperature=0.7, top_k=5, stop=("</answer>",))),
        How(samples=3, seed=9, model="openai/smollm2", max_tokens=64),
    ),
    Recipe("seg", ParentFilter(), SegmentAt(2), COMPLETE, How(sampling=SamplingParams(seed=1))),
    Recipe("prm", ParentFilter(), PRMBelow(0.5), Force("Wait. {segment}")),
    Recipe("top", ParentFilter(), TopImportance(3), Feedback("Ünïcode: {answer}\n")),
    Recipe("every", ParentFilter(), EveryBoundary(), Feedback("Continue.")),
]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.name)
def test_json_and_toml_give_the_recipe_back(recipe, tmp_path):
    assert Recipe.from_record(json.loads(recipe.to_json())) == recipe
    assert recipe_from_toml(recipe.to_toml()) == recipe
    for suffix, text in ((".json", recipe.to_json()), (".toml", recipe.to_toml())):
        path = tmp_path / f"r{suffix}"
        path.write_text(text, encoding="utf-8")
        assert load_recipe(path) == recipe


def test_a_hand_written_toml_recipe_reads():
    recipe = recipe_from_toml(
        'name = "mine"\n[where]\nrule = "relative"\nfractions = [0.25, 0.75]\n'
        '[what]\nkind = "feedback"\ntext = "Are you sure?"\n'
    )
    assert recipe.where == RelativePositions((0.25, 0.75))
    assert recipe.what == Feedback("Are you sure?")
    assert recipe.how == How()


def test_a_bad_recipe_file_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[where]\nrule = "middle"\n[what]\nkind = "complete"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.toml: where\.rule: unknown rule 'middle'"):
        load_recipe(path)
    path.write_text('[where]\nrule = "every"\n[what]\nkind = "force"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.toml: what\.text: a force intervention needs"):
        load_recipe(path)
