"""One line saying how a trace was made, for Browse's header: model, sampling, segmenter.

Only what the run record holds is shown: a trace that sampled nothing (an imported text) says
so instead of showing default sampling values; fields an older record kept that map to no spec
field are named.

Example:
    >>> from llenvs.core.backend import SamplingParams
    >>> from llenvs.core.spec import ModelSpec, RunSpec, SegmenterSpec
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

from llenvs.core.backend import SamplingParams
from llenvs.traces.run_record import RunRecord

__all__ = ["run_summary", "sampling_summary"]


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
        f"sampling: {sampling_summary(run.spec.sampling)}",
        f"segmenter: {segmenter}",
    ]
    unknown = [field for field in run.unknown_fields if field != "model"]  # shown above
    if unknown:
        parts.append(f"unknown fields: {', '.join(unknown)}")
    return " · ".join(parts)


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
