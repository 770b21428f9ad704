"""A one-trace file for the examples of the commands that work on stored traces.

``intervene``, ``experiment``, ``rerun`` and ``export`` each start from a trace file: their
examples take this one, made as ``llenvs evaluate --backend scripted`` makes it (so that
``rerun`` can make it again), and show only their own command.

Example:
    >>> traces = example_traces()
    >>> traces.name, [json.loads(line) for line in responses_file(traces.parent).open()]
    ('traces.jsonl', ['Count. So 8. <answer>8</answer>'])

"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

from llenvs.cli.main import main

__all__ = ["WRONG_RESPONSE", "example_traces", "responses_file", "write_responses"]

WRONG_RESPONSE = "Count. So 8. <answer>8</answer>"
"""The example trace's response: two sentence segments and a wrong answer (the task's is 100)."""


def responses_file(folder: Path) -> Path:
    """The scripted backend's responses file in ``folder``."""
    return folder / "responses.jsonl"


def write_responses(folder: Path, *responses: str) -> Path:
    """Write ``folder``'s responses file, one response a line, for ``--responses``.

    Example:
        >>> folder = Path(tempfile.mkdtemp())
        >>> write_responses(folder, "A.", "B.").read_text().splitlines()
        ['"A."', '"B."']

    """
    path = responses_file(folder)
    path.write_text("".join(json.dumps(response) + "\n" for response in responses))
    return path


def example_traces(response: str = WRONG_RESPONSE) -> Path:
    """A new folder's ``traces.jsonl``: one ``leg_counting`` task answered ``response``.

    The task is the first of size 100, seed 42 (its answer is 100), the response is segmented
    by sentence, and the responses file played stays beside it (``responses_file``).
    """
    folder = Path(tempfile.mkdtemp())
    traces = folder / "traces.jsonl"
    command = ["evaluate", "--env", "leg_counting", "--size", "100", "--seed", "42"]
    command += ["--num-tasks", "1", "--segmenter", "sentence", "--backend", "scripted"]
    command += ["--responses", str(write_responses(folder, response)), "-o", str(traces)]
    with contextlib.redirect_stdout(io.StringIO()):
        status = main([*command, "--no-progress", "--no-log"])
    if status != 0:
        raise RuntimeError(f"llenvs {' '.join(command)} exited with {status}")
    return traces
