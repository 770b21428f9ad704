"""Two traces aligned step by step: equal, changed, inserted and removed segments.

Any two traces (a branch and its parent, two models on one task, two cuts of one response) are
aligned by their segments' texts (``TextPairing``: equal texts first, then texts alike by their
characters, method ``text``, then by meaning, method ``all-MiniLM-L6-v2`` or ``lexical``, named
on each pair). A pair of different texts is ``changed``, with its character edits
(``difflib``'s opcodes over the two texts); a segment left alone is ``removed`` (only in ``a``)
or ``inserted`` (only in ``b``). Beside each step: what each side stored for it (rewards, the
lowest PRM score); after them, where the two first part and what each came to.

Example:
    >>> a = leg_counting_trace("Sheep have 4 legs. Mantises have 4 legs. So 8. ")
    >>> b = leg_counting_trace("Sheep have 4 legs. Mantises have 6 legs. So 8. ")
    >>> diff = align_traces(a, b)
    >>> [(step.op.value, step.a, step.b, step.method) for step in diff.ops]
    [('equal', 0, 0, 'text'), ('changed', 1, 1, 'text'), ('equal', 2, 2, 'text')]
    >>> diff.first_difference.a_character, diff.method
    (33, 'text')

"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from llenvs.adapters import extract_answer
from llenvs.analysis.instruments._resilience import RETURN_THRESHOLD
from llenvs.analysis.instruments._sentence_similarity import TextSimilarity
from llenvs.analysis.instruments._text_pairing import BY_TEXT, TextPair, TextPairing
from llenvs.core import RECORD, Count, Flag, Number, Text, omit_when_empty
from llenvs.traces import SegmentRecord, Trace

__all__ = [
    "BY_TEXT",
    "AlignedDiff",
    "AlignedStep",
    "DiffOp",
    "DiffSide",
    "FirstDifference",
    "StepNumbers",
    "TextEdit",
    "align_traces",
]


class DiffOp(Enum):
    """What became of a segment (or of a run of characters inside a changed one)."""

    EQUAL = "equal"
    """The same text on both sides."""
    CHANGED = "changed"
    """Paired with a segment of the other side whose text differs."""
    INSERTED = "inserted"
    """Only in ``b``."""
    REMOVED = "removed"
    """Only in ``a``."""


_EDIT_OPS = {"replace": DiffOp.CHANGED, "insert": DiffOp.INSERTED, "delete": DiffOp.REMOVED}


@dataclass(frozen=True)
class TextEdit:
    """One character-level change inside a changed pair: ``a[a_start:a_end]`` became ``b[...]``."""

    __pydantic_config__ = RECORD
    op: DiffOp
    """``changed`` (replaced characters), ``inserted`` or ``removed``."""
    a_start: Count
    """Where the change starts in the ``a`` segment's text."""
    a_end: Count
    """Where it ends there (``a_start`` for an insertion)."""
    b_start: Count
    """Where the change starts in the ``b`` segment's text."""
    b_end: Count
    """Where it ends there (``b_start`` for a removal)."""


@dataclass(frozen=True)
class StepNumbers:
    """What one side stored for a step: its rewards and its PRM score."""

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty("rewards")
    rewards: Mapping[Text, Number] = field(default_factory=dict)
    """The step's rewards by name (written only when there are some)."""
    prm: Number | None = None
    """The lowest of the step's PRM scores, as the app shows it (None: none stored)."""

    @classmethod
    def of(cls, segment: SegmentRecord) -> StepNumbers:
        """The numbers ``segment`` stores."""
        scores = segment.prm_scores.values()
        return cls(dict(segment.rewards), min(scores) if scores else None)


