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
    with pytest.raises(ValueError, match=r"bad\.toml: recipe\.where\.rule: unknown rule 'middle'"):
        load_recipe(path)
    path.write_text('[where]\nrule = "every"\n[what]\nkind = "force"\n', encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"bad\.toml: recipe\.what\.text: a force intervention needs"
    ):
        load_recipe(path)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[how]\nsamples = "2"', "recipe.how.samples: expected an integer, got '2'"),
        ("[how]\nsamples = 0", "recipe.how.samples: expected an integer >= 1, got 0"),
        ("[how]\nsampels = 2", "recipe.how: unknown field(s): sampels: choose from samples, "),
        ('[parents]\noutcome = "won"', "recipe.parents.outcome: unknown value 'won': choose"),
        ("[parents]\ntasks = []", "recipe.parents.tasks: give at least one task index"),
        ('[parents]\ntasks = ["1"]', "recipe.parents.tasks[0]: expected an integer, got '1'"),
        ("[where]\nrule = 'every'\nk = 2", "recipe.where: unknown field(s): k: choose from rule"),
        ("[where]\nrule = 'segment'", "recipe.where.index: missing"),
        ("[where]\nrule = 'regex'\npattern = '('", "recipe.where.pattern: bad regex '('"),
        ("[where]\nrule = 'relative'\nfractions = [1.5]", "recipe.where.fractions: a relative"),
        ('colour = "red"', "recipe: unknown field(s): colour: choose from name, parents, where"),
    ],
)
def test_a_bad_field_is_named_by_its_path_and_nothing_is_coerced(toml, message):
    fields = {"where": "[where]\nrule = 'every'", "what": "[what]\nkind = 'complete'"}
    table = toml.split("\n")[0]
    for name, default in fields.items():
        if table != f"[{name}]":
            toml = f"{default}\n{toml}" if toml.startswith("[") else f"{toml}\n{default}"
    with pytest.raises(ValueError) as raised:
        recipe_from_toml(toml)
    assert message in str(raised.value)


def test_a_recipe_of_a_hand_written_file_may_leave_out_its_name_and_parents():
    recipe = Recipe.from_record({"where": {"rule": "every"}, "what": {"kind": "complete"}})
    assert (recipe.name, recipe.parents, recipe.how) == ("experiment", ParentFilter(), How())
