"""Step labels measured: labellers against each other, a PRM against a labeller.

Cohen's kappa and ProcessBench's measures with intervals, calibration bins, step AUROC, the
first erroneous step predicted, what a labeller covered, and the steps where two disagree.
"""

from llenvs.rewards.agreement._bootstrap_estimate import LEVEL, RESAMPLES, Estimate, bootstrap
from llenvs.rewards.agreement._calibration_bin import BINS, CalibrationBin, calibration_table
from llenvs.rewards.agreement._first_error_prediction import THRESHOLD, first_below
from llenvs.rewards.agreement._label_agreement import LabelAgreement, cohen_kappa, label_agreement
from llenvs.rewards.agreement._label_comparison import LabelComparison, compare_labels, labelling
from llenvs.rewards.agreement._labeller_coverage import LabellerCoverage, labeller_coverage
from llenvs.rewards.agreement._prm_agreement import PRMAgreement, prm_agreement
from llenvs.rewards.agreement._prm_metrics import PRMMetrics, prm_metrics
from llenvs.rewards.agreement._step_auroc import auroc
from llenvs.rewards.agreement._step_disagreement import StepDisagreement, prm_disagreements

__all__ = [
    "BINS",
    "LEVEL",
    "RESAMPLES",
    "THRESHOLD",
    "CalibrationBin",
    "Estimate",
    "LabelAgreement",
    "LabelComparison",
    "LabellerCoverage",
    "PRMAgreement",
    "PRMMetrics",
    "StepDisagreement",
    "auroc",
    "bootstrap",
    "calibration_table",
    "cohen_kappa",
    "compare_labels",
    "first_below",
    "label_agreement",
    "labeller_coverage",
    "labelling",
    "prm_agreement",
    "prm_disagreements",
    "prm_metrics",
]
