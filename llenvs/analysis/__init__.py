"""Rollouts from a trace's steps: step values, step importance and the forced-answer curve.

From before each segment of a trace, continuations are sampled and finished in one call, in
batches, and scored by the environment's own verifier. Three readings come of them, each with
a 95% interval: the step value ``v_i`` (success rate from before segment i), the resampling
importance of step i (``v_{i+1} - v_i``, and how far the answers move), and, on request, the
forced-answer curve (what the model answers when made to answer at each point). An adaptive
schedule spends the budget where it is least certain which steps matter most (then where the
estimates are least certain); ``plan`` says the cost first; results go to a
``*.analysis.jsonl`` sidecar and are resumed, not recomputed.
``MonteCarloPRM`` offers ``v_{i+1}`` as the PRM score of step i (``get_prm("mc", ...)``).

Example:
    >>> from llenvs.analysis import AnalysisParams, analyze_trace
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> trace = replay_trace(env, 0, "Count. So 8. <answer>8</answer>", model="scripted")
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> result = analyze_trace(trace, backend, AnalysisParams(budget=8), environment=env)
    >>> [v.value for v in result.values], [s.importance for s in result.importances]
    ([1.0, 1.0, 0.0], [0.0, -1.0])
    >>> result.ranking()
    [1, 0]

"""

from llenvs.analysis.analysis_events import RolloutFinished, RolloutsProgress, RoundDone
from llenvs.analysis.analysis_params import DEFAULT_FORCED_ANSWER_TOKENS, AnalysisParams
from llenvs.analysis.analysis_sidecar import (
    AnalysisFileError,
    AnalysisKind,
    StoredAnalysis,
    analysis_path,
    append_published,
    read_analysis,
    read_published,
    stored_keys,
)
from llenvs.analysis.analyze import analysis_key, analyze_trace
from llenvs.analysis.boundary_value import BoundaryValue
from llenvs.analysis.changepoints import MOVE_DELTA
from llenvs.analysis.content_return import ContentReturn
from llenvs.analysis.cost_plan import CostPlan, SpeedSource, calibrate, plan
from llenvs.analysis.cut_values import SegmenterValues
from llenvs.analysis.divergence import js_divergence, total_variation
from llenvs.analysis.final_answer import final_answer
from llenvs.analysis.first_drop import FirstDrop, FirstDropSchedule, first_drop
from llenvs.analysis.forced_answer import ForcedAnswer, forced_answers
from llenvs.analysis.interval import Interval, difference_interval, wilson_interval
from llenvs.analysis.monte_carlo_prm import MonteCarloPRM
from llenvs.analysis.resilience import (
    RETURN_THRESHOLD,
    ContentReturns,
    StepReturn,
    content_returns,
    find_returns,
    step_returns,
)
from llenvs.analysis.rollout import Rollout, rollout_seed
from llenvs.analysis.rollout_engine import exact_outcome, run_rollouts, sampled_boundaries
from llenvs.analysis.schedule import (
    AdaptiveSchedule,
    FixedSchedule,
    MovesSchedule,
    Schedule,
    Tally,
)
from llenvs.analysis.segmenter_values import (
    MAX_SEGMENTERS,
    MoveCertainty,
    SegmenterComparison,
    SegmenterPair,
    Spike,
    compare_segmenters,
    plan_cuts,
    resegmented,
    stored_comparison,
)
from llenvs.analysis.sentence_similarity import (
    MINILM,
    LexicalSimilarity,
    MiniLMSimilarity,
    SimilarityError,
    TextSimilarity,
    default_similarity,
    similarity_named,
)
from llenvs.analysis.step_analysis import StepAnalysis
from llenvs.analysis.step_importance import StepImportance
from llenvs.analysis.stoppable_backend import RolloutsStopped, StoppableBackend
from llenvs.analysis.stored_step_analysis import (
    published_step_analysis,
    stored_forced_answers,
    stored_step_analysis,
)
from llenvs.analysis.top_k_membership import rank_chances, top_k_membership, top_k_membership_of
from llenvs.analysis.top_steps import TopSteps, top_steps_round

__all__ = [
    "DEFAULT_FORCED_ANSWER_TOKENS",
    "MAX_SEGMENTERS",
    "MINILM",
    "MOVE_DELTA",
    "RETURN_THRESHOLD",
    "AdaptiveSchedule",
    "AnalysisFileError",
    "AnalysisKind",
    "AnalysisParams",
    "BoundaryValue",
    "ContentReturn",
    "ContentReturns",
    "CostPlan",
    "FirstDrop",
    "FirstDropSchedule",
    "FixedSchedule",
    "ForcedAnswer",
    "Interval",
    "LexicalSimilarity",
    "MiniLMSimilarity",
    "MonteCarloPRM",
    "MoveCertainty",
    "MovesSchedule",
    "Rollout",
    "RolloutFinished",
    "RolloutsProgress",
    "RolloutsStopped",
    "RoundDone",
    "Schedule",
    "SegmenterComparison",
    "SegmenterPair",
    "SegmenterValues",
    "SimilarityError",
    "SpeedSource",
    "Spike",
    "StepAnalysis",
    "StepImportance",
    "StepReturn",
    "StoppableBackend",
    "StoredAnalysis",
    "Tally",
    "TextSimilarity",
    "TopSteps",
    "analysis_key",
    "analysis_path",
    "analyze_trace",
    "append_published",
    "calibrate",
    "compare_segmenters",
    "content_returns",
    "default_similarity",
    "difference_interval",
    "exact_outcome",
    "final_answer",
    "find_returns",
    "first_drop",
    "forced_answers",
    "js_divergence",
    "plan",
    "plan_cuts",
    "published_step_analysis",
    "rank_chances",
    "read_analysis",
    "read_published",
    "resegmented",
    "rollout_seed",
    "run_rollouts",
    "sampled_boundaries",
    "similarity_named",
    "step_returns",
    "stored_comparison",
    "stored_forced_answers",
    "stored_keys",
    "stored_step_analysis",
    "top_k_membership",
    "top_k_membership_of",
    "top_steps_round",
    "total_variation",
    "wilson_interval",
]