@dataclass(frozen=True)
class AlignedStep:
    """One step of the alignment: a pair of segments, or a segment of one side alone."""

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty("edits")
    op: DiffOp
    """What became of the segment(s)."""
    a: Count | None
    """The segment's index in ``a`` (None: inserted)."""
    b: Count | None
    """The segment's index in ``b`` (None: removed)."""
    method: Text | None = None
    """How the pair was found: ``text``, or the similarity's name (None: not a pair)."""
    score: Number | None = None
    """How alike a changed pair is under its method, from 0 to 1 (None: not a changed pair)."""
    edits: tuple[TextEdit, ...] = ()
    """A changed pair's character edits, in order (written only for a changed pair)."""
    a_numbers: StepNumbers | None = None
    """What ``a`` stored for its segment (None: inserted)."""
    b_numbers: StepNumbers | None = None
    """What ``b`` stored for its segment (None: removed)."""


@dataclass(frozen=True)
class FirstDifference:
    """Where the two traces first part: the first step that is not ``equal``."""

    __pydantic_config__ = RECORD
    step: Count
    """Its position among the alignment's steps."""
    op: DiffOp
    """What it is (``changed``, ``inserted`` or ``removed``)."""
    a: Count | None
    """Its segment in ``a`` (None: inserted)."""
    b: Count | None
    """Its segment in ``b`` (None: removed)."""
    a_character: Count
    """Where ``a``'s response parts from ``b``'s (for an insertion: where ``b``'s text goes)."""
    b_character: Count
    """Where ``b``'s response parts from ``a``'s."""


@dataclass(frozen=True)
class DiffSide:
    """What one trace of the pair came to."""

    __pydantic_config__ = RECORD
    trace_id: Text
    """The trace's id."""
    segments: Count
    """How many segments it has."""
    answer: Text | None
    """Its final answer (None: none found in the response)."""
    success: Flag | None
    """Whether it succeeded (None: no verdict)."""

    @classmethod
    def of(cls, trace: Trace) -> DiffSide:
        """The side ``trace`` makes."""
        answer = extract_answer(trace.response)
        return cls(trace.trace_id, len(trace.segments), answer, trace.success)


@dataclass(frozen=True)
class AlignedDiff:
    """Two traces aligned segment by segment, where they first part, and what each came to."""

    __pydantic_config__ = RECORD
    ops: tuple[AlignedStep, ...]
    """The steps in order: every segment of each side in exactly one, in its order."""
    first_difference: FirstDifference | None
    """The first step that is not ``equal`` (None: the traces are cut and written alike)."""
    method: Text
    """``text`` when the texts paired all they could, else the similarity asked as well."""
    threshold: Number
    """How alike a pair must be (by characters, or by meaning) to be called changed."""
    same_task: Flag
    """Whether the two traces answer the same task (environment and prompt)."""
    a: DiffSide
    """The first trace."""
    b: DiffSide
    """The second trace."""

    def counts(self) -> dict[DiffOp, int]:
        """How many steps of each kind, every kind named.

        Example:
            >>> empty = DiffSide("t", 0, None, None)
            >>> AlignedDiff((), None, "text", 0.8, True, empty, empty).counts()[DiffOp.EQUAL]
            0

        """
        found = dict.fromkeys(DiffOp, 0)
        for step in self.ops:
            found[step.op] += 1
        return found


