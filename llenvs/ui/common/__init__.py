"""What every page draws with.

The page's URL place, the browser session, cached loaders, keyboard shortcuts that drop no
press, number boxes that say what they clamp, the guard that turns errors into messages, exact
response text, a model for a page (loading, choosing, the PRM box), a job's Stop and how it
ended, the sidebar's trace file box, and the Settings page with the settings every page reads.
"""

from llenvs.ui.common._browse_url import go_to, read_location
from llenvs.ui.common._browser_session import current_session
from llenvs.ui.common._cached import (
    cached_branch_counts,
    cached_index,
    cached_search,
    cached_trace,
    stamp,
)
from llenvs.ui.common._job_controls import job_controls, show_outcome, trace_outcome
from llenvs.ui.common._key_queue import key_queue
from llenvs.ui.common._model_loading import load_backend
from llenvs.ui.common._model_picker import current_choice, model_picker, saved_settings
from llenvs.ui.common._number_box import FloatBound, OutOfRange, box_label, number_box, read_number
from llenvs.ui.common._page_guard import LOGGER, is_internal_error, shows_errors, through_app
from llenvs.ui.common._prm_picker import prm_picker
from llenvs.ui.common._settings import session_key, settings_form
from llenvs.ui.common._text_block import TEXT_CLASS, text_block
from llenvs.ui.common._trace_file_box import trace_file_box

__all__ = [
    "LOGGER",
    "TEXT_CLASS",
    "FloatBound",
    "OutOfRange",
    "box_label",
    "cached_branch_counts",
    "cached_index",
    "cached_search",
    "cached_trace",
    "current_choice",
    "current_session",
    "go_to",
    "is_internal_error",
    "job_controls",
    "key_queue",
    "load_backend",
    "model_picker",
    "number_box",
    "prm_picker",
    "read_location",
    "read_number",
    "saved_settings",
    "session_key",
    "settings_form",
    "show_outcome",
    "shows_errors",
    "stamp",
    "text_block",
    "through_app",
    "trace_file_box",
    "trace_outcome",
]
