"""Human step labels.

One label of one step (StepLabel), the label store beside a trace file (append-only, under the
file's lock) and what it reads back as, and ProcessBench's view of labels: the first error.
"""

from llenvs.traces.labels._first_error import (
    first_error,
    first_error_labels,
    settled_first_error,
)
from llenvs.traces.labels._label import LABEL_VALUES, StepLabel
from llenvs.traces.labels._store import (
    Labels,
    append_labels,
    append_new_labels,
    label_of_line,
    labels_path,
    read_labels,
)

__all__ = [
    "LABEL_VALUES",
    "Labels",
    "StepLabel",
    "append_labels",
    "append_new_labels",
    "first_error",
    "first_error_labels",
    "label_of_line",
    "labels_path",
    "read_labels",
    "settled_first_error",
]
