"""The step scores ``llenvs agreement --prm SPEC`` compares with labels: stored, or scored now.

A SPEC that is a key of the file's segments' ``prm_scores`` reads those stored scores (the
traces holding none of them are left out); any other SPEC is a PRM name ``get_prm`` knows,
which scores every trace now (``arithmetic``, ``judge:<backend>``, ``judge`` or ``mc`` with
``--backend``, ``vllm/<model>`` with ``--prm-base-url``, ``transformers/<path>``). Nothing is
written back.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="2 + 2 = 5.",
    ...           segments=(SegmentRecord(0, 0, 10, "2 + 2 = 5.", prm_scores={"p": 0.25}),))
    >>> stored_names([t])
    ('p',)
    >>> [(s.name, s.stored, list(s.scores.values())) for s in (prm_scores("p", [t]),
    ...                                                      prm_scores("arithmetic", [t]))]
    [('p', True, [[0.25]]), ('arithmetic', False, [[0.0]])]

"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from llenvs.cli.options import build_backend, prm_options
from llenvs.cli.server_options import server_options
from llenvs.core.backend import ModelBackend
from llenvs.core.errors import UnknownName
from llenvs.core.spec.prm_spec import PRM_NAMES, PRMKind, PRMSpec
from llenvs.traces import Trace

__all__ = ["PRMScores", "prm_scores", "stored_names"]


@dataclass(frozen=True)
class PRMScores:
    """One ``--prm``'s step scores of a file's traces."""

    name: str
    """The SPEC as given."""
    stored: bool
    """True: read from the segments' ``prm_scores``; False: scored now."""
    scores: Mapping[str, Sequence[float | None]]
    """Trace id -> one score per segment (None: unrated)."""

    @property
    def source(self) -> str:
        """How the scores were had, for people.

        Example:
            >>> PRMScores("prm", True, {}).source
            'stored'

        """
        return "stored" if self.stored else "scored now"


def stored_names(traces: Sequence[Trace]) -> tuple[str, ...]:
    """The score names the traces' segments store, sorted.

    Example:
        >>> stored_names([])
        ()

    """
    return tuple(sorted({name for t in traces for s in t.segments for name in s.prm_scores}))


def prm_scores(
    spec: str, traces: Sequence[Trace], args: argparse.Namespace | None = None
) -> PRMScores:
    """The scores ``spec`` names: stored under that name, else a PRM's, scored now.

    ``args`` gives ``--prm-base-url`` and the model of ``judge`` and ``mc`` (``--backend``,
    ``--responses`` and the server options). An unknown name lists the stored names and the
    PRM names.

    Example:
        >>> prm_scores("nope", [])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, ...

    """
    stored = stored_names(traces)
    if spec in stored:
        scores = {
            t.trace_id: [s.prm_scores.get(spec) for s in t.segments]
            for t in traces
            if any(spec in s.prm_scores for s in t.segments)
        }
        return PRMScores(spec, True, scores)
    try:
        kind = PRMSpec.parse(spec).kind
    except UnknownName:
        kind = PRMKind.NONE
    if kind is PRMKind.NONE:
        hint = f"stored in the file: {', '.join(stored)}" if stored else "the file stores none"
        raise UnknownName("prm", spec, [*stored, *PRM_NAMES], hint=hint) from None
    return PRMScores(spec, False, _scored_now(spec, kind, traces, args))


def _scored_now(
    spec: str, kind: PRMKind, traces: Sequence[Trace], args: argparse.Namespace | None
) -> dict[str, list[float | None]]:
    """Every trace's step scores by the PRM ``spec`` names, one batch where the PRM can."""
    from llenvs.rewards import get_prm, score_traces

    options = prm_options(spec, getattr(args, "prm_base_url", None))
    scored = [t for t in traces if t.segments]
    questions = [(t.task.prompt, [s.text for s in t.segments]) for t in scored]
    if kind is PRMKind.MC:
        import llenvs.analysis  # noqa: F401  (registers "mc" with the PRM registry)
        from llenvs.evaluation.trace_environment import trace_base_environment

        backend = _backend(spec, args, "continues with")
        results = []
        for trace, question in zip(scored, questions, strict=True):
            environment, _ = trace_base_environment(trace)
            prm = get_prm(spec, backend=backend, environment=environment, **options)
            results.extend(score_traces(prm, [question]))
    else:
        if kind is PRMKind.JUDGE and PRMSpec.parse(spec).judge is None:
            options["backend"] = _backend(spec, args, "asks")
        results = score_traces(get_prm(spec, **options), questions)
    return {t.trace_id: list(r) for t, r in zip(scored, results, strict=True)}


def _backend(spec: str, args: argparse.Namespace | None, does: str) -> ModelBackend:
    """The model of ``--backend`` (for ``judge`` and ``mc``); an error when none is given."""
    name = getattr(args, "backend", None)
    if args is None or name is None:
        named = " (or name it: judge:<backend>)" if spec == "judge" else ""
        raise ValueError(f"--prm {spec} {does} a model: give --backend NAME{named}")
    return build_backend(name, args.responses, progress=False, options=server_options(args, name))
