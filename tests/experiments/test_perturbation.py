"""``{perturbed}`` changes exactly one number, the first, reproducibly."""

from __future__ import annotations

import re

import pytest

from llenvs.core import Force
from llenvs.experiments import TemplateValues, perturbed

NUMBER = re.compile(r"\d+(?:\.\d+)?")

TEXTS = [
    "So 4 legs each, and 3 deer: 12 legs. ",
    "Total = 2.50 + 7 = 9.50",
    "0 cats, 10 dogs",
    "x 999 y",
    "Step 1: 17 * 3 = 51.",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("seed", range(5))
def test_exactly_the_first_number_changes_and_nothing_else(text, seed):
    changed = perturbed(text, seed)
    assert changed is not None
    before, after = NUMBER.findall(text), NUMBER.findall(changed)
    assert len(before) == len(after)
    differ = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert differ == [0]
    # the words around the numbers are untouched
    assert NUMBER.sub("#", text) == NUMBER.sub("#", changed)
    old, new = float(before[0]), float(after[0])
    places = len(before[0].split(".")[1]) if "." in before[0] else 0
    assert 0 < abs(new - old) <= 3 * 10**-places + 1e-9
    assert new >= 0


@pytest.mark.parametrize("text", TEXTS)
def test_the_same_seed_gives_the_same_text_and_seeds_vary_it(text):
    assert perturbed(text, 7) == perturbed(text, 7)
    assert len({perturbed(text, seed) for seed in range(20)}) > 1


def test_a_text_without_a_number_has_no_perturbation_and_the_template_is_unfilled():
    assert perturbed("No numbers here.", 0) is None
    values = TemplateValues("No numbers here.", "8", "100", perturbed("No numbers here.", 0))
    assert values.intervention(Force("{perturbed}")) is None
    assert values.intervention(Force("{segment}")) == Force("No numbers here.")
