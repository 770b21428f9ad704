"""Sampling rollouts from a trace's steps.

One rollout, the engine that draws them from many points of one trace, their events and
parameters, the forced answer at a boundary, and what rollouts cost in tokens.
"""

from llenvs.analysis.sampling._cost_plan import CostPlan, SpeedSource, calibrate, other_model, plan
from llenvs.analysis.sampling._events import RolloutFinished, RolloutsProgress, RoundDone
from llenvs.analysis.sampling._final_answer import final_answer
from llenvs.analysis.sampling._forced_answer import ForcedAnswer, forced_answers
from llenvs.analysis.sampling._params import DEFAULT_FORCED_ANSWER_TOKENS, AnalysisParams
from llenvs.analysis.sampling._rollout import Rollout, rollout_seed
from llenvs.analysis.sampling._rollout_engine import exact_outcome, run_rollouts, sampled_boundaries
from llenvs.analysis.sampling._stoppable_backend import RolloutsStopped, StoppableBackend
from llenvs.analysis.sampling._token_budget import (
    CHARACTERS_PER_TOKEN,
    Reach,
    affordable,
    reach,
    rollout_limit,
    rollout_prices,
    spent,
    tokens_after,
)

__all__ = [
    "CHARACTERS_PER_TOKEN",
    "DEFAULT_FORCED_ANSWER_TOKENS",
    "AnalysisParams",
    "CostPlan",
    "ForcedAnswer",
    "Reach",
    "Rollout",
    "RolloutFinished",
    "RolloutsProgress",
    "RolloutsStopped",
    "RoundDone",
    "SpeedSource",
    "StoppableBackend",
    "affordable",
    "calibrate",
    "exact_outcome",
    "final_answer",
    "forced_answers",
    "other_model",
    "plan",
    "reach",
    "rollout_limit",
    "rollout_prices",
    "rollout_seed",
    "run_rollouts",
    "sampled_boundaries",
    "spent",
    "tokens_after",
]
