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

from llenvs.experiments._branch_outcome import BranchOutcome
from llenvs.experiments._experiment_as_runs import (
    ExperimentRuns,
    open_experiment_runs,
    parent_tasks,
    trace_lines,
)
from llenvs.experiments._experiment_error import ExperimentError
from llenvs.experiments._experiment_events import BranchRecorded
from llenvs.experiments._experiment_file import (
    ExperimentHeader,
    append_outcome,
    experiment_path,
    read_experiment,
    recorded_parents,
    start_experiment,
)
from llenvs.experiments._experiment_plan import ExperimentPlan, plan_experiment
from llenvs.experiments._experiment_result import ExperimentRun
from llenvs.experiments._experiment_summary import ExperimentSummary, PointSummary, summarize
from llenvs.experiments._how import How, SubstituteHow
from llenvs.experiments._map_bin import MapBin, on_policy_map, prm_score_map, steerability_map
from llenvs.experiments._parent_filter import ParentFilter, ParentOutcome
from llenvs.experiments._perturbation import perturbed
from llenvs.experiments._planned_branch import PlannedBranch
from llenvs.experiments._position_run import ParentTask, PositionRun, RunRow, RunRows, position_runs
from llenvs.experiments._ready_recipes import READY_RECIPES, ready_recipe
from llenvs.experiments._recipe import Recipe, load_recipe, recipe_from_toml
from llenvs.experiments._run_experiment import EXPERIMENT_METADATA, plan_file, run_experiment
from llenvs.experiments._skip_reason import SkipReason
from llenvs.experiments._template_values import TemplateValues
from llenvs.experiments._where import (
    EveryBoundary,
    MatchingRegex,
    PRMBelow,
    RelativePositions,
    SegmentAt,
    TopImportance,
    Where,
)

__all__ = [
    "EXPERIMENT_METADATA",
    "READY_RECIPES",
    "BranchOutcome",
    "BranchRecorded",
    "EveryBoundary",
    "ExperimentError",
    "ExperimentHeader",
    "ExperimentPlan",
    "ExperimentRun",
    "ExperimentRuns",
    "ExperimentSummary",
    "How",
    "MapBin",
    "MatchingRegex",
    "PRMBelow",
    "ParentFilter",
    "ParentOutcome",
    "ParentTask",
    "PlannedBranch",
    "PointSummary",
    "PositionRun",
    "Recipe",
    "RelativePositions",
    "RunRow",
    "RunRows",
    "SegmentAt",
    "SkipReason",
    "SubstituteHow",
    "TemplateValues",
    "TopImportance",
    "Where",
    "append_outcome",
    "experiment_path",
    "load_recipe",
    "on_policy_map",
    "open_experiment_runs",
    "parent_tasks",
    "perturbed",
    "plan_experiment",
    "plan_file",
    "position_runs",
    "prm_score_map",
    "read_experiment",
    "ready_recipe",
    "recipe_from_toml",
    "recorded_parents",
    "run_experiment",
    "start_experiment",
    "steerability_map",
    "summarize",
    "trace_lines",
]
