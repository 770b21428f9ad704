"""Instruments built on step values.

Whether removed content comes back, whether the segmenter changes which step mattered, how alike
two texts are, and the Monte-Carlo step value as a process reward model.
"""

from llenvs.analysis.instruments._monte_carlo_prm import MonteCarloPRM, make_prm
from llenvs.analysis.instruments._resilience import (
    RETURN_THRESHOLD,
    ContentReturns,
    StepReturn,
    content_returns,
    find_returns,
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

__all__ = [
    "MAX_SEGMENTERS",
    "MINILM",
    "RETURN_THRESHOLD",
    "ContentReturns",
    "LexicalSimilarity",
    "MiniLMSimilarity",
    "MonteCarloPRM",
    "MoveCertainty",
    "SegmenterComparison",
    "SegmenterPair",
    "SimilarityError",
    "Spike",
    "StepReturn",
    "TextSimilarity",
    "compare_segmenters",
    "content_returns",
    "default_similarity",
    "find_returns",
    "make_prm",
    "minilm_archive",
    "plan_cuts",
    "resegmented",
    "similarity_named",
    "step_returns",
    "stored_comparison",
]
