"""The one episode loop and what it is made of.

The runner (run_trajectory, run_batch) and the episode it drives, its phases and step decisions,
the continuation strategies (boundary, token), prefixes replayed before generation (a parent's
first k segments among them) and the episode's start (its prefix, then one decision), the events
they emit and the trajectory's result.
"""

from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
from llenvs.evaluation.episodes._continuation_strategy import ContinuationStrategy
from llenvs.evaluation.episodes._episode import Episode
from llenvs.evaluation.episodes._episode_driver import drive_episodes, run_episodes
from llenvs.evaluation.episodes._episode_phase import TRANSITIONS, EpisodePhase
from llenvs.evaluation.episodes._episode_start import EpisodeStart
from llenvs.evaluation.episodes._events import (
    RunEnded,
    RunStarted,
    StepTaken,
    TrajectoryEnded,
    TrajectoryErrored,
    TrajectoryOver,
    event_record,
    trajectory_event,
)
from llenvs.evaluation.episodes._prefix import (
    FeedbackTurn,
    Prefix,
    PrefixSegment,
    replay_prefix,
    trace_feedback,
    trace_prefix,
)
from llenvs.evaluation.episodes._recorded_answer_opening import (
    DEFAULT_TEXT,
    AnswerOpening,
    recorded_answer_opening,
)
from llenvs.evaluation.episodes._result_trace import result_trace
from llenvs.evaluation.episodes._runner import SegmentedTrajectoryRunner, derived_seeds
from llenvs.evaluation.episodes._step_decision import (
    COMPLETE,
    Complete,
    ForceAction,
    StepCallback,
    StepDecision,
)
from llenvs.evaluation.episodes._token_strategy import TokenContinuationStrategy, same_tokenizer
from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult

__all__ = [
    "COMPLETE",
    "DEFAULT_TEXT",
    "TRANSITIONS",
    "AnswerOpening",
    "BoundaryContinuationStrategy",
    "Complete",
    "ContinuationStrategy",
    "Episode",
    "EpisodePhase",
    "EpisodeStart",
    "FeedbackTurn",
    "ForceAction",
    "Prefix",
    "PrefixSegment",
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
    "derived_seeds",
    "drive_episodes",
    "event_record",
    "recorded_answer_opening",
    "replay_prefix",
    "result_trace",
    "run_episodes",
    "same_tokenizer",
    "trace_feedback",
    "trace_prefix",
    "trajectory_event",
]
