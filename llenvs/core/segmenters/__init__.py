r"""Segmenters: cut a response into steps, losslessly, in replay and while streaming.

Every segmenter partitions a text into contiguous spans (``spans``, ``pieces``, ``segment``) and
decides the same cuts on a growing text (``find_boundary``, ``first_cut``, ``stream``). Segmenters
can also be named by a spec string (``segmenter_from_spec("line:\\n\\n")``).

Example:
    >>> from llenvs.core.segmenters import SentenceSegmenter, segmenter_from_spec
    >>> SentenceSegmenter().segment("First step. Second step! Third?")
    ['First step.', 'Second step!', 'Third?']
    >>> segmenter_from_spec("steps").pieces("Plan.\n\nAdd 2. Then 3.")
    ['Plan.\n\n', 'Add 2. ', 'Then 3.']

"""

from llenvs.core.segmenters._base import FirstCut, Segmenter, SegmentStream, check_spans
from llenvs.core.segmenters._boundary_agreement import BoundaryAgreement, boundary_agreement
from llenvs.core.segmenters._composite import CompositeSegmenter
from llenvs.core.segmenters._line import LineSegmenter
from llenvs.core.segmenters._llm import DEFAULT_PROMPT_TEMPLATE, LLMSegmenter, match_steps
from llenvs.core.segmenters._pattern import DEFAULT_PATTERNS, PatternSegmenter
from llenvs.core.segmenters._scanning import WHITESPACE, ScanningSegmenter, first_non_whitespace
from llenvs.core.segmenters._sentence import SentenceSegmenter
from llenvs.core.segmenters._sentence_rules import (
    RULES,
    TERMINATORS,
    SentenceEnd,
    plain_sentence_end,
)
from llenvs.core.segmenters._spec import SegmenterSpec, default_segmenter, segmenter_from_spec
from llenvs.core.segmenters._spec_fields import escape_field, split_unescaped, unescape_field
from llenvs.core.segmenters._token import TokenSegmenter
from llenvs.core.segmenters._tokenizers import (
    ensure_offline_encodings,
    get_tiktoken_encoding,
    load_tokenizer,
)

__all__ = [
    "DEFAULT_PATTERNS",
    "DEFAULT_PROMPT_TEMPLATE",
    "RULES",
    "TERMINATORS",
    "WHITESPACE",
    "BoundaryAgreement",
    "CompositeSegmenter",
    "FirstCut",
    "LLMSegmenter",
    "LineSegmenter",
    "PatternSegmenter",
    "ScanningSegmenter",
    "SegmentStream",
    "Segmenter",
    "SegmenterSpec",
    "SentenceEnd",
    "SentenceSegmenter",
    "TokenSegmenter",
    "boundary_agreement",
    "check_spans",
    "default_segmenter",
    "ensure_offline_encodings",
    "escape_field",
    "first_non_whitespace",
    "get_tiktoken_encoding",
    "load_tokenizer",
    "match_steps",
    "plain_sentence_end",
    "segmenter_from_spec",
    "split_unescaped",
    "unescape_field",
]
