"""The Labels page's comparisons: per labeller, between two labellers, a PRM against a labeller.

Every number is the library's (``llenvs.rewards.agreement.compare_labels``, what
``llenvs agreement`` prints), computed once per version of the file, its labels and the chosen
scores. A measure shows its estimate and its bootstrap interval as numbers (``estimate_table``);
a PRM against a labeller also shows its calibration plot and the steps where they disagree,
each a link to that step in Browse.

Example:
    >>> from llenvs.rewards.agreement._bootstrap_estimate import Estimate
    >>> table = estimate_table({"step AUROC": Estimate(0.5, 0.25, 0.75)})
    >>> table.values.tolist()
    [['step AUROC', 0.5, 0.25, 0.75]]

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from llenvs.rewards.agreement import (
    Estimate,
    LabelAgreement,
    LabelComparison,
    PRMAgreement,
    compare_labels,
)
from llenvs.rewards.prm import PRMScores
from llenvs.ui.common import stamp
from llenvs.ui.labels._disagreement_links import disagreement_links
from llenvs.ui.labels._page import LabelledFile, cached_labelled_file
from llenvs.workbench import MISSING, count
from llenvs.workbench.charts import calibration_figure

__all__ = [
    "ESTIMATE_COLUMNS",
    "cached_comparison",
    "coverage_table",
    "estimate_table",
    "labeller_pair",
    "prm_against_labeller",
]

ESTIMATE_COLUMNS = ("measure", "estimate", "low", "high")
"""The columns of a table of measures: the estimate, and its interval's ends."""

_SOURCES = {"stored": "Scores stored in the file", "scored now": "Scores made now"}


def estimate_table(estimates: Mapping[str, Estimate]) -> pd.DataFrame:
    """One row per measure: its estimate and interval (NaN: nothing to measure).

    Example:
        >>> estimate_table({}).columns.tolist()
        ['measure', 'estimate', 'low', 'high']

    """
    rows = [(name, e.value, e.low, e.high) for name, e in estimates.items()]
    return pd.DataFrame(rows, columns=list(ESTIMATE_COLUMNS))


def coverage_table(comparison: LabelComparison) -> pd.DataFrame:
    """One row per labeller: traces, traces with an error, steps labelled, coverage, counts.

    Example:
        >>> from llenvs.traces.labels._store import Labels
        >>> coverage_table(compare_labels([], Labels(()), [], [], trace_file="t")).columns[1]
        'traces'

    """
    return pd.DataFrame(
        [
            {
                "labeller": name,
                "traces": c.traces,
                "with an error": c.traces_with_error,
                "steps labelled": c.steps_labelled,
                "coverage": c.coverage,
                "−1 wrong": c.counts.get(-1, 0),
                "0 neutral": c.counts.get(0, 0),
                "+1 right": c.counts.get(1, 0),
            }
            for name, c in comparison.labellers.items()
        ],
        columns=[
            "labeller",
            "traces",
            "with an error",
            "steps labelled",
            "coverage",
            "−1 wrong",
            "0 neutral",
            "+1 right",
        ],
    )


@st.cache_data(max_entries=16, show_spinner="Comparing the labels and the scores…")
def _comparison(
    path: str,
    version: tuple[tuple[int, int], tuple[int, int]],
    labellers: tuple[str, ...],
    scores: tuple[PRMScores, ...],
) -> LabelComparison:
    del version
    file = cached_labelled_file(path)
    return compare_labels(file.traces, file.labels, labellers, scores, trace_file=path)


def cached_comparison(
    file: LabelledFile, labellers: Sequence[str], scores: Sequence[PRMScores]
) -> LabelComparison:
    """``compare_labels`` of the file's traces and labels, with the defaults of the CLI.

    Computed once per version of the file and its labels, labellers and scores.
    """
    from llenvs.traces import labels_path

    version = (stamp(file.path), stamp(str(labels_path(file.path))))
    return _comparison(file.path, version, tuple(labellers), tuple(scores))


def labeller_pair(
    first: str, second: str, agreement: LabelAgreement, file: LabelledFile, level: float
) -> None:
    """Two labellers: kappa and first-error agreement with intervals, and their disagreements."""
    st.subheader(f"{first} and {second}")
    if not agreement.traces:
        st.caption("They labelled no trace in common: there is nothing to compare.")
        return
    st.caption(
        f"{count(agreement.traces, 'trace')} both labelled, {count(agreement.steps, 'step')} "
        f"both labelled; {level:.0%} bootstrap intervals over the traces."
    )
    st.dataframe(
        estimate_table(
            {"Cohen's κ": agreement.kappa, "first-error agreement": agreement.first_error}
        ),
        hide_index=True,
        column_config=_number_columns(),
        key=f"labels-pair-{first}-{second}",
        placeholder=MISSING,
    )
    st.markdown(f"**Where they disagree** ({count(len(agreement.disagreements), 'step')})")
    disagreement_links(
        agreement.disagreements,
        file.path,
        file.lines,
        first,
        second,
        key=f"labels-pair-page-{first}-{second}",
    )


def prm_against_labeller(
    prm: str,
    labeller: str,
    agreement: PRMAgreement,
    comparison: LabelComparison,
    file: LabelledFile,
) -> None:
    """One PRM's scores against one labeller: measures, calibration, disagreements."""
    st.subheader(f"{prm} against {labeller}")
    st.caption(
        f"{_SOURCES.get(comparison.sources[prm], comparison.sources[prm])}; "
        f"{count(agreement.traces, 'trace')} "
        f"labelled and scored ({agreement.traces_with_error} with an error), "
        f"{count(agreement.steps, 'labelled step')} rated ({agreement.first_errors} labelled "
        f"−1). A step scored below {comparison.threshold} is predicted wrong; "
        f"{comparison.level:.0%} bootstrap intervals over the traces ({comparison.resamples} "
        f"resamples, seed {comparison.seed})."
    )
    st.dataframe(
        estimate_table(
            {
                "step AUROC": agreement.auroc,
                "ProcessBench F1": agreement.f1,
                "first-error localisation": agreement.accuracy,
                "  on traces with an error": agreement.accuracy_error,
                "  on traces without": agreement.accuracy_correct,
            }
        ),
        hide_index=True,
        column_config=_number_columns(),
        key=f"labels-prm-{prm}-{labeller}",
        placeholder=MISSING,
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Calibration**: score bins against the share of steps labelled right")
        st.plotly_chart(
            calibration_figure(agreement.calibration), key=f"labels-calibration-{prm}-{labeller}"
        )
    with right:
        st.markdown(f"**Where they disagree** ({count(len(agreement.disagreements), 'step')})")
        disagreement_links(
            agreement.disagreements,
            file.path,
            file.lines,
            labeller,
            prm,
            key=f"labels-prm-page-{prm}-{labeller}",
        )


def _number_columns() -> dict[str, Any]:
    return {
        name: st.column_config.NumberColumn(name, format="%.3f") for name in ESTIMATE_COLUMNS[1:]
    }
