"""The Browse page.

The file and trace list, navigation, the segment rows and panel, what a segment depends on, the
intervention panel (its inputs and on-policy check), Run again, label mode from the keyboard,
and the step values panel (its chart, table and content returns).
"""

from llenvs.ui.browse._importance_chart import MEASURE, WHOLE, ZOOM
from llenvs.ui.browse._intervention_panel import POLL_SECONDS, intervention_panel
from llenvs.ui.browse._label_mode import (
    LABEL_MODE,
    LABEL_PARAM,
    LABEL_ROWS,
    BrowseMode,
    note_key,
)
from llenvs.ui.browse._page import (
    choose_file,
    load_index,
    navigation,
    trace_guard,
    trace_view,
)
from llenvs.ui.browse._segment_detail import TEXT_LIMIT
from llenvs.ui.browse._segment_rows import TAG_FILTER
from llenvs.ui.browse._shown_step_values import result_keys, shown_values
from llenvs.ui.browse._trace_list import filters, show_skipped, trace_list

__all__ = [
    "LABEL_MODE",
    "LABEL_PARAM",
    "LABEL_ROWS",
    "MEASURE",
    "POLL_SECONDS",
    "TAG_FILTER",
    "TEXT_LIMIT",
    "WHOLE",
    "ZOOM",
    "BrowseMode",
    "choose_file",
    "filters",
    "intervention_panel",
    "load_index",
    "navigation",
    "note_key",
    "result_keys",
    "show_skipped",
    "shown_values",
    "trace_guard",
    "trace_list",
    "trace_view",
]
