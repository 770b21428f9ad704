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

from llenvs.analysis._analyze import analysis_key, analyze_trace, forced_answer_key
from llenvs.analysis._paired_runs import (
    PairedComparison,
    RunPairing,
    RunTask,
    compare_paired,
    mcnemar_p_value,
    most_shared,
    pair_runs,
)
from llenvs.analysis._step_analysis import CHANCES_CHECKED, VERDICT_DRAWS, StepAnalysis
from llenvs.analysis._stored_step_analysis import (
    published_step_analysis,
    stored_forced_answers,
    stored_step_analysis,
)
from llenvs.analysis.instruments import (
    MAX_SEGMENTERS,
    MINILM,
    RETURN_THRESHOLD,
    ContentReturns,
    LexicalSimilarity,
    MiniLMSimilarity,
    MonteCarloPRM,
    MoveCertainty,
    SegmenterComparison,
    SegmenterPair,
    SimilarityError,
    Spike,
    StepReturn,
    TextSimilarity,
    compare_segmenters,
    content_returns,
    default_similarity,
    find_returns,
    plan_cuts,
    resegmented,
    similarity_named,
    step_returns,
    stored_comparison,
)
from llenvs.analysis.sampling import (
    DEFAULT_FORCED_ANSWER_TOKENS,
    AnalysisParams,
    CostPlan,
    ForcedAnswer,
    Rollout,
    RolloutFinished,
    RolloutsProgress,
    RolloutsStopped,
    RoundDone,
    SpeedSource,
    StoppableBackend,
    calibrate,
    exact_outcome,
    final_answer,
    forced_answers,
    plan,
    rollout_seed,
    run_rollouts,
    sampled_boundaries,
)
from llenvs.analysis.sidecar import (
    AnalysisFileError,
    AnalysisKind,
    ContentReturn,
    SegmenterValues,
    StoredAnalysis,
    analysis_path,
    append_published,
    read_analysis,
    read_published,
    stored_keys,
)
from llenvs.analysis.statistics import (
    MOVE_DELTA,
    AdaptiveSchedule,
    BoundaryValue,
    FirstDrop,
    FirstDropSchedule,
    FixedSchedule,
    Interval,
    MovesSchedule,
    Schedule,
    StepImportance,
    Tally,
    TopSteps,
    difference_interval,
    first_drop,
    js_divergence,
    rank_chances,
    top_k_membership,
    top_k_membership_of,
    top_steps_round,
    total_variation,
    wilson_interval,
)

__all__ = [
    "CHANCES_CHECKED",
    "DEFAULT_FORCED_ANSWER_TOKENS",
    "MAX_SEGMENTERS",
    "MINILM",
    "MOVE_DELTA",
    "RETURN_THRESHOLD",
    "VERDICT_DRAWS",
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
    "PairedComparison",
    "Rollout",
    "RolloutFinished",
    "RolloutsProgress",
    "RolloutsStopped",
    "RoundDone",
    "RunPairing",
    "RunTask",
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
    "compare_paired",
    "compare_segmenters",
    "content_returns",
    "default_similarity",
    "difference_interval",
    "exact_outcome",
    "final_answer",
    "find_returns",
    "first_drop",
    "forced_answer_key",
    "forced_answers",
    "js_divergence",
    "mcnemar_p_value",
    "most_shared",
    "pair_runs",
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
