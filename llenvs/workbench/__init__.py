"""What the workbench does, without Streamlit: its jobs, models, files and view models.

Jobs and their queue, the model pool, trace files and their index, settings, and the view
models and chart specs the pages draw.

``llenvs.ui`` draws these with Streamlit; the CLI uses some of them too (``trace_scoring``).
Importing ``llenvs.analysis`` here registers the ``mc`` PRM (``MonteCarloPRM``) with
``get_prm``, so the workbench's jobs can make it.
"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
from llenvs.workbench._branch_comparison import (
    aligned_segments,
    branch_label,
    branch_point,
    describe_action,
    describe_branch,
    outcome,
    outcome_table,
    sample_summary,
)
from llenvs.workbench._browse_location import KEPT_PARAMS, MODE_PARAM, BrowseLocation, neighbour
from llenvs.workbench._experiment_tables import bin_rows, branch_rows, summary_table, verdict
from llenvs.workbench._number_entry import (
    TEMPERATURE,
    FloatBound,
    NumberEntry,
    OutOfRange,
    allowed,
    read_number,
)
from llenvs.workbench._run_summary import prm_summary, run_summary, scorer_name
from llenvs.workbench._segmenter_comparison import (
    agreement_figure,
    agreement_matrix,
    aligned_table,
    compare_segmenters,
)
from llenvs.workbench._short_name import SIDEBAR_NAME, short_name
from llenvs.workbench._whitespace import one_line, visible_whitespace
from llenvs.workbench._wording import MISSING, count, describe_key, duration, success_rate
from llenvs.workbench._workbench_pages import PAGES
from llenvs.workbench.browse import (
    BEFORE,
    RETURNED,
    SELECTION_MODES,
    WINDOW,
    LabelKey,
    Success,
    TraceFilter,
    branch_counts,
    branch_tree,
    describe_history,
    label_cell,
    label_colour,
    label_values,
    label_words,
    labels_shown,
    measure_label,
    picked_row,
    published_source,
    score_colour,
    segment_table,
    segment_window,
    shown_labels,
    styled_segments,
    tag_counts,
    tagged_segments,
    value_rows,
    window_caption,
    window_rows,
    with_returns,
)

__all__ = [
    "BEFORE",
    "KEPT_PARAMS",
    "MISSING",
    "MODE_PARAM",
    "PAGES",
    "RETURNED",
    "SELECTION_MODES",
    "SIDEBAR_NAME",
    "TEMPERATURE",
    "WINDOW",
    "BrowseLocation",
    "FloatBound",
    "LabelKey",
    "NumberEntry",
    "OutOfRange",
    "Success",
    "TraceFilter",
    "agreement_figure",
    "agreement_matrix",
    "aligned_segments",
    "aligned_table",
    "allowed",
    "bin_rows",
    "branch_counts",
    "branch_label",
    "branch_point",
    "branch_rows",
    "branch_tree",
    "compare_segmenters",
    "count",
    "describe_action",
    "describe_branch",
    "describe_history",
    "describe_key",
    "duration",
    "label_cell",
    "label_colour",
    "label_values",
    "label_words",
    "labels_shown",
    "measure_label",
    "neighbour",
    "one_line",
    "outcome",
    "outcome_table",
    "picked_row",
    "prm_summary",
    "published_source",
    "read_number",
    "run_summary",
    "sample_summary",
    "score_colour",
    "scorer_name",
    "segment_table",
    "segment_window",
    "short_name",
    "shown_labels",
    "styled_segments",
    "success_rate",
    "summary_table",
    "tag_counts",
    "tagged_segments",
    "value_rows",
    "verdict",
    "visible_whitespace",
    "window_caption",
    "window_rows",
    "with_returns",
]
