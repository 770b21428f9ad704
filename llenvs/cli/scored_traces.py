"""Traces given a PRM's step scores on import, as ``llenvs evaluate`` records them.

The scores go under ``prm``, and the PRM that made them into ``run.spec.prm``.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="2 + 2 = 5.",
    ...           segments=(SegmentRecord(0, 0, 10, "2 + 2 = 5."),))
    >>> [s.prm_scores for s in next(scored_traces([t], "arithmetic", None)).segments]
    [{'prm': 0.0}]

"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from llenvs.cli.options import prm_options
from llenvs.traces import Trace

__all__ = ["scored_traces"]


def scored_traces(traces: Iterable[Trace], prm: str | None, url: str | None) -> Iterator[Trace]:
    """``traces`` with ``prm``'s step scores as the ``prm`` reward (as they are, with None).

    The PRM's options are checked before the first trace is read, so a wrong one fails first.
    """
    options = prm_options(prm, url)
    if prm is None:
        yield from traces
        return
    from llenvs.core.spec import PRMSpec
    from llenvs.rewards import get_prm
    from llenvs.workbench.trace_scoring import with_prm_scores

    model, spec = get_prm(prm, **options), PRMSpec.parse(prm, **options)
    for trace in traces:
        yield with_prm_scores(trace, model, spec)  # as evaluate scores and records it
