"""Reward functions and process reward models (PRMs).

A PRM scores the steps of a question, one score in [0, 1] per step (``PRM``); ``PRMRewardFunction``
plugs any PRM, or any object with ``score(text)``, into a ``SegmentedEnvironment`` as a PROCESS
reward, scoring a replayed trace in one PRM call. ``ArithmeticPRM`` checks each step's arithmetic
exactly; ``JudgePRM`` asks a chat model for a verdict on each step; ``VllmPRM`` asks a PRM that
a vLLM server serves (over HTTP); ``TransformersPRM`` (``llenvs.rewards.transformers_prm``, which
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

from llenvs.rewards.aggregation import Aggregation, aggregate
from llenvs.rewards.arithmetic import ArithmeticVerdict, EquationCheck, check_equations
from llenvs.rewards.arithmetic_prm import ArithmeticPRM
from llenvs.rewards.bootstrap_estimate import Estimate, bootstrap
from llenvs.rewards.calibration_bin import CalibrationBin, calibration_table
from llenvs.rewards.first_error_prediction import first_below
from llenvs.rewards.judge_prm import JudgePRM
from llenvs.rewards.label_agreement import LabelAgreement, cohen_kappa, label_agreement
from llenvs.rewards.label_comparison import LabelComparison, compare_labels
from llenvs.rewards.labeller_coverage import LabellerCoverage, labeller_coverage
from llenvs.rewards.prm import (
    NEUTRAL_SCORE,
    PRM,
    BatchPRM,
    JudgingPRM,
    Trace,
    judge_traces,
    score_traces,
)
from llenvs.rewards.prm_agreement import PRMAgreement, prm_agreement
from llenvs.rewards.prm_conventions import (
    CONVENTIONS,
    MathShepherd,
    PRMConvention,
    QwenMathPRM,
    convention_from_name,
)
from llenvs.rewards.prm_metrics import PRMMetrics, prm_metrics
from llenvs.rewards.prm_registry import (
    PRM_NAMES,
    PRMFactory,
    build_prm,
    build_prm_rewards,
    get_prm,
    prm_rewards,
    register_prm,
)
from llenvs.rewards.prm_reward_function import PRM_REWARD_NAME, PRMRewardFunction
from llenvs.rewards.prm_scores import PRMScores, stored_names, stored_scores
from llenvs.rewards.step_auroc import auroc
from llenvs.rewards.step_disagreement import StepDisagreement
from llenvs.rewards.step_judgement import StepJudgement
from llenvs.rewards.text_scorer_prm import TextScorer, TextScorerPRM
from llenvs.rewards.vllm_prm import VllmPRM

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
    "Trace",
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
