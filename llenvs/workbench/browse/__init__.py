"""What Browse shows, as data (no Streamlit).

The segment table, step-value rows, function tags, label columns, history and keys, the branch
tree and the trace filter; the charts (``llenvs.workbench.charts``) draw some of them.
"""

from llenvs.workbench.browse._branch_tree import TreeNode, branch_counts, branch_tree
from llenvs.workbench.browse._function_tags import (
    TAG_COLOURS,
    segment_tags,
    tag_colour,
    tag_counts,
    tagged_segments,
)
from llenvs.workbench.browse._label_column import labels_shown, shown_labels
from llenvs.workbench.browse._label_history import describe_change, describe_history, label_words
from llenvs.workbench.browse._label_keys import LabelKey
from llenvs.workbench.browse._published_step_values import measure_label, published_source
from llenvs.workbench.browse._segment_table import (
    BEFORE,
    LABEL_COLOURS,
    LABELLED_COLUMNS,
    SELECTION_MODES,
    WINDOW,
    label_cell,
    label_colour,
    label_values,
    picked_row,
    score_colour,
    segment_table,
    segment_window,
    styled_segments,
)
from llenvs.workbench.browse._step_value_rows import (
    COLUMNS,
    RETURNED,
    value_rows,
    window_caption,
    window_rows,
    with_returns,
)
from llenvs.workbench.browse._trace_filter import Success, TraceFilter

__all__ = [
    "BEFORE",
    "COLUMNS",
    "LABELLED_COLUMNS",
    "LABEL_COLOURS",
    "RETURNED",
    "SELECTION_MODES",
    "TAG_COLOURS",
    "WINDOW",
    "LabelKey",
    "Success",
    "TraceFilter",
    "TreeNode",
    "branch_counts",
    "branch_tree",
    "describe_change",
    "describe_history",
    "label_cell",
    "label_colour",
    "label_values",
    "label_words",
    "labels_shown",
    "measure_label",
    "picked_row",
    "published_source",
    "score_colour",
    "segment_table",
    "segment_tags",
    "segment_window",
    "shown_labels",
    "styled_segments",
    "tag_colour",
    "tag_counts",
    "tagged_segments",
    "value_rows",
    "window_caption",
    "window_rows",
    "with_returns",
]
