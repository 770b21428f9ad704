"""What an analysis keeps beside a trace file.

The analysis sidecar's lines, published step values (Thought Anchors' among them) and the
records stored with them (content returns, content found again, one segmenter's values).
"""

from llenvs.analysis.sidecar._analysis_sidecar import (
    StoredAnalysis,
    append_content,
    append_forced_answers,
    append_published,
    append_returns,
    append_rollouts,
    append_segmenter_values,
    published_by_trace,
    read_analysis,
    read_content,
    read_published,
    read_returns,
    read_segmenter_values,
    stored_keys,
)
from llenvs.analysis.sidecar._content_found import ContentFound
from llenvs.analysis.sidecar._content_return import ContentReturn, returns_key
from llenvs.analysis.sidecar._cut_values import SegmenterValues
from llenvs.analysis.sidecar._published_values import PUBLISHED_KEY, PublishedTally, PublishedValues
from llenvs.analysis.sidecar._sidecar_line import (
    ANALYSIS_SCHEMA_VERSION,
    AnalysisFileError,
    AnalysisKind,
    SidecarLine,
)
from llenvs.analysis.sidecar._thought_anchors import (
    DEPENDS_ON,
    FUNCTION_TAGS,
    STUDY,
    SUMMARY,
    ThoughtAnchorsError,
    read_all,
    read_thought_anchors,
    thought_anchors_folders,
    write_thought_anchors,
)
from llenvs.traces.files import analysis_path

__all__ = [
    "ANALYSIS_SCHEMA_VERSION",
    "DEPENDS_ON",
    "FUNCTION_TAGS",
    "PUBLISHED_KEY",
    "STUDY",
    "SUMMARY",
    "AnalysisFileError",
    "AnalysisKind",
    "ContentFound",
    "ContentReturn",
    "PublishedTally",
    "PublishedValues",
    "SegmenterValues",
    "SidecarLine",
    "StoredAnalysis",
    "ThoughtAnchorsError",
    "analysis_path",
    "append_content",
    "append_forced_answers",
    "append_published",
    "append_returns",
    "append_rollouts",
    "append_segmenter_values",
    "published_by_trace",
    "read_all",
    "read_analysis",
    "read_content",
    "read_published",
    "read_returns",
    "read_segmenter_values",
    "read_thought_anchors",
    "returns_key",
    "stored_keys",
    "thought_anchors_folders",
    "write_thought_anchors",
]
