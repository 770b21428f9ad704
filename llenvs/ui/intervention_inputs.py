"""The intervention panel's inputs for the chosen action, made into its intervention once.

Force and Feedback draw a text box, Resample its samples, temperature and seed; the inputs make
one ``Intervention`` (``llenvs.core.intervention``), or say why they make none (the value's
own check, shown as why Generate is off). Drafts (a forced text) live in session state under
keys that do not hold the segment, so an edited text survives moving the selection and back.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from llenvs.core.backend import SamplingParams
from llenvs.core.bounds import SAMPLES
from llenvs.core.intervention import COMPLETE, Feedback, Force, Intervention, Resample
from llenvs.evaluation import trace_sampling_params
from llenvs.traces import InterventionKind, Trace, TraceFormatError

__all__ = ["ActionInputs", "action_inputs"]

_DRAFTS = "iv-drafts"
_FORCE = "iv-force-text"
_FORCE_FOR = "iv-force-for"


@dataclass(frozen=True)
class ActionInputs:
    """What the action's inputs make: the intervention, or why they make none.

    Example:
        >>> ActionInputs(None, "the feedback needs a text that is not blank, got ''").samples
        1

    """

    intervention: Intervention | None
    """The intervention, when the inputs make one."""
    problem: str | None
    """Why they do not (its own check's message), else None."""
    samples: int = 1
    """How many samples were asked for (a resample's box, even out of bounds)."""


def action_inputs(kind: InterventionKind, trace: Trace, segment: int) -> ActionInputs:
    """Draw the chosen action's own inputs and make its intervention of them, once.

    Streamlit draws the boxes, so this runs inside a page (``AppTest`` drives it in tests).
    """
    try:
        match kind:
            case InterventionKind.FORCE:
                _keep_draft(trace, segment)
                text = st.text_area(f"Segment {segment}'s new text", key=_FORCE, height=100)
                return ActionInputs(Force(text), None)
            case InterventionKind.FEEDBACK:
                label = f"Feedback after segment {segment}"
                text = st.text_area(label, key="iv-feedback", height=80)
                return ActionInputs(Feedback(text), None)
            case InterventionKind.COMPLETE:
                return ActionInputs(COMPLETE, None)
            case InterventionKind.RESAMPLE:
                return _resample_inputs(trace)
    except ValueError as error:
        return ActionInputs(None, str(error))


def _resample_inputs(trace: Trace) -> ActionInputs:
    """The boxes of a resample: how many samples, the temperature and the seed."""
    left, middle, right = st.columns(3)
    samples = int(
        left.number_input(
            "samples", value=1, step=1, key="iv-samples", help=f"1–{SAMPLES.high}, one batch"
        )
    )
    temperature = float(middle.number_input("temperature", 0.0, 2.0, 0.7, 0.1, key="iv-temp"))
    seed = int(right.number_input("seed", 0, 2**31 - 1, 0, key="iv-seed"))
    try:
        base = trace_sampling_params(trace) or SamplingParams()
    except TraceFormatError:  # Generate is off, and action_problem says why
        base = SamplingParams()
    params = SamplingParams(
        max_tokens=base.max_tokens,
        temperature=temperature,
        top_p=base.top_p,
        top_k=base.top_k,
        seed=seed,
        stop=base.stop,
    )
    try:
        return ActionInputs(Resample(samples, params), None, samples)
    except ValueError as error:
        return ActionInputs(None, str(error), samples)


def _keep_draft(trace: Trace, segment: int) -> None:
    """Put segment ``segment``'s draft (or its text) in the force box, keeping the last one."""
    drafts: dict[tuple[str, int], str] = st.session_state.setdefault(_DRAFTS, {})
    here = (trace.trace_id, segment)
    before = st.session_state.get(_FORCE_FOR)
    if before == here and _FORCE in st.session_state:
        return
    if before is not None and _FORCE in st.session_state:
        drafts[before] = st.session_state[_FORCE]
    st.session_state[_FORCE] = drafts.get(here, trace.segments[segment].text)
    st.session_state[_FORCE_FOR] = here
