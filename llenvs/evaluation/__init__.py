"""Generation segment by segment, with interventions between segments.

A step callback steers a run with ``StepDecision`` values (``COMPLETE``, ``ForceAction``,
feedback text); a branch of a stored trace is one ``BranchRequest`` holding one
``Intervention`` (``Force``, ``Feedback``, ``Complete``, ``Resample``).

Example:
    >>> from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
    >>> COMPLETE, ForceAction("x").text
    (COMPLETE, 'x')

"""

from llenvs.core import NO_RETRY, Feedback, Force, Intervention, Resample, RetryPolicy
from llenvs.evaluation._evaluation import (
    ProgressCallback,
    run_segmented_evaluation,
    settle_results_file,
)
from llenvs.evaluation._evaluation_result import EvaluationResult
from llenvs.evaluation._log_config import LogConfig, LogTarget
from llenvs.evaluation._prm_scoring import needs_model, prm_kind, prm_scores, score_now
from llenvs.evaluation.branching import (
    BranchRequest,
    branch,
    intervene,
    replay_trace,
    rerun_branch,
    step_decision,
    trace_base_environment,
    trace_environment,
    trace_sampling_params,
)
from llenvs.evaluation.episodes import (
    COMPLETE,
    AnswerOpening,
    BoundaryContinuationStrategy,
    Complete,
    ContinuationStrategy,
    FeedbackTurn,
    ForceAction,
    Prefix,
    PrefixSegment,
    RunEnded,
    RunStarted,
    SegmentedTrajectoryRunner,
    StepCallback,
    StepDecision,
    StepTaken,
    TokenContinuationStrategy,
    TrajectoryEnded,
    TrajectoryErrored,
    TrajectoryOver,
    TrajectoryResult,
    result_trace,
    trace_feedback,
    trace_prefix,
)

__all__ = [
    "COMPLETE",
    "NO_RETRY",
    "AnswerOpening",
    "BoundaryContinuationStrategy",
    "BranchRequest",
    "Complete",
    "ContinuationStrategy",
    "EvaluationResult",
    "Feedback",
    "FeedbackTurn",
    "Force",
    "ForceAction",
    "Intervention",
    "LogConfig",
    "LogTarget",
    "Prefix",
    "PrefixSegment",
    "ProgressCallback",
    "Resample",
    "RetryPolicy",
    "RunEnded",
    "RunStarted",
    "SegmentedTrajectoryRunner",
    "StepCallback",
    "StepDecision",
    "StepTaken",
    "TokenContinuationStrategy",
    "TrajectoryEnded",
    "TrajectoryErrored",
    "TrajectoryOver",
    "TrajectoryResult",
    "branch",
    "intervene",
    "needs_model",
    "prm_kind",
    "prm_scores",
    "replay_trace",
    "rerun_branch",
    "result_trace",
    "run_segmented_evaluation",
    "score_now",
    "settle_results_file",
    "step_decision",
    "trace_base_environment",
    "trace_environment",
    "trace_feedback",
    "trace_prefix",
    "trace_sampling_params",
]
