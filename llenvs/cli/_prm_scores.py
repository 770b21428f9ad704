"""PRM step scores on the command line: stored or scored now, and given on import.

The step scores ``llenvs agreement --prm SPEC`` compares with labels are stored or scored now.

The library's ``llenvs.evaluation.prm_scores`` gets them (the workbench's Labels
page gets its own there too): a SPEC that is a key of the file's segments' ``prm_scores``
reads those stored scores (the traces holding none of them are left out); any other SPEC is a
PRM name ``get_prm`` knows, which scores every trace now (``arithmetic``, ``judge:<backend>``,
``judge`` or ``mc`` with ``--backend``, ``vllm/<model>`` with ``--prm-base-url``,
``transformers/<path>``). Here the command line gives the model and the served PRM's URL.
Nothing is written back. (The library's example shows a stored name and a PRM's, both ways.)

**On import** (``--prm``), traces are given a PRM's step scores as ``llenvs evaluate`` records them.

The scores go under ``prm``, and the PRM that made them into ``run.spec.prm``.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="2 + 2 = 5.",
    ...           segments=(SegmentRecord(0, 0, 10, "2 + 2 = 5."),))
    >>> [s.prm_scores for s in next(scored_traces([t], "arithmetic", None)).segments]
    [{'prm': 0.0}]

"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from llenvs import evaluation
from llenvs.cli._model_options import build_backend
from llenvs.cli._options import PRM_BASE_URL_HELP, prm_options
from llenvs.cli._server_options import add_server_options, server_options
from llenvs.core import ModelBackend
from llenvs.core.run_spec import PRMKind
from llenvs.rewards.prm import PRMScores
from llenvs.traces import Trace

__all__ = ["add_prm_model_options", "prm_scores", "scored_now", "scored_traces"]


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
        >>> prm_scores("judge", [])
        Traceback (most recent call last):
        ...
        ValueError: --prm judge asks a model: give --backend NAME (or name it: judge:<backend>)

    """
    if evaluation.prm_kind(spec, traces) is None:
        return evaluation.prm_scores(spec, traces)
    return scored_now(spec, traces, args)


def scored_now(
    spec: str, traces: Sequence[Trace], args: argparse.Namespace | None = None
) -> PRMScores:
    """The scores of the PRM ``spec`` names, scored now (whatever the traces store).

    Example:
        >>> scored_now("mc", [])
        Traceback (most recent call last):
        ...
        ValueError: --prm mc continues with a model: give --backend NAME

    """
    kind = evaluation.prm_kind(spec)
    if kind is PRMKind.MC:
        import llenvs.analysis  # noqa: F401  (registers "mc" with the PRM registry)
    options = prm_options(spec, getattr(args, "prm_base_url", None))
    if not evaluation.needs_model(spec):
        return evaluation.score_now(spec, traces, options=options)
    backend = _backend(spec, args, "continues with" if kind is PRMKind.MC else "asks")
    return evaluation.score_now(spec, traces, model=lambda: backend, options=options)


def _backend(spec: str, args: argparse.Namespace | None, does: str) -> ModelBackend:
    """The model of ``--backend`` (for ``judge`` and ``mc``); an error when none is given."""
    name = getattr(args, "backend", None)
    if args is None or name is None:
        named = " (or name it: judge:<backend>)" if spec == "judge" else ""
        raise ValueError(f"--prm {spec} {does} a model: give --backend NAME{named}")
    return build_backend(name, args.responses, progress=False, options=server_options(args, name))


def add_prm_model_options(parser: argparse.ArgumentParser) -> None:
    """The options of a PRM that scores now: its server, and the model judge and mc use.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_prm_model_options(parser)
        >>> parser.parse_args(["--backend", "transformers"]).backend
        'transformers'

    """
    parser.add_argument("--prm-base-url", metavar="URL", help=PRM_BASE_URL_HELP)
    group = parser.add_argument_group("model (for --prm judge and --prm mc)")
    group.add_argument(
        "--backend",
        help="the model --prm judge asks and --prm mc continues with: transformers (the "
        "embedded model), openai/<model> (see --base-url), scripted (see --responses)",
    )
    group.add_argument(
        "--responses",
        type=Path,
        help="for --backend scripted: a JSONL file of the replies, one per line, in order",
    )
    add_server_options(parser)


def scored_traces(traces: Iterable[Trace], prm: str | None, url: str | None) -> Iterator[Trace]:
    """``traces`` with ``prm``'s step scores as the ``prm`` reward (as they are, with None).

    The PRM's options are checked before the first trace is read, so a wrong one fails first.
    """
    options = prm_options(prm, url)
    if prm is None:
        yield from traces
        return
    from llenvs.core.run_spec import PRMSpec
    from llenvs.rewards import get_prm
    from llenvs.rewards.prm import with_prm_scores

    model, spec = get_prm(prm, **options), PRMSpec.parse(prm, **options)
    for trace in traces:
        yield with_prm_scores(trace, model, spec)  # as evaluate scores and records it
