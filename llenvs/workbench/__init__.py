"""What the workbench does, without Streamlit: its jobs, models, files and view models.

Jobs and their queue, the model pool, trace files and their index, settings, and the view
models and chart specs the pages draw.

``llenvs.ui`` draws these with Streamlit; the CLI uses some of them too (``trace_scoring``).
Importing ``llenvs.analysis`` here registers the ``mc`` PRM (``MonteCarloPRM``) with
``get_prm``, so the workbench's jobs can make it.
"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
from llenvs.core import FloatBound  # the boxes' real ranges, declared beside Bound
from llenvs.workbench._aligned_view import LEXICAL, AlignedView, StepMark, aligned_view
from llenvs.workbench._answer_moves import AnswerMoves, answer_moves
from llenvs.workbench._branch_comparison import (
    aligned_segments,
    branch_label,
    branch_point,
    describe_action,
    describe_branch,
    outcome,
    outcome_table,
)
from llenvs.workbench._browse_location import (
    KEPT_PARAMS,
    MODE_PARAM,
    QUEUE_PARAM,
    BrowseLocation,
    neighbour,
)
from llenvs.workbench._experiment_tables import bin_rows, branch_rows, summary_table, verdict
from llenvs.workbench._number_entry import (
    TEMPERATURE,
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
from llenvs.workbench._substitution_rows import substitution_rows
from llenvs.workbench._whitespace import one_line, visible_whitespace
from llenvs.workbench._wording import MISSING, count, describe_key, duration, success_rate
from llenvs.workbench._workbench_pages import PAGES
from llenvs.workbench.browse import BEFORE  # bench/labelling.py imports it from this face

__all__ = [
    "BEFORE",
    "KEPT_PARAMS",
    "LEXICAL",
    "MISSING",
    "MODE_PARAM",
    "PAGES",
    "QUEUE_PARAM",
    "SIDEBAR_NAME",
    "TEMPERATURE",
    "AlignedView",
    "AnswerMoves",
    "BrowseLocation",
    "FloatBound",
    "NumberEntry",
    "OutOfRange",
    "StepMark",
    "agreement_figure",
    "agreement_matrix",
    "aligned_segments",
    "aligned_table",
    "aligned_view",
    "allowed",
    "answer_moves",
    "bin_rows",
    "branch_label",
    "branch_point",
    "branch_rows",
    "compare_segmenters",
    "count",
    "describe_action",
    "describe_branch",
    "describe_key",
    "duration",
    "neighbour",
    "one_line",
    "outcome",
    "outcome_table",
    "prm_summary",
    "read_number",
    "run_summary",
    "scorer_name",
    "short_name",
    "substitution_rows",
    "success_rate",
    "summary_table",
    "verdict",
    "visible_whitespace",
]
