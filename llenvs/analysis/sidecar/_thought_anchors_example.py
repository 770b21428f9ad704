"""A tiny problem folder in Thought Anchors' published layout, for the examples of the import.

Two chunks of a ``tiny-model`` solving 2 + 2, with tags, a dependency, accuracies (one that
only 99 trials reproduce) and one importance measure: enough to show the import end to end
without the shared data.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from llenvs.analysis.sidecar._thought_anchors import BASE, CHUNKS, PROBLEM

__all__ = ["example_folder"]


def example_folder() -> Path:
    """A two-chunk problem folder in a new temporary directory.

    Example:
        >>> sorted(p.name for p in example_folder().iterdir())
        ['base_solution.json', 'chunks_labeled.json', 'problem.json']

    """
    folder = Path(tempfile.mkdtemp()) / "tiny-model" / "correct_base_solution" / "problem_7"
    folder.mkdir(parents=True)
    base = {
        "prompt": "What is 2 + 2?",
        "solution": "So 2 + 2 = 4.\n\nDone.\n</think> \\boxed{4}",
        "answer": "4",
        "is_correct": True,
    }
    chunks = [
        {
            "chunk": "So 2 + 2 = 4.",
            "chunk_idx": 0,
            "function_tags": ["active_computation"],
            "depends_on": [],
            "accuracy": 0.95,
            "summary": "adds",
            "forced_importance_accuracy": 0.1,
        },
        {
            "chunk": "Done.",
            "chunk_idx": 1,
            "function_tags": ["self_checking"],
            "depends_on": ["0"],
            "accuracy": 0.98989898989899,
            "summary": "checks",
        },
    ]
    (folder / BASE).write_text(json.dumps(base))
    (folder / CHUNKS).write_text(json.dumps(chunks))
    (folder / PROBLEM).write_text(json.dumps({"problem": "2 + 2?", "gt_answer": "4"}))
    return folder
