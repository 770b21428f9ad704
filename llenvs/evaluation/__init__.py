"""Generation segment by segment, with interventions between segments.

A step callback steers a run with ``StepDecision`` values (``COMPLETE``, ``ForceAction``,
feedback text); a branch of a stored trace is one ``BranchRequest`` holding one
``Intervention`` (``Force``, ``Feedback``, ``Complete``, ``Resample``). The episode loop's face
(``llenvs.evaluation.episodes``) is re-exported whole.

Example:
    >>> from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
    >>> COMPLETE, ForceAction("x").text
    (COMPLETE, 'x')

"""

from llenvs.core import NO_RETRY, Feedback, Force, Intervention, Resample, RetryPolicy
from llenvs.evaluation import episodes
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
from llenvs.evaluation.episodes import *  # noqa: F403

__all__ = [
    "NO_RETRY",
    "BranchRequest",
    "EvaluationResult",
    "Feedback",
    "Force",
    "Intervention",
    "LogConfig",
    "LogTarget",
    "ProgressCallback",
    "Resample",
    "RetryPolicy",
    "branch",
    "intervene",
    "needs_model",
    "prm_kind",
    "prm_scores",
    "replay_trace",
    "rerun_branch",
    "run_segmented_evaluation",
    "score_now",
    "settle_results_file",
    "step_decision",
    "trace_base_environment",
    "trace_environment",
    "trace_sampling_params",
]
# The episode loop's names are listed once, on its own face, and re-exported whole here.
__all__ += episodes.__all__
