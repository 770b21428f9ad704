"""Instruments built on step values.

Whether removed content comes back, which step led to which (the step-to-step matrix), whether
the segmenter changes which step mattered, how alike two texts are, and the Monte-Carlo step
value as a process reward model; inside a local model, attention suppression between steps
and receiver heads; and two traces aligned step by step.
"""

from llenvs.analysis.instruments._aligned_diff import (
    BY_TEXT,
    AlignedDiff,
    AlignedStep,
    DiffOp,
    DiffSide,
    FirstDifference,
    StepNumbers,
    TextEdit,
    align_traces,
)
from llenvs.analysis.instruments._attention import (
    MIN_SCORES,
    NEAR,
    AttentionError,
    ReceiverHead,
    Suppression,
    attention_suppression,
    step_of_tokens,
)
from llenvs.analysis.instruments._instrument_agreement import (
    InstrumentAgreement,
    instrument_agreement,
)
from llenvs.analysis.instruments._matrix_schedule import MatrixSchedule, matrix_widths
from llenvs.analysis.instruments._monte_carlo_prm import MonteCarloPRM, make_prm
from llenvs.analysis.instruments._resilience import (
    RETURN_THRESHOLD,
    ContentReturns,
    StepReturn,
    content_returns,
    find_returns,
    sentence_runs,
    step_returns,
)
from llenvs.analysis.instruments._segmenter_pair import MoveCertainty, SegmenterPair, Spike
from llenvs.analysis.instruments._segmenter_values import (
    MAX_SEGMENTERS,
    SegmenterComparison,
    compare_segmenters,
    plan_cuts,
    resegmented,
    stored_comparison,
)
from llenvs.analysis.instruments._sentence_similarity import (
    MINILM,
    LexicalSimilarity,
    MiniLMSimilarity,
    SimilarityError,
    TextSimilarity,
    default_similarity,
    minilm_archive,
    similarity_named,
)
from llenvs.analysis.instruments._step_matrix import (
    MatrixCell,
    StepMatrix,
    build_matrix,
    find_content,
    step_matrix,
)

__all__ = [
    "BY_TEXT",
    "MAX_SEGMENTERS",
    "MINILM",
    "MIN_SCORES",
    "NEAR",
    "RETURN_THRESHOLD",
    "AlignedDiff",
    "AlignedStep",
    "AttentionError",
    "ContentReturns",
    "DiffOp",
    "DiffSide",
    "FirstDifference",
    "InstrumentAgreement",
    "LexicalSimilarity",
    "MatrixCell",
    "MatrixSchedule",
    "MiniLMSimilarity",
    "MonteCarloPRM",
    "MoveCertainty",
    "ReceiverHead",
    "SegmenterComparison",
    "SegmenterPair",
    "SimilarityError",
    "Spike",
    "StepMatrix",
    "StepNumbers",
    "StepReturn",
    "Suppression",
    "TextEdit",
    "TextSimilarity",
    "align_traces",
    "attention_suppression",
    "build_matrix",
    "compare_segmenters",
    "content_returns",
    "default_similarity",
    "find_content",
    "find_returns",
    "instrument_agreement",
    "make_prm",
    "matrix_widths",
    "minilm_archive",
    "plan_cuts",
    "resegmented",
    "sentence_runs",
    "similarity_named",
    "step_matrix",
    "step_of_tokens",
    "step_returns",
    "stored_comparison",
]
