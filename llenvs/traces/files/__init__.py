"""Trace files on disk.

Streaming reads (one trace per line, bad lines skipped and reported once), atomic writes and
appends under a per-file lock, the longest line read, the sidecars beside a trace file (the
branches sidecar among them) and finding one trace in a file.
"""

from llenvs.traces.files._branches import append_branch, read_branches
from llenvs.traces.files._crash_point import CRASH_AT
from llenvs.traces.files._file_lock import file_lock, lock_path
from llenvs.traces.files._find_trace import find_trace
from llenvs.traces.files._line_limit import MAX_LINE_ENV, limited_lines, max_line_bytes
from llenvs.traces.files._reader import TraceReader, read_traces
from llenvs.traces.files._sidecar import (
    Sidecar,
    analysis_path,
    branches_path,
    is_sidecar,
    sidecar_path,
)
from llenvs.traces.files._skip_report import no_trace_reason, skipped_summary, warn_skipped
from llenvs.traces.files._skipped_line import SkippedLine
from llenvs.traces.files._writer import (
    append_lines_atomically,
    append_trace,
    append_traces,
    file_mode,
    remove_leftover_temporaries,
    set_aside_lines,
    skipped_path,
    trace_line,
    write_lines_atomically,
    write_traces,
)

__all__ = [
    "CRASH_AT",
    "MAX_LINE_ENV",
    "Sidecar",
    "SkippedLine",
    "TraceReader",
    "analysis_path",
    "append_branch",
    "append_lines_atomically",
    "append_trace",
    "append_traces",
    "branches_path",
    "file_lock",
    "file_mode",
    "find_trace",
    "is_sidecar",
    "limited_lines",
    "lock_path",
    "max_line_bytes",
    "no_trace_reason",
    "read_branches",
    "read_traces",
    "remove_leftover_temporaries",
    "set_aside_lines",
    "sidecar_path",
    "skipped_path",
    "skipped_summary",
    "trace_line",
    "warn_skipped",
    "write_lines_atomically",
    "write_traces",
]
