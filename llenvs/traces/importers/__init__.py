"""Importers of outside trace formats, and the PRM800K-style step-file exporter.

``TraceImport(format, path)`` reads reasoning-gym evaluation logs (``reasoning_gym``),
ProcessBench and PRM800K step files (``processbench``, ``prm800k``), OpenAI chat-completion
JSONL (``openai_chat``) and the Hugging Face datasets ``llenvs export --format hf`` saves
(``hf``) as traces, and the step files' human labels apart (``TraceImport.labels``, for the label
store). ``write_step_file`` writes traces as a PRM800K-style step file that ``llenvs import
prm800k`` reads back as the traces it was written from (``dropped_fields`` names what a step
file cannot hold); ``label_export`` writes a labeller's labels in the three formats.

Example:
    >>> sorted(IMPORT_FORMATS)
    ['hf', 'openai_chat', 'prm800k', 'processbench', 'reasoning_gym']

"""

from llenvs.traces.importers._chunk_spans import ChunkAlignmentError, chunk_spans
from llenvs.traces.importers._exported_trace import dropped_fields
from llenvs.traces.importers._hf_dataset import read_hf_rows
from llenvs.traces.importers._inspect_export import write_inspect_log
from llenvs.traces.importers._inspect_log import INSPECT_FORMAT, InspectImport
from llenvs.traces.importers._label_export import ExportFormat, LabelExport, export_labels
from llenvs.traces.importers._label_migration import legacy_labels, migrate_labels
from llenvs.traces.importers._openai_chat import openai_chat_traces
from llenvs.traces.importers._pieces import segments_of
from llenvs.traces.importers._reasoning_gym_log import reasoning_gym_traces
from llenvs.traces.importers._row_labels import RowLabels
from llenvs.traces.importers._step_file import (
    HUMAN_LABEL,
    StepFormat,
    prm800k_traces,
    processbench_traces,
    step_file_traces,
)
from llenvs.traces.importers._step_file_export import step_file_row, write_step_file
from llenvs.traces.importers._step_file_labels import step_file_labels
from llenvs.traces.importers._trace_import import (
    IMPORT_FORMATS,
    LABELLED_FORMATS,
    TraceImport,
    stable_trace_id,
)

__all__ = [
    "HUMAN_LABEL",
    "IMPORT_FORMATS",
    "INSPECT_FORMAT",
    "LABELLED_FORMATS",
    "ChunkAlignmentError",
    "ExportFormat",
    "InspectImport",
    "LabelExport",
    "RowLabels",
    "StepFormat",
    "TraceImport",
    "chunk_spans",
    "dropped_fields",
    "export_labels",
    "legacy_labels",
    "migrate_labels",
    "openai_chat_traces",
    "prm800k_traces",
    "processbench_traces",
    "read_hf_rows",
    "reasoning_gym_traces",
    "segments_of",
    "stable_trace_id",
    "step_file_labels",
    "step_file_row",
    "step_file_traces",
    "write_inspect_log",
    "write_step_file",
]
