"""The PRM select box of the Settings, Evaluate and intervention forms.

One select box (``PRM_CHOICES``, any names a page adds, and ``vllm/<model>``); when a served
PRM is chosen, two text fields: its model's name and its server's URL (default
``DEFAULT_BASE_URL``). It returns a ``PRMChoice``, whose URL goes to the PRM itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.workbench.models import (
    DEFAULT_BASE_URL,
    PRM_CHOICES,
    SERVED_PRM,
    PRMChoice,
    describe_choice,
)

__all__ = ["prm_picker"]


def prm_picker(
    label: str, key: str, default: PRMChoice, extra: Sequence[str] = ()
) -> PRMChoice | None:
    """Draw the PRM choice; the chosen PRM, or None while its fields are wrong (said on screen).

    ``key`` names the select box (``<key>-model`` and ``<key>-url`` the served PRM's fields);
    ``extra`` are more names to offer (a trace's own PRM); ``default`` is chosen first.
    """
    names: list[str | None] = list(dict.fromkeys([*PRM_CHOICES, *extra]))
    first = SERVED_PRM if default.served and default.spec not in names else default.spec
    names = list(dict.fromkeys([*names, first, SERVED_PRM]))
    chosen = st.selectbox(
        label, names, index=names.index(first), format_func=describe_choice, key=key
    )
    if chosen != SERVED_PRM:
        return PRMChoice(chosen)
    left, right = st.columns(2)
    model = left.text_input(
        "PRM model",
        value=default.model,
        key=f"{key}-model",
        help="The name the vLLM server serves it under (--served-model-name, else its path)",
    ).strip()
    url = right.text_input(
        "PRM server URL",
        value=default.base_url or DEFAULT_BASE_URL,
        key=f"{key}-url",
        help="Where `vllm serve <model> --runner pooling` listens",
    ).strip()
    if not model:
        st.error("a served PRM needs its model's name (vllm/<model>)", icon=":material/error:")
        return None
    try:
        return PRMChoice(PRMSpec(PRMKind.VLLM, model).name, url)
    except ValueError as error:
        st.error(str(error), icon=":material/error:")
        return None
