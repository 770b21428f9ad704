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

from llenvs.core.segmenters.base import FirstCut, Segmenter, SegmentStream, check_spans
from llenvs.core.segmenters.composite import CompositeSegmenter
from llenvs.core.segmenters.line import LineSegmenter
from llenvs.core.segmenters.llm import LLMSegmenter
from llenvs.core.segmenters.pattern import PatternSegmenter
from llenvs.core.segmenters.sentence import SentenceSegmenter
from llenvs.core.segmenters.spec import default_segmenter, segmenter_from_spec
from llenvs.core.segmenters.token import TokenSegmenter

__all__ = [
    "CompositeSegmenter",
    "FirstCut",
    "LLMSegmenter",
    "LineSegmenter",
    "PatternSegmenter",
    "SegmentStream",
    "Segmenter",
    "SentenceSegmenter",
    "TokenSegmenter",
    "check_spans",
    "default_segmenter",
    "segmenter_from_spec",
]
