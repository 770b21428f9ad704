"""Branches of a recorded trace: replay it to segment k, intervene, generate the rest.

A trace's environment made again, one branch (branch), many (run_branches), intervene on a file,
rerun a trace from its record, the PRM that scores branches, the on-policy check of an edit, the
on-policy substitute of a text (find_substitute) and the trace of a given response (replay_trace).
"""

from llenvs.evaluation.branching._branch import branch, rerun_branch, step_decision
from llenvs.evaluation.branching._branch_prm import PRM_UNSCORED
from llenvs.evaluation.branching._branch_request import BranchRequest
from llenvs.evaluation.branching._branch_run import BranchJob, run_branches
from llenvs.evaluation.branching._intervene import intervene
from llenvs.evaluation.branching._on_policy import (
    DEFAULT_SAMPLES,
    OnPolicy,
    OnPolicyError,
    on_policy,
    prefix_prompt,
)
from llenvs.evaluation.branching._replay_trace import replay_trace
from llenvs.evaluation.branching._rerun import Rerun, recorded_model, rerun
from llenvs.evaluation.branching._scored_environment import scored_environment
from llenvs.evaluation.branching._substitute import (
    SEGMENT_TOKENS,
    Similarity,
    SubstituteError,
    Substitution,
    find_substitute,
    recorded_substitute,
    substitution_from_record,
)
from llenvs.evaluation.branching._trace_environment import (
    trace_base_environment,
    trace_environment,
    trace_sampling_params,
    trace_segmenter,
)

__all__ = [
    "DEFAULT_SAMPLES",
    "PRM_UNSCORED",
    "SEGMENT_TOKENS",
    "BranchJob",
    "BranchRequest",
    "OnPolicy",
    "OnPolicyError",
    "Rerun",
    "Similarity",
    "SubstituteError",
    "Substitution",
    "branch",
    "find_substitute",
    "intervene",
    "on_policy",
    "prefix_prompt",
    "recorded_model",
    "recorded_substitute",
    "replay_trace",
    "rerun",
    "rerun_branch",
    "run_branches",
    "scored_environment",
    "step_decision",
    "substitution_from_record",
    "trace_base_environment",
    "trace_environment",
    "trace_sampling_params",
    "trace_segmenter",
]
