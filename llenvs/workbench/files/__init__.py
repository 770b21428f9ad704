"""The workbench's files: which it may open, where it finds them, their index and label stores."""

from llenvs.workbench.files._browse_default import DEFAULT_VIEW_FILE, BrowseDefault, browse_default
from llenvs.workbench.files._file_tasks import file_tasks
from llenvs.workbench.files._label_store_cache import cached_labels
from llenvs.workbench.files._trace_index import (
    SUMMARY_COLUMNS,
    TraceIndex,
    lines_containing,
    load_line,
)
from llenvs.workbench.files._trace_roots import (
    TRACE_ROOTS_ENV,
    TRACES_DIR_ENV,
    allowed_roots,
    inside_roots,
    resolve_trace_path,
    traces_dir,
)
from llenvs.workbench.files._trace_source import (
    TRACE_LINE,
    import_into,
    save_upload,
    shown_path,
    trace_files,
)

__all__ = [
    "DEFAULT_VIEW_FILE",
    "SUMMARY_COLUMNS",
    "TRACES_DIR_ENV",
    "TRACE_LINE",
    "TRACE_ROOTS_ENV",
    "BrowseDefault",
    "TraceIndex",
    "allowed_roots",
    "browse_default",
    "cached_labels",
    "file_tasks",
    "import_into",
    "inside_roots",
    "lines_containing",
    "load_line",
    "resolve_trace_path",
    "save_upload",
    "shown_path",
    "trace_files",
    "traces_dir",
]
