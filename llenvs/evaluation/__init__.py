"""Generation segment by segment, with interventions between segments.

Example:
    >>> from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
    >>> COMPLETE, ForceAction("x").text
    (COMPLETE, 'x')

"""

from llenvs.evaluation.boundary_strategy import BoundaryContinuationStrategy
from llenvs.evaluation.continuation_strategy import ContinuationStrategy
from llenvs.evaluation.intervention import (
    COMPLETE,
    Complete,
    ForceAction,
    Intervention,
    StepCallback,
)
from llenvs.evaluation.prefix import Prefix
from llenvs.evaluation.runner import SegmentedTrajectoryRunner
from llenvs.evaluation.token_strategy import TokenContinuationStrategy
from llenvs.evaluation.trajectory_result import TrajectoryResult

__all__ = [
    "COMPLETE",
    "BoundaryContinuationStrategy",
    "Complete",
    "ContinuationStrategy",
    "ForceAction",
    "Intervention",
    "Prefix",
    "SegmentedTrajectoryRunner",
    "StepCallback",
    "TokenContinuationStrategy",
    "TrajectoryResult",
]