def align_traces(
    a: Trace,
    b: Trace,
    similarity: TextSimilarity | None = None,
    *,
    threshold: float = RETURN_THRESHOLD,
    kept: int = 0,
) -> AlignedDiff:
    """``a`` and ``b`` aligned segment by segment (``similarity``: MiniLM where installed).

    ``threshold`` (0.8, as returning content uses) is how alike two texts must be, by their
    characters or by ``similarity``, to be one changed step rather than a removal and an
    insertion. ``kept``: the first ``kept`` segments of both are the same steps (a branch's
    kept prefix), paired one to one, and only the rest is aligned; a model that repeats itself
    would otherwise pair the prefix with a later repeat. Where the two do not open with
    ``kept`` equal texts, the whole of both is aligned.

    Example:
        >>> from llenvs.analysis.instruments import LexicalSimilarity
        >>> from llenvs.traces import TaskRecord
        >>> empty = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> diff = align_traces(empty, empty, LexicalSimilarity())
        >>> diff.ops, diff.first_difference, diff.same_task
        ((), None, True)

    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    texts_a = [segment.text for segment in a.segments]
    texts_b = [segment.text for segment in b.segments]
    if not 0 <= kept <= min(len(texts_a), len(texts_b)) or texts_a[:kept] != texts_b[:kept]:
        kept = 0
    pairing = TextPairing(texts_a[kept:], texts_b[kept:], similarity, threshold)
    pairs = [TextPair(i, i, BY_TEXT, 1.0) for i in range(kept)]
    pairs += [TextPair(p.a + kept, p.b + kept, p.method, p.score) for p in pairing.pairs()]
    ops = tuple(_steps(a, b, pairs))
    return AlignedDiff(
        ops=ops,
        first_difference=_first_difference(a, b, ops),
        method=BY_TEXT if pairing.asked is None else pairing.asked,
        threshold=threshold,
        same_task=a.task.identity == b.task.identity,
        a=DiffSide.of(a),
        b=DiffSide.of(b),
    )


def _steps(a: Trace, b: Trace, pairs: Sequence[TextPair]) -> list[AlignedStep]:
    """The steps: each pair, with the segments left alone between pairs before it."""
    steps: list[AlignedStep] = []
    next_a = next_b = 0
    for pair in [*pairs, TextPair(len(a.segments), len(b.segments), "", 0.0)]:
        steps.extend(
            AlignedStep(DiffOp.REMOVED, i, None, a_numbers=StepNumbers.of(a.segments[i]))
            for i in range(next_a, pair.a)
        )
        steps.extend(
            AlignedStep(DiffOp.INSERTED, None, j, b_numbers=StepNumbers.of(b.segments[j]))
            for j in range(next_b, pair.b)
        )
        if pair.method:
            steps.append(_paired(a.segments[pair.a], b.segments[pair.b], pair))
        next_a, next_b = pair.a + 1, pair.b + 1
    return steps


def _paired(left: SegmentRecord, right: SegmentRecord, pair: TextPair) -> AlignedStep:
    """The step of a pair: equal, or changed with its character edits."""
    numbers = StepNumbers.of(left), StepNumbers.of(right)
    if left.text == right.text:
        return AlignedStep(DiffOp.EQUAL, pair.a, pair.b, BY_TEXT, None, (), *numbers)
    edits = _text_edits(left.text, right.text)
    return AlignedStep(DiffOp.CHANGED, pair.a, pair.b, pair.method, pair.score, edits, *numbers)


def _text_edits(before: str, after: str) -> tuple[TextEdit, ...]:
    """The character edits that make ``after`` of ``before`` (``difflib``'s opcodes).

    Example:
        >>> [(e.op.value, e.a_start, e.a_end, e.b_start, e.b_end)
        ...  for e in _text_edits("So 4 legs.", "So 6 legs!")]
        [('changed', 3, 4, 3, 4), ('changed', 9, 10, 9, 10)]

    """
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return tuple(
        TextEdit(_EDIT_OPS[tag], a1, a2, b1, b2)
        for tag, a1, a2, b1, b2 in matcher.get_opcodes()
        if tag != "equal"
    )


def _first_difference(a: Trace, b: Trace, ops: Sequence[AlignedStep]) -> FirstDifference | None:
    """The first step that is not equal, with where each response parts there.

    Every step before it pairs equal segments, so it comes after ``position`` segments of each.
    """
    for position, step in enumerate(ops):
        if step.op is DiffOp.EQUAL:
            continue
        at_a, at_b = _start(a, position), _start(b, position)
        if step.edits:
            at_a += step.edits[0].a_start
            at_b += step.edits[0].b_start
        return FirstDifference(position, step.op, step.a, step.b, at_a, at_b)
    return None


def _start(trace: Trace, index: int) -> int:
    """Where segment ``index`` starts (past the last: the response's end)."""
    return trace.segments[index].start if index < len(trace.segments) else len(trace.response)
