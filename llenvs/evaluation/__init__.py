"""Generation segment by segment, with interventions between segments.

A step callback steers a run with ``StepDecision`` values (``COMPLETE``, ``ForceAction``,
feedback text); a branch of a stored trace is one ``BranchRequest`` holding one
``Intervention`` (``Force``, ``Feedback``, ``Complete``, ``Resample``).

Example:
    >>> from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
    >>> COMPLETE, ForceAction("x").text
    (COMPLETE, 'x')

"""

from llenvs.core.intervention import Feedback, Force, Intervention, Resample
from llenvs.core.retry_policy import NO_RETRY, RetryPolicy
from llenvs.evaluation.boundary_strategy import BoundaryContinuationStrategy
from llenvs.evaluation.branch import branch, rerun_branch, step_decision
from llenvs.evaluation.branch_request import BranchRequest
from llenvs.evaluation.continuation_strategy import ContinuationStrategy
from llenvs.evaluation.evaluation import ProgressCallback, run_segmented_evaluation
from llenvs.evaluation.evaluation_result import EvaluationResult
from llenvs.evaluation.events import (
    RunEnded,
    RunStarted,
    StepTaken,
    TrajectoryEnded,
    TrajectoryErrored,
    TrajectoryOver,
)
from llenvs.evaluation.intervene import intervene
from llenvs.evaluation.log_config import LogConfig, LogTarget
from llenvs.evaluation.prefix import FeedbackTurn, Prefix, PrefixSegment
from llenvs.evaluation.recorded_answer_opening import AnswerOpening
from llenvs.evaluation.replay_trace import replay_trace
from llenvs.evaluation.result_trace import result_trace
from llenvs.evaluation.runner import SegmentedTrajectoryRunner
from llenvs.evaluation.step_decision import (
    COMPLETE,
    Complete,
    ForceAction,
    StepCallback,
    StepDecision,
)
from llenvs.evaluation.token_strategy import TokenContinuationStrategy
from llenvs.evaluation.trace_environment import (
    trace_base_environment,
    trace_environment,
    trace_sampling_params,
)
from llenvs.evaluation.trace_prefix import trace_feedback, trace_prefix
from llenvs.evaluation.trajectory_result import TrajectoryResult

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
    "replay_trace",
    "rerun_branch",
    "result_trace",
    "run_segmented_evaluation",
    "step_decision",
    "trace_base_environment",
    "trace_environment",
    "trace_feedback",
    "trace_prefix",
    "trace_sampling_params",
]
