"""The Labels page.

A trace file with its label store, the labellers compared with each other and with a PRM's
scores (which PRM, stored or scored now), and links to the steps where they disagree.
"""

from llenvs.ui.labels._agreement import (
    cached_comparison,
    coverage_table,
    labeller_pair,
    prm_against_labeller,
)
from llenvs.ui.labels._page import (
    cached_labelled_file,
    choose_file,
    choose_labellers,
    no_labels,
)
from llenvs.ui.labels._prm_scores_choice import chosen_scores

__all__ = [
    "cached_comparison",
    "cached_labelled_file",
    "choose_file",
    "choose_labellers",
    "chosen_scores",
    "coverage_table",
    "labeller_pair",
    "no_labels",
    "prm_against_labeller",
]
