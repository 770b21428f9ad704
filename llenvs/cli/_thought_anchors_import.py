"""``llenvs import thought-anchors PATH -o OUT.jsonl``: published traces with their step values.

PATH is one problem folder of Thought Anchors' data or any folder above them. Every folder is
read before anything is written, so a folder that cannot be imported stops the import with its
name and leaves the output as it was. The traces go to OUT (appended, or replacing it with
``--overwrite``; traces already there are skipped), their published step values to OUT's
analysis sidecar (``llenvs analyze OUT --trace N --budget 0 --json`` prints them).

Example:
    >>> import argparse, tempfile, pathlib
    >>> from llenvs.analysis.sidecar._thought_anchors_example import example_folder
    >>> folder = example_folder()
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "ta.jsonl"
    >>> args = argparse.Namespace(input=str(folder), output=str(out), overwrite=False,
    ...                           prm=None, prm_base_url=None)
    >>> import_thought_anchors(args)  # doctest: +ELLIPSIS
    imported 1 trace (2 segments) to .../ta.jsonl; published step values of 2 boundaries (2 with trials inferred from the published accuracy) to .../ta.analysis.jsonl
    0

"""  # noqa: E501

from __future__ import annotations

import argparse
import dataclasses

from llenvs.analysis.sidecar import (
    read_all,
    thought_anchors_folders,
    write_thought_anchors,
)
from llenvs.cli._prm_scores import scored_traces
from llenvs.traces.files import analysis_path

__all__ = ["import_thought_anchors"]


def import_thought_anchors(args: argparse.Namespace) -> int:
    """Import ``args.input`` into ``args.output`` (see the module); 0 on success."""
    imported = read_all(thought_anchors_folders(args.input))
    if args.prm is not None:
        scored = scored_traces([item.trace for item in imported], args.prm, args.prm_base_url)
        imported = [
            dataclasses.replace(item, trace=trace)
            for item, trace in zip(imported, scored, strict=True)
        ]
    written, known = write_thought_anchors(args.output, imported, overwrite=args.overwrite)
    for item in imported:
        if item.verdict_disagrees:
            print(
                f"note: {item.folder}: math-verify judges the answer "
                f"{'right' if item.trace.success else 'wrong'} against gt_answer; the folder's "
                f"is_correct says {item.published_correct}"
            )
    if not written:
        print(f"imported nothing: all {len(imported)} traces are in {args.output} already")
        return 0
    segments = sum(len(item.trace.segments) for item in written)
    boundaries = sum(len(item.published.tallies) for item in written)
    inferred = sum(item.published.inferred for item in written)
    plural = "" if len(written) == 1 else "s"
    skipped = f"; {known} already there skipped" if known else ""
    print(
        f"imported {len(written)} trace{plural} ({segments} segments) to {args.output}; "
        f"published step values of {boundaries} boundaries ({inferred} with trials inferred "
        f"from the published accuracy) to {analysis_path(args.output)}{skipped}"
    )
    return 0
