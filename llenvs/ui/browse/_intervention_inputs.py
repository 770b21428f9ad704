"""The intervention panel's inputs for the chosen action, made into its intervention once.

Force and Feedback draw a text box, Resample its samples, temperature and seed (number boxes
that refuse a number out of range, naming the range: ``number_box``), Substitute the target's
text box (Force's own draft: switching between the two keeps the text) and its tries,
similarity, temperature and seed; the inputs make one
``Intervention`` (``llenvs.core``), or say why they make none (a box's refusal or
the value's own check, shown as why Generate is off). Drafts (a forced text) live in session
state under keys that do not hold the segment, so an edited text survives moving the selection
and back.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from llenvs.core import (
    COMPLETE,
    SAMPLES,
    SEED,
    SUBSTITUTE_TRIES,
    Feedback,
    FloatBound,
    Force,
    Intervention,
    Resample,
    SamplingParams,
    Substitute,
)
from llenvs.evaluation import trace_sampling_params
from llenvs.traces import InterventionKind, Trace, TraceFormatError
from llenvs.ui.common import number_box
from llenvs.workbench import TEMPERATURE

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
    samples: int | None = 1
    """How many samples Generate makes (a resample's box); None while that box refuses."""


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
            case InterventionKind.SUBSTITUTE:
                _keep_draft(trace, segment)
                label = f"Segment {segment}: a text the model's own segment should come close to"
                text = st.text_area(label, key=_FORCE, height=100)
                return _substitute_inputs(text)
    except ValueError as error:
        return ActionInputs(None, str(error))
    raise AssertionError(f"no inputs for {kind}")


SIMILARITY = FloatBound("similarity", 0.05, 1.0, "a cosine: 1 is the same meaning")
"""How close a substitute's try must come to stop sampling."""

SUBSTITUTE_TEMPERATURE = FloatBound("temperature", 0.05, 2.0, "greedy tries would all be one")
"""The temperature a substitute's tries are sampled at."""


def _substitute_inputs(text: str) -> ActionInputs:
    """The boxes of a substitute: the most tries, the similarity asked, temperature and seed."""
    tries_at, close_at, temperature_at, seed_at = st.columns(4)
    tries = number_box("tries", SUBSTITUTE_TRIES, 16, "iv-tries", where=tries_at)
    close = number_box("similarity", SIMILARITY, 0.8, "iv-similarity", where=close_at)
    temperature = number_box(
        "temperature", SUBSTITUTE_TEMPERATURE, 1.0, "iv-sub-temp", where=temperature_at
    )
    seed = number_box("seed", SEED, 0, "iv-sub-seed", where=seed_at)
    boxes = (tries, close, temperature, seed)
    if any(box.value is None for box in boxes):
        return ActionInputs(None, next(box.problem for box in boxes if box.problem))
    assert tries.value is not None and close.value is not None and temperature.value is not None
    made = Substitute(text, tries.value, close.value, temperature.value, seed.value)
    return ActionInputs(made, None)


def _resample_inputs(trace: Trace) -> ActionInputs:
    """The boxes of a resample: how many samples, the temperature and the seed.

    A box that refuses its text makes no intervention; its message is why Generate is off.
    """
    left, middle, right = st.columns(3)
    samples = number_box("samples", SAMPLES, 1, "iv-samples", where=left, help="one batch")
    temperature = number_box("temperature", TEMPERATURE, 0.7, "iv-temp", where=middle)
    seed = number_box("seed", SEED, 0, "iv-seed", where=right)
    if samples.value is None or temperature.value is None or seed.value is None:
        refused = samples.problem or temperature.problem or seed.problem
        return ActionInputs(None, refused, samples.value)
    try:
        base = trace_sampling_params(trace) or SamplingParams()
    except TraceFormatError:  # Generate is off, and action_problem says why
        base = SamplingParams()
    params = SamplingParams(
        max_tokens=base.max_tokens,
        temperature=temperature.value,
        top_p=base.top_p,
        top_k=base.top_k,
        seed=seed.value,
        stop=base.stop,
    )
    try:
        return ActionInputs(Resample(samples.value, params), None, samples.value)
    except ValueError as error:
        return ActionInputs(None, str(error), samples.value)


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
