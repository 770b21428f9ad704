"""The trace schema's records.

A trace and its segments, task, run record (and the older schema versions read into it), where
a branch came from, task identity across runs, the typed reading of a record's fields and the
errors a record or a file raises; a trace built from an episode's transitions, and how a trace
made again differs from the recorded one.
"""

from llenvs.traces.records._branch import BranchRecord
from llenvs.traces.records._from_steps import UNRATED_KEY, segment_from_transition, trace_from_steps
from llenvs.traces.records._legacy_run import legacy_run_record
from llenvs.traces.records._record_reader import RecordReader, check_integer, check_number
from llenvs.traces.records._response_difference import ResponseDifference
from llenvs.traces.records._run import RunRecord, model_name_in
from llenvs.traces.records._segment import SegmentRecord
from llenvs.traces.records._segment_flag import SegmentFlag
from llenvs.traces.records._task import TaskRecord
from llenvs.traces.records._task_identity import TaskIdentity, prompt_hash_of
from llenvs.traces.records._trace import SCHEMA_VERSION, SUPPORTED_SCHEMA_VERSIONS, Trace
from llenvs.traces.records._trace_format_error import TraceFormatError, WrongFormatError

__all__ = [
    "SCHEMA_VERSION",
    "SUPPORTED_SCHEMA_VERSIONS",
    "UNRATED_KEY",
    "BranchRecord",
    "RecordReader",
    "ResponseDifference",
    "RunRecord",
    "SegmentFlag",
    "SegmentRecord",
    "TaskIdentity",
    "TaskRecord",
    "Trace",
    "TraceFormatError",
    "WrongFormatError",
    "check_integer",
    "check_number",
    "legacy_run_record",
    "model_name_in",
    "prompt_hash_of",
    "segment_from_transition",
    "trace_from_steps",
]
