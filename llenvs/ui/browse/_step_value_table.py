"""The step values panel's table: one row per boundary, its numbers named and formatted.

It shows the rows the chart above shows (``window_rows``): a long trace's chart opens zoomed on
the selected segment, and so does the table, saying which rows it holds and how to see all.
"""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from llenvs.workbench import MISSING
from llenvs.workbench.browse import RETURNED, window_caption, window_rows

__all__ = ["value_table"]


def value_table(rows: pd.DataFrame, span: tuple[float, float] | None = None) -> None:
    """The table of ``rows`` (``value_rows``, maybe ``with_returns``): the end's row named.

    ``span``: the chart's x range (``importance_chart``); the table shows the rows in it.
    """
    last = int(rows["#"].iloc[-1])
    window = window_rows(rows, span)
    caption = window_caption(rows, window)
    if caption:
        st.caption(f"{caption}: turn on Whole trace above to see every row.")
    shown = window.assign(
        **{
            "#": [str(b) if b < last else "end" for b in window["#"]],
            "forced right": window["forced right"].map({True: "✓", False: "✗"}),
        }
    )
    number = functools.partial(st.column_config.NumberColumn, format="%.3f")
    st.dataframe(
        shown,
        hide_index=True,
        height=240,
        placeholder=MISSING,
        column_config={
            "value": number("v_i", help="success rate of rollouts from before the segment"),
            "low": number("v_i low", help="95% interval (Wilson)"),
            "high": number("v_i high"),
            "trials": st.column_config.NumberColumn("rollouts"),
            "importance": number("v_i+1 − v_i", format="%+.3f"),
            "importance low": number("low", format="%+.3f", help="95% interval (bootstrap)"),
            "importance high": number("high", format="%+.3f"),
            "moved": number(
                "moved",
                format="%.2f",
                help="the chance the step moved v at all (a curve that moves at few steps)",
            ),
            "divergence": number("JS (bits)", help="how far the step moves the answers"),
            "forced answer": st.column_config.TextColumn(
                "forced answer", help=f"{MISSING}: none forced there, or no answer in it"
            ),
            RETURNED: number(
                "content back",
                format="%.2f",
                help="the share of the rollouts from before the step in which its content came "
                "back (the importance is then measured on the others)",
            ),
        },
    )
