"""One line saying how a trace was made, for Browse's header: model, sampling, segmenter.

Only what the run record holds is shown: a trace that sampled nothing (an imported text) says
so instead of showing default sampling values, or shows what its source states, each setting
it does not state "not recorded"; fields an older record kept that map to no spec
field are named.

Example:
    >>> from llenvs.core.run_spec import ModelSpec, RunSpec, SegmenterSpec
    >>> from llenvs.traces import RunRecord
    >>> run = RunRecord(RunSpec(model=ModelSpec.parse("transformers", dtype="float32"),
    ...                         sampling=SamplingParams(max_tokens=96),
    ...                         segmenter=SegmenterSpec("sentence")))
    >>> run_summary(run)
    'model: transformers/SmolLM2-135M-Instruct (float32) · sampling: greedy, 96 tokens · segmenter: sentence'
    >>> run_summary(RunRecord(unknown={"model": "coin", "prm.colour": "blue"}))
    'model: coin (no backend here) · sampling: none recorded · segmenter: — · unknown fields: prm.colour'

"""  # noqa: E501

from __future__ import annotations

from llenvs.core import SamplingParams
from llenvs.core.run_spec import PRMKind, RunSpec
from llenvs.rewards import PRM_REWARD_NAME
from llenvs.rewards.prm import describe_prm
from llenvs.traces import Trace
from llenvs.traces.records import RunRecord

__all__ = ["prm_summary", "run_summary", "sampling_summary", "scorer_name"]


def run_summary(run: RunRecord) -> str:
    """The model (with its precision), sampling, segmenter and unknown fields of ``run``."""
    model = run.model_name or "—"
    spec = run.spec.model
    if spec is not None and spec.dtype is not None:
        model = f"{model} ({spec.dtype})"
    elif spec is None and "model" in run.unknown:  # named, but by no backend spec (an import)
        model = f"{model} (no backend here)"
    segmenter = "—" if run.spec.segmenter is None else run.spec.segmenter.text
    parts = [
        f"model: {model}",
        f"sampling: {_sampling(run.spec)}",
        f"segmenter: {segmenter}",
    ]
    unknown = [field for field in run.unknown_fields if field != "model"]  # shown above
    if unknown:
        parts.append(f"unknown fields: {', '.join(unknown)}")
    return " · ".join(parts)


def _sampling(spec: RunSpec) -> str:
    """The run's own sampling; else what its source states; else "none recorded"."""
    if spec.sampling is None and spec.stated_sampling is not None:
        return spec.stated_sampling.summary()
    return sampling_summary(spec.sampling)


def sampling_summary(params: SamplingParams | None) -> str:
    """Greedy or a temperature (with its seed), and the token budget; or "none recorded".

    Example:
        >>> sampling_summary(SamplingParams(max_tokens=8, temperature=0.8, seed=3))
        'temperature 0.8, seed 3, 8 tokens'

    """
    if params is None:
        return "none recorded"
    how = "greedy" if params.temperature == 0 else f"temperature {params.temperature:g}"
    if params.temperature != 0 and params.seed is not None:
        how += f", seed {params.seed}"
    return f"{how}, {params.max_tokens} tokens"


def prm_summary(trace: Trace) -> str:
    """Which PRM's scores the trace holds, and that they were recorded with it.

    Example:
        >>> import dataclasses
        >>> from llenvs.core.run_spec import PRMSpec
        >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
        >>> scored = SegmentRecord(0, 0, 2, "ok", prm_scores={"prm": 0.5})
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="ok", segments=(scored,))
        >>> prm_summary(t)
        'PRM scores: recorded with the trace; which PRM made them is not recorded'
        >>> spec = RunSpec(prm=PRMSpec.parse("arithmetic"))
        >>> prm_summary(dataclasses.replace(t, run=RunRecord(spec)))
        'PRM scores: recorded with the trace, by arithmetic'
        >>> prm_summary(dataclasses.replace(t, response="", segments=()))
        'PRM scores: none recorded'

    """
    names = sorted({name for s in trace.segments for name in s.prm_scores})
    spec = trace.run.spec.prm
    if not names:
        if spec is None or spec.kind is PRMKind.NONE:
            return "PRM scores: none recorded"
        named = describe_prm(spec, trace.run.spec.model)
        return f"PRM scores: none recorded (the run names {named})"
    scorers = [scorer_name(trace, name) for name in names]
    if names == [PRM_REWARD_NAME] and spec is None:
        return "PRM scores: recorded with the trace; which PRM made them is not recorded"
    return f"PRM scores: recorded with the trace, by {', '.join(scorers)}"


def scorer_name(trace: Trace, name: str) -> str:
    """The PRM behind the stored scores ``name``.

    For ``prm``, the run's recorded PRM; for another name, that name (``llenvs score --name``).

    Example:
        >>> from llenvs.traces import TaskRecord, Trace
        >>> scorer_name(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()),
        ...             "prm")
        'prm (PRM not recorded)'

    """
    spec = trace.run.spec.prm
    if name != PRM_REWARD_NAME:
        return name
    if spec is None or spec.kind is PRMKind.NONE:
        return f"{name} (PRM not recorded)"
    return describe_prm(spec, trace.run.spec.model)
