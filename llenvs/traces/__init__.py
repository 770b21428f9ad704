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

from llenvs.core.intervention_kind import InterventionKind
from llenvs.traces.branch_record import BranchRecord
from llenvs.traces.branches import append_branch, branches_path, read_branches
from llenvs.traces.find_trace import find_trace
from llenvs.traces.from_steps import segment_from_transition, trace_from_steps
from llenvs.traces.importers import (
    IMPORT_FORMATS,
    TraceImport,
    step_file_row,
    write_step_file,
)
from llenvs.traces.labelled_first_error import first_error, first_error_labels, settled_first_error
from llenvs.traces.labels import Labels
from llenvs.traces.run_record import RunRecord
from llenvs.traces.segment_flag import SegmentFlag
from llenvs.traces.segment_record import SegmentRecord
from llenvs.traces.sidecar import Sidecar, is_sidecar, sidecar_path
from llenvs.traces.skip_report import no_trace_reason, skipped_summary, warn_skipped
from llenvs.traces.skipped_line import SkippedLine
from llenvs.traces.step_label import LABEL_VALUES, StepLabel
from llenvs.traces.step_labels import append_labels, labels_path, read_labels
from llenvs.traces.task_identity import TaskIdentity
from llenvs.traces.task_record import TaskRecord
from llenvs.traces.trace import SCHEMA_VERSION, SUPPORTED_SCHEMA_VERSIONS, Trace
from llenvs.traces.trace_format_error import TraceFormatError, WrongFormatError
from llenvs.traces.trace_reader import TraceReader, read_traces
from llenvs.traces.trace_writer import append_trace, trace_line, write_traces

__all__ = [
    "IMPORT_FORMATS",
    "LABEL_VALUES",
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
