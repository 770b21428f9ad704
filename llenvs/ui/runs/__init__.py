"""The Compare runs page.

The runs it offers (the trace files of the folders, the pair sharing the most tasks first), and
two or more runs of the same tasks compared task by task.
"""

from llenvs.ui.runs._page import show_runs
from llenvs.ui.runs._run_choice import open_in_compare_runs, preselect, run_choices

__all__ = [
    "open_in_compare_runs",
    "preselect",
    "run_choices",
    "show_runs",
]
