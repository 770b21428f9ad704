"""The Experiments page's tables: the summary in one row, one row per branch, the bins.

Example:
    >>> from llenvs.experiments import summarize
    >>> summary_table(summarize([])).iloc[0]["success before → after"]
    'n/a → n/a'

"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from llenvs.experiments import BranchOutcome, ExperimentSummary, MapBin
from llenvs.workbench._wording import MISSING

__all__ = ["BRANCH_COLUMNS", "bin_rows", "branch_rows", "summary_table", "verdict"]

BRANCH_COLUMNS = [
    "task",
    "segment",
    "position",
    "sample",
    "verdict",
    "answer",
    "flipped",
    "on-policy %ile",
    "line",
]
"""The columns of ``branch_rows``."""


def summary_table(summary: ExperimentSummary) -> pd.DataFrame:
    """The experiment at a glance, in one row.

    Success before → after, the paired difference with its interval and McNemar's p, the
    flips each way, the answer-change rate with its interval.
    """
    record = summary.to_record()
    paired = summary.paired
    low, high = summary.answer_change_interval.low, summary.answer_change_interval.high
    rate = record["answer_change_rate"]
    return pd.DataFrame(
        [
            {
                "parents": summary.parents,
                "branches": summary.branches,
                "success before → after": f"{_pct(summary.success_before)} → "
                f"{_pct(summary.success_after)}",
                "paired difference (95%)": "–"
                if paired is None
                else f"{paired.difference:+.3f} [{paired.interval.low:+.3f}, "
                f"{paired.interval.high:+.3f}]",
                "McNemar p": "–" if paired is None else f"{paired.p_value:.4g}",
                "fail → success": summary.fail_to_success,
                "success → fail": summary.success_to_fail,
                "answer changed (95%)": "–"
                if rate is None
                else f"{summary.answer_changed}/{summary.branches} = {rate:.3f} "
                f"[{low:.3f}, {high:.3f}]",
            }
        ]
    )


def branch_rows(outcomes: Sequence[BranchOutcome], lines: dict[str, int]) -> pd.DataFrame:
    """One row per branch: its parent's task, where, the verdict and answer before → after.

    ``lines`` gives each branch's line in the branches sidecar ("" where it is not there); an
    answer not given is ``MISSING``, an on-policy percentile not measured a missing value.

    Example:
        >>> o = BranchOutcome("p", 3, 1, 1, 4, 0, 0, "b", False, "8", True, "100")
        >>> branch_rows([o], {"b": 2}).iloc[0].to_dict()["verdict"]
        'fail → success'
        >>> o = BranchOutcome("p", 3, 1, 1, 4, 0, 0, "b", False, None, True, "100")
        >>> branch_rows([o], {}).iloc[0].to_dict()["answer"]
        '— → 100'

    """
    return pd.DataFrame(
        [
            {
                "task": o.task_index,
                "segment": o.segment,
                "position": round(o.position, 3),
                "sample": o.sample,
                "verdict": f"{verdict(o.parent_success)} → {verdict(o.success)}",
                "answer": f"{_answer(o.parent_answer)} → {_answer(o.answer)}",
                "flipped": o.flipped,
                "on-policy %ile": None if o.on_policy is None else round(o.on_policy, 1),
                "line": lines.get(o.branch_id, ""),
            }
            for o in outcomes
        ],
        columns=BRANCH_COLUMNS,
    )


def bin_rows(bins: Sequence[MapBin], scale: float = 1.0) -> pd.DataFrame:
    """One row per non-empty bin: its range (times ``scale``), branches, flip and change rates.

    Example:
        >>> bin_rows([]).columns.tolist()
        ['range', 'branches', 'flip rate', 'answer changed']

    """
    return pd.DataFrame(
        [
            {
                "range": f"[{b.low * scale:g}, {b.high * scale:g})",
                "branches": b.branches,
                "flip rate": _pct(b.flip_rate),
                "answer changed": _pct(b.answer_change_rate),
            }
            for b in bins
            if b.branches
        ],
        columns=["range", "branches", "flip rate", "answer changed"],
    )


def verdict(success: bool | None) -> str:
    """A verdict in a word.

    Example:
        >>> verdict(True), verdict(None)
        ('success', '—')

    """
    return {True: "success", False: "fail", None: MISSING}[success]


def _answer(answer: str | None) -> str:
    return MISSING if answer is None else answer


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"
