"""Importers of outside trace formats, and the PRM800K-style step-file exporter.

``TraceImport(format, path)`` reads reasoning-gym evaluation logs (``reasoning_gym``),
ProcessBench and PRM800K step files (``processbench``, ``prm800k``) and OpenAI chat-completion
JSONL (``openai_chat``) as traces; ``write_step_file`` writes traces as a PRM800K-style step file.

Example:
    >>> sorted(IMPORT_FORMATS)
    ['openai_chat', 'prm800k', 'processbench', 'reasoning_gym']

"""

from llenvs.traces.importers.openai_chat import openai_chat_traces
from llenvs.traces.importers.reasoning_gym_log import reasoning_gym_traces
from llenvs.traces.importers.step_file import HUMAN_LABEL, step_file_traces
from llenvs.traces.importers.step_file_export import step_file_row, write_step_file
from llenvs.traces.importers.trace_import import IMPORT_FORMATS, TraceImport

__all__ = [
    "HUMAN_LABEL",
    "IMPORT_FORMATS",
    "TraceImport",
    "openai_chat_traces",
    "reasoning_gym_traces",
    "step_file_row",
    "step_file_traces",
    "write_step_file",
]
