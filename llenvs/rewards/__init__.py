"""Reward functions and process reward models (PRMs).

A PRM scores the steps of a question, one score in [0, 1] per step (``PRM``); ``PRMRewardFunction``
plugs any PRM, or any object with ``score(text)``, into a ``SegmentedEnvironment`` as a PROCESS
reward, scoring a replayed trace in one PRM call. ``ArithmeticPRM`` checks each step's arithmetic
exactly; ``JudgePRM`` asks a chat model for a verdict on each step; ``VllmPRM`` asks a PRM that
a vLLM server serves (over HTTP); ``TransformersPRM`` (``llenvs.rewards.prm``, which
imports torch) reads a local checkpoint in the Qwen2.5-Math-PRM or Math-Shepherd convention.
``get_prm`` finds them by name; ``aggregate`` turns step scores into one (min, last, product,
mean). ``prm_agreement`` measures a PRM's scores against a labeller's step labels (AUROC,
ProcessBench F1, localisation, each with a bootstrap interval), ``label_agreement`` two
labellers against each other (Cohen's kappa, first-error agreement); ``compare_labels`` does
all of it for a file's labels and the ``PRMScores`` its segments store. Importing this package
imports neither torch nor transformers.

Example:
    >>> from llenvs.rewards import ArithmeticPRM, Aggregation, aggregate
    >>> scores = ArithmeticPRM().score_steps("", ["2 × 4 = 8", "8 + 5 = 12", "So 12."])
    >>> scores, aggregate(scores, Aggregation.MIN)
    ([1.0, 0.0, 0.5], 0.0)

"""

from llenvs.rewards.agreement import (
    CalibrationBin,
    Estimate,
    LabelAgreement,
    LabelComparison,
    LabellerCoverage,
    PRMAgreement,
    PRMMetrics,
    StepDisagreement,
    auroc,
    bootstrap,
    calibration_table,
    cohen_kappa,
    compare_labels,
    first_below,
    label_agreement,
    labeller_coverage,
    prm_agreement,
    prm_metrics,
)
from llenvs.rewards.arithmetic import ArithmeticVerdict, EquationCheck, check_equations
from llenvs.rewards.prm import (
    CONVENTIONS,
    NEUTRAL_SCORE,
    PRM,
    PRM_NAMES,
    PRM_REWARD_NAME,
    Aggregation,
    ArithmeticPRM,
    BatchPRM,
    JudgePRM,
    JudgingPRM,
    MathShepherd,
    PRMConvention,
    PRMFactory,
    PRMRewardFunction,
    PRMScores,
    QwenMathPRM,
    StepJudgement,
    TextScorer,
    TextScorerPRM,
    VllmPRM,
    aggregate,
    build_prm,
    build_prm_rewards,
    convention_from_name,
    get_prm,
    judge_traces,
    prm_rewards,
    register_prm,
    score_traces,
    stored_names,
    stored_scores,
)

__all__ = [
    "CONVENTIONS",
    "NEUTRAL_SCORE",
    "PRM",
    "PRM_NAMES",
    "PRM_REWARD_NAME",
    "Aggregation",
    "ArithmeticPRM",
    "ArithmeticVerdict",
    "BatchPRM",
    "CalibrationBin",
    "EquationCheck",
    "Estimate",
    "JudgePRM",
    "JudgingPRM",
    "LabelAgreement",
    "LabelComparison",
    "LabellerCoverage",
    "MathShepherd",
    "PRMAgreement",
    "PRMConvention",
    "PRMFactory",
    "PRMMetrics",
    "PRMRewardFunction",
    "PRMScores",
    "QwenMathPRM",
    "StepDisagreement",
    "StepJudgement",
    "TextScorer",
    "TextScorerPRM",
    "VllmPRM",
    "aggregate",
    "auroc",
    "bootstrap",
    "build_prm",
    "build_prm_rewards",
    "calibration_table",
    "check_equations",
    "cohen_kappa",
    "compare_labels",
    "convention_from_name",
    "first_below",
    "get_prm",
    "judge_traces",
    "label_agreement",
    "labeller_coverage",
    "prm_agreement",
    "prm_metrics",
    "prm_rewards",
    "register_prm",
    "score_traces",
    "stored_names",
    "stored_scores",
]
