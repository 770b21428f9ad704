"""Traces: the versioned record of responses, segment by segment, and its JSONL files.

A trace holds the task, the reproducibility record, the messages, every segment (span, text,
token ids, logprobs, rewards, PRM scores, flags), the final rewards and success, and, for an
intervention, its parent. ``docs/traces.md`` documents every field.

Example:
    >>> from llenvs.traces import SCHEMA_VERSION, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {}, 0, "q"),
    ...           response="", segments=())
    >>> Trace.from_dict(t.to_dict()) == t, SCHEMA_VERSION
    (True, 5)

"""

from llenvs.core import InterventionKind
from llenvs.traces._schema_doc import (
    CHOICES,
    JSON_NAMES,
    RECORDS,
    SCALARS,
    attribute_docs,
    record_table,
    schema_markdown,
)
from llenvs.traces.files import (
    Sidecar,
    SkippedLine,
    TraceReader,
    append_branch,
    append_trace,
    branches_path,
    find_trace,
    is_sidecar,
    no_trace_reason,
    read_branches,
    read_traces,
    sidecar_path,
    skipped_summary,
    trace_line,
    warn_skipped,
    write_traces,
)
from llenvs.traces.importers import (
    IMPORT_FORMATS,
    TraceImport,
    step_file_row,
    write_step_file,
)
from llenvs.traces.labels import (
    LABEL_VALUES,
    Labels,
    StepLabel,
    append_labels,
    first_error,
    first_error_labels,
    labels_path,
    read_labels,
    settled_first_error,
)
from llenvs.traces.records import (
    SCHEMA_VERSION,
    SUPPORTED_SCHEMA_VERSIONS,
    BranchRecord,
    RunRecord,
    SegmentFlag,
    SegmentRecord,
    TaskIdentity,
    TaskRecord,
    Trace,
    TraceFormatError,
    WrongFormatError,
    segment_from_transition,
    trace_from_steps,
)

__all__ = [
    "CHOICES",
    "IMPORT_FORMATS",
    "JSON_NAMES",
    "LABEL_VALUES",
    "RECORDS",
    "SCALARS",
    "SCHEMA_VERSION",
    "SUPPORTED_SCHEMA_VERSIONS",
    "BranchRecord",
    "InterventionKind",
    "Labels",
    "RunRecord",
    "SegmentFlag",
    "SegmentRecord",
    "Sidecar",
    "SkippedLine",
    "StepLabel",
    "TaskIdentity",
    "TaskRecord",
    "Trace",
    "TraceFormatError",
    "TraceImport",
    "TraceReader",
    "WrongFormatError",
    "append_branch",
    "append_labels",
    "append_trace",
    "attribute_docs",
    "branches_path",
    "find_trace",
    "first_error",
    "first_error_labels",
    "is_sidecar",
    "labels_path",
    "no_trace_reason",
    "read_branches",
    "read_labels",
    "read_traces",
    "record_table",
    "schema_markdown",
    "segment_from_transition",
    "settled_first_error",
    "sidecar_path",
    "skipped_summary",
    "step_file_row",
    "trace_from_steps",
    "trace_line",
    "warn_skipped",
    "write_step_file",
    "write_traces",
]
