"""The step values panel's table: one row per boundary, its numbers named and formatted."""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from llenvs.workbench.step_value_rows import RETURNED

__all__ = ["value_table"]


def value_table(rows: pd.DataFrame) -> None:
    """The table of ``rows`` (``value_rows``, maybe ``with_returns``): the end's row named."""
    last = int(rows["#"].iloc[-1])
    shown = rows.assign(
        **{
            "#": [str(b) if b < last else "end" for b in rows["#"]],
            "forced right": rows["forced right"].map({True: "✓", False: "✗"}),
        }
    )
    number = functools.partial(st.column_config.NumberColumn, format="%.3f")
    st.dataframe(
        shown,
        hide_index=True,
        height=240,
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
            RETURNED: number(
                "content back",
                format="%.2f",
                help="the share of the rollouts from before the step in which its content came "
                "back (the importance is then measured on the others)",
            ),
        },
    )
