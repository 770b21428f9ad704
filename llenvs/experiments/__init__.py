"""Intervention experiments over a dataset: a recipe, its branches, and their statistics.

A ``Recipe`` says which parents (``ParentFilter``), where (``Where``), what (an
``Intervention`` whose texts are templates) and how (``How``); ``run_experiment`` makes every
branch in one continuously scheduled run, resumably, into ``NAME.experiment.jsonl``;
``summarize`` gives the paired statistics and the steerability map.

Example:
    >>> from llenvs.experiments import READY_RECIPES, RelativePositions
    >>> READY_RECIPES["continue"].where == RelativePositions((0.25, 0.5, 0.75))
    True

"""

from llenvs.experiments.branch_outcome import BranchOutcome
from llenvs.experiments.experiment_error import ExperimentError
from llenvs.experiments.experiment_events import BranchRecorded
from llenvs.experiments.experiment_file import (
    ExperimentHeader,
    experiment_path,
    read_experiment,
    recorded_parents,
)
from llenvs.experiments.experiment_plan import ExperimentPlan, plan_experiment
from llenvs.experiments.experiment_result import ExperimentRun
from llenvs.experiments.experiment_summary import ExperimentSummary, PointSummary, summarize
from llenvs.experiments.how import How
from llenvs.experiments.map_bin import MapBin, on_policy_map, prm_score_map, steerability_map
from llenvs.experiments.parent_filter import ParentFilter, ParentOutcome
from llenvs.experiments.perturbation import perturbed
from llenvs.experiments.planned_branch import PlannedBranch
from llenvs.experiments.ready_recipes import READY_RECIPES, ready_recipe
from llenvs.experiments.recipe import Recipe, load_recipe, recipe_from_toml
from llenvs.experiments.run_experiment import plan_file, run_experiment
from llenvs.experiments.skip_reason import SkipReason
from llenvs.experiments.template_values import TemplateValues
from llenvs.experiments.where import (
    EveryBoundary,
    MatchingRegex,
    PRMBelow,
    RelativePositions,
    SegmentAt,
    TopImportance,
    Where,
)

__all__ = [
    "READY_RECIPES",
    "BranchOutcome",
    "BranchRecorded",
    "EveryBoundary",
    "ExperimentError",
    "ExperimentHeader",
    "ExperimentPlan",
    "ExperimentRun",
    "ExperimentSummary",
    "How",
    "MapBin",
    "MatchingRegex",
    "PRMBelow",
    "ParentFilter",
    "ParentOutcome",
    "PlannedBranch",
    "PointSummary",
    "Recipe",
    "RelativePositions",
    "SegmentAt",
    "SkipReason",
    "TemplateValues",
    "TopImportance",
    "Where",
    "experiment_path",
    "load_recipe",
    "on_policy_map",
    "perturbed",
    "plan_experiment",
    "plan_file",
    "prm_score_map",
    "read_experiment",
    "ready_recipe",
    "recipe_from_toml",
    "recorded_parents",
    "run_experiment",
    "steerability_map",
    "summarize",
]
