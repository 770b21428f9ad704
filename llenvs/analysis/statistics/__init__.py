"""Reading rollouts: what the tallies say, with their uncertainty.

Intervals and tallies, step values and importance, the changepoint model of a value curve, the
top steps, the first drop, and the schedules that choose where the next round goes.
"""

from llenvs.analysis.statistics._boundary_value import (
    BoundaryValue,
    boundary_values,
    exact_value,
    tallies,
)
from llenvs.analysis.statistics._call_scores import (
    CALIBRATED,
    CALIBRATION_BINS,
    CONFIDENT,
    MARGIN,
    MOVE_TOLERANCE,
    CallScores,
    StepCall,
    moved_by,
    score_calls,
    trace_interval,
)
from llenvs.analysis.statistics._changepoints import (
    CHANGE_PRIOR,
    EXCURSION_PRIOR,
    MOVE_DELTA,
    change_chances,
)
from llenvs.analysis.statistics._divergence import js_divergence, total_variation
from llenvs.analysis.statistics._first_drop import FirstDrop, FirstDropSchedule, first_drop
from llenvs.analysis.statistics._interval import (
    BOOTSTRAP_RESAMPLES,
    Interval,
    difference_interval,
    newcombe_interval,
    wilson_interval,
)
from llenvs.analysis.statistics._schedule import (
    AdaptiveSchedule,
    FixedSchedule,
    MovesSchedule,
    Prices,
    RoundSchedule,
    Schedule,
    default_schedule,
    sampled,
)
from llenvs.analysis.statistics._step_importance import StepImportance, step_importances
from llenvs.analysis.statistics._tally import Tally
from llenvs.analysis.statistics._top_k_membership import (
    rank_chances,
    top_k_membership,
    top_k_membership_of,
)
from llenvs.analysis.statistics._top_steps import (
    CONFIDENCE,
    MOVED_CHANCE,
    NOTHING_MOVED,
    TopSteps,
    top_steps_round,
    value_draws,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "CALIBRATED",
    "CALIBRATION_BINS",
    "CHANGE_PRIOR",
    "CONFIDENCE",
    "CONFIDENT",
    "EXCURSION_PRIOR",
    "MARGIN",
    "MOVED_CHANCE",
    "MOVE_DELTA",
    "MOVE_TOLERANCE",
    "NOTHING_MOVED",
    "AdaptiveSchedule",
    "BoundaryValue",
    "CallScores",
    "FirstDrop",
    "FirstDropSchedule",
    "FixedSchedule",
    "Interval",
    "MovesSchedule",
    "Prices",
    "RoundSchedule",
    "Schedule",
    "StepCall",
    "StepImportance",
    "Tally",
    "TopSteps",
    "boundary_values",
    "change_chances",
    "default_schedule",
    "difference_interval",
    "exact_value",
    "first_drop",
    "js_divergence",
    "moved_by",
    "newcombe_interval",
    "rank_chances",
    "sampled",
    "score_calls",
    "step_importances",
    "tallies",
    "top_k_membership",
    "top_k_membership_of",
    "top_steps_round",
    "total_variation",
    "trace_interval",
    "value_draws",
    "wilson_interval",
]
