"""The branch tree of a trace: every branch, and branches of branches, in one nested list.

Branches live in the trace file's sidecar (``*.branches.jsonl``), each naming its parent; a
branch of a branch sits in the same sidecar. ``branch_tree`` walks them from a root trace,
depth first, children in the order they were made, each with its line in the sidecar so that
Browse can open it.

Example:
    >>> branch_tree("/no/such.jsonl", "some-trace-id")
    []

"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from llenvs.traces import Trace, TraceReader, branches_path
from llenvs.traces.files import max_line_bytes

__all__ = ["TreeNode", "branch_counts", "branch_tree"]


@dataclass(frozen=True)
class TreeNode:
    """One branch in a trace's tree.

    Example:
        >>> TreeNode.__dataclass_fields__.keys()
        dict_keys(['trace', 'line', 'depth'])

    """

    trace: Trace
    """The branch."""
    line: int
    """Its line in the sidecar (from 1, as Browse shows it)."""
    depth: int
    """1 for a branch of the root, 2 for a branch of that branch, and so on."""


def branch_tree(trace_path: str | os.PathLike[str], root_id: str) -> list[TreeNode]:
    """Every branch descending from the trace ``root_id``, depth first (see the module).

    ``trace_path`` is the trace file (or the sidecar itself, for a branch opened in Browse).
    """
    sidecar = branches_path(trace_path)
    if not Path(sidecar).exists():
        return []
    children: dict[str, list[tuple[int, Trace]]] = defaultdict(list)
    for line, trace in TraceReader(sidecar, max_line=max_line_bytes()).numbered():
        if trace.parent is not None:
            children[trace.parent.parent_id].append((line, trace))
    nodes: list[TreeNode] = []
    stack = [(line, trace, 1) for line, trace in reversed(children.get(root_id, []))]
    seen: set[str] = set()
    while stack:
        line, trace, depth = stack.pop()
        if trace.trace_id in seen:
            continue
        seen.add(trace.trace_id)
        nodes.append(TreeNode(trace, line, depth))
        below = children.get(trace.trace_id, [])
        stack.extend((n, t, depth + 1) for n, t in reversed(below))
    return nodes


def branch_counts(trace_path: str | os.PathLike[str]) -> dict[str, int]:
    """How many branches each trace of ``trace_path`` has in the sidecar (its own, not below).

    Example:
        >>> branch_counts("/no/such.jsonl")
        {}

    """
    sidecar = branches_path(trace_path)
    if not Path(sidecar).exists():
        return {}
    return dict(
        Counter(
            t.parent.parent_id
            for t in TraceReader(sidecar, max_line=max_line_bytes())
            if t.parent is not None
        )
    )
