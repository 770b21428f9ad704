"""The step scores a name gives for a file's traces: stored under it, or a PRM's, scored now.

A name that a segment of the traces stores (``prm_scores``) reads those scores
(``llenvs.rewards.prm.stored_scores``); any other name is a PRM ``get_prm`` knows, which
scores every trace now, one batch where the PRM can: ``arithmetic``, ``judge:<backend>``,
``vllm/<model>`` (its server in ``options``), ``transformers/<path>``, and ``judge`` or ``mc``,
which need a model (``model``: called only then). ``mc`` continues each trace in its own
environment (``trace_base_environment``) and must be registered (importing ``llenvs.analysis``
does it). Nothing is written back. ``llenvs agreement``, ``llenvs score`` and the workbench's
Labels page all get their scores here.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="2 + 2 = 5.",
    ...           segments=(SegmentRecord(0, 0, 10, "2 + 2 = 5.", prm_scores={"p": 0.25}),))
    >>> [(s.name, s.stored, list(s.scores.values())) for s in (prm_scores("p", [t]),
    ...                                                      prm_scores("arithmetic", [t]))]
    [('p', True, [[0.25]]), ('arithmetic', False, [[0.0]])]

"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from llenvs.core import ModelBackend
from llenvs.core.errors import UnknownName
from llenvs.core.run_spec import PRM_NAMES, PRMKind, PRMSpec
from llenvs.evaluation.branching import trace_base_environment
from llenvs.rewards.prm import PRMScores, stored_names, stored_scores
from llenvs.traces.records import Trace

__all__ = ["needs_model", "prm_kind", "prm_scores", "score_now"]

Model = Callable[[], ModelBackend]
"""Gives the model ``judge`` asks and ``mc`` continues with (called only when one is needed)."""


def prm_kind(name: str, traces: Sequence[Trace] = ()) -> PRMKind | None:
    """The kind of PRM ``name`` names; None when the traces store scores under it.

    An unknown name lists the stored names and the PRM names.

    Example:
        >>> prm_kind("judge:transformers")
        <PRMKind.JUDGE: 'judge'>
        >>> prm_kind("nope")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, ...

    """
    stored = stored_names(traces)
    if name in stored:
        return None
    try:
        kind = PRMSpec.parse(name).kind
    except UnknownName:
        kind = PRMKind.NONE
    if kind is PRMKind.NONE:
        hint = f"stored in the file: {', '.join(stored)}" if stored else "the file stores none"
        raise UnknownName("prm", name, [*stored, *PRM_NAMES], hint=hint) from None
    return kind


def needs_model(name: str, traces: Sequence[Trace] = ()) -> bool:
    """Whether scoring ``name`` now needs a model: ``judge`` (the model judges) and ``mc``.

    Example:
        >>> needs_model("judge"), needs_model("mc"), needs_model("judge:transformers")
        (True, True, False)

    """
    kind = prm_kind(name, traces)
    if kind is PRMKind.JUDGE:
        return PRMSpec.parse(name).judge is None
    return kind is PRMKind.MC


def prm_scores(
    name: str,
    traces: Sequence[Trace],
    *,
    model: Model | None = None,
    options: Mapping[str, Any] | None = None,
) -> PRMScores:
    """The scores ``name`` gives: stored under that name, else a PRM's, scored now.

    ``options`` go to ``get_prm`` (a served PRM's ``base_url``); ``model`` gives the model of
    ``judge`` and ``mc`` (an error names what is missing when it is None).

    Example:
        >>> prm_scores("judge", [])
        Traceback (most recent call last):
        ...
        ValueError: the PRM 'judge' asks a model: give one (or name it: judge:<backend>)

    """
    if prm_kind(name, traces) is None:
        return stored_scores(name, traces)
    return score_now(name, traces, model=model, options=options)


def score_now(
    name: str,
    traces: Sequence[Trace],
    *,
    model: Model | None = None,
    options: Mapping[str, Any] | None = None,
) -> PRMScores:
    """The scores of the PRM ``name`` names, scored now (whatever the traces store).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 2.",
        ...           segments=(SegmentRecord(0, 0, 10, "1 + 1 = 2.",
        ...                                   prm_scores={"arithmetic": 0.0}),))
        >>> list(score_now("arithmetic", [t]).scores.values())
        [[1.0]]

    """
    kind = prm_kind(name)
    assert kind is not None  # no traces: no stored name
    return PRMScores(name, False, _scored_now(name, kind, traces, model, dict(options or {})))


def _scored_now(
    name: str,
    kind: PRMKind,
    traces: Sequence[Trace],
    model: Model | None,
    options: dict[str, Any],
) -> dict[str, list[float | None]]:
    """Every trace's step scores by the PRM ``name`` names, one batch where the PRM can."""
    from llenvs.rewards import get_prm, score_traces

    scored = [t for t in traces if t.segments]
    questions = [(t.task.prompt, [s.text for s in t.segments]) for t in scored]
    if needs_model(name) and model is None:
        does = "continues with" if kind is PRMKind.MC else "asks"
        named = " (or name it: judge:<backend>)" if kind is PRMKind.JUDGE else ""
        raise ValueError(f"the PRM {name!r} {does} a model: give one{named}")
    if kind is PRMKind.MC:
        assert model is not None
        backend = model()
        results = []
        for trace, question in zip(scored, questions, strict=True):
            environment, _ = trace_base_environment(trace)
            prm = get_prm(name, backend=backend, environment=environment, **options)
            results.extend(score_traces(prm, [question]))
    else:
        if model is not None and needs_model(name):
            options["backend"] = model()
        results = score_traces(get_prm(name, **options), questions)
    return {t.trace_id: list(r) for t, r in zip(scored, results, strict=True)}
