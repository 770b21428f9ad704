"""Which PRM scores the Labels page compares with the labels: stored ones, or scored now.

The scores a file's segments store (``prm_scores``, by name) are offered first, all chosen.
*Score with a PRM now* adds another PRM's scores of the file, as ``llenvs agreement --prm``
scores them (``llenvs.evaluation``): ``arithmetic``; ``judge:transformers`` (the
embedded model judges); ``judge`` and ``mc`` with the model of the Settings page (a judge asked
about each step; rollouts from before each step, judged by the trace's verifier); or a PRM a
vLLM server serves. The scores stay for the browser session, for that version of the file;
``llenvs score FILE --prm SPEC`` stores them in the file instead.

Example:
    >>> describe_prm("judge"), describe_prm("vllm/<model>")
    ('judge (the model in Settings judges each step)', 'vllm/<model> (a PRM a vLLM server serves)')

"""

from __future__ import annotations

import streamlit as st

from llenvs.core import ModelBackend
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.evaluation import needs_model, score_now
from llenvs.rewards.prm import PRMScores, stored_names, stored_scores
from llenvs.ui.common import load_backend, session_key, stamp
from llenvs.ui.labels._page import LabelledFile
from llenvs.workbench import count
from llenvs.workbench.files import traces_dir
from llenvs.workbench.models import DEFAULT_BASE_URL, SERVED_PRM, PRMChoice, load_settings

__all__ = ["NOW_CHOICES", "SCORED_NOW", "chosen_scores", "describe_prm"]

NOW_CHOICES: tuple[str, ...] = ("arithmetic", "judge:transformers", "judge", "mc", SERVED_PRM)
"""The PRMs the page scores with now."""

SCORED_NOW = "labels-scored-now"
"""Session key: (file, its version, PRM name) -> the scores made now in this session."""

_DESCRIPTIONS = {
    "judge:transformers": "judge:transformers (the embedded model judges each step)",
    "judge": "judge (the model in Settings judges each step)",
    "mc": "mc (rollouts of the model in Settings from before each step)",
    SERVED_PRM: "vllm/<model> (a PRM a vLLM server serves)",
}


def describe_prm(name: str) -> str:
    """How a choice of ``NOW_CHOICES`` reads in the select box.

    Example:
        >>> describe_prm("arithmetic")
        'arithmetic'

    """
    return _DESCRIPTIONS.get(name, name)


def chosen_scores(file: LabelledFile) -> list[PRMScores]:
    """Draw the choice of scores; the chosen ones, stored first, then those scored now."""
    version = stamp(file.path)
    made: dict[tuple[str, tuple[int, int], str], PRMScores] = st.session_state.setdefault(
        SCORED_NOW, {}
    )
    stored = stored_names(file.traces)
    now = [name for (path, at, name) in made if path == file.path and at == version]
    offered = [*stored, *(name for name in now if name not in stored)]
    if not offered:
        st.caption(
            "The file stores no PRM scores: score it with a PRM below, or store some with "
            "`llenvs score FILE --prm SPEC`."
        )
        _score_now(file, version, made)
        return []
    picked = st.multiselect(
        "PRM scores",
        offered,
        default=offered,
        format_func=lambda name: f"{name} ({'stored' if name in stored else 'scored now'})",
        key=f"labels-prms-{file.path}-{'|'.join(offered)}",  # new scores: chosen too
        help="Stored: the scores the file's segments keep under that name; scored now: by the "
        "PRM of that name in this session",
    )
    _score_now(file, version, made)
    return [
        stored_scores(name, file.traces) if name in stored else made[(file.path, version, name)]
        for name in picked
    ]


def _score_now(
    file: LabelledFile,
    version: tuple[int, int],
    made: dict[tuple[str, tuple[int, int], str], PRMScores],
) -> None:
    """The *Score with a PRM now* form; a PRM's scores of the file go to ``made``."""
    steps = sum(len(t.segments) for t in file.traces)
    with st.expander("Score with a PRM now"):
        picked = st.selectbox("PRM", NOW_CHOICES, format_func=describe_prm, key="labels-now-prm")
        choice = _choice(picked)
        if choice is None or choice.spec is None:
            return
        if choice.spec in stored_names(file.traces):
            st.caption(f"The file stores `{choice.spec}` scores: they are offered above.")
            return
        st.caption(
            f"Scores the {count(steps, 'step')} of {count(len(file.traces), 'trace')} now "
            "(kept for this session; `llenvs score` stores them in the file). A judge or "
            "rollouts of a local model take minutes to hours on a CPU."
        )
        if not st.button("Score", key="labels-now-score", icon=":material/play_arrow:"):
            return
        name = choice.spec
        with st.spinner(f"Scoring {count(steps, 'step')} with {name}…"):
            if PRMSpec.parse(name).kind is PRMKind.MC:
                import llenvs.analysis  # noqa: F401  (registers "mc" with the PRM registry)
            model = _settings_model if needs_model(name) else None
            scores = score_now(name, file.traces, model=model, options=choice.options())
        made[(file.path, version, name)] = scores
        st.rerun()  # the new scores join the choice above


def _choice(picked: str) -> PRMChoice | None:
    """The PRM picked; a served PRM asks for its model and server (None while unnamed)."""
    if picked != SERVED_PRM:
        return PRMChoice(picked)
    left, right = st.columns(2)
    model = left.text_input("PRM model", key="labels-now-model").strip()
    url = right.text_input("PRM server URL", value=DEFAULT_BASE_URL, key="labels-now-url")
    if not model:
        st.caption("Name the served PRM's model (vllm/<model>).")
        return None
    try:
        return PRMChoice(PRMSpec(PRMKind.VLLM, model).name, url.strip())
    except ValueError as error:
        st.error(str(error), icon=":material/error:")
        return None


def _settings_model() -> ModelBackend:
    """The model the Settings page names (loaded once, shared)."""
    choice = load_settings(traces_dir()).choice()
    if choice is None:
        raise ValueError(
            "the model in Settings lacks its server URL or name: set it on the Settings page"
        )
    return load_backend(choice, session_key())
