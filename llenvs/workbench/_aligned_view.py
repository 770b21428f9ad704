"""Two traces aligned for a page: one row per step of ``align_traces``, the change marked.

Browse's branch comparison and Compare runs' disagreements draw this table. The steps both
traces open with are one row; then each step of the alignment: ``equal``, ``changed`` (the
characters it took away marked ``[-…-]`` in the first trace's text, those it put in ``{+…+}`` in
the second's, with how the pair was found and how alike it is), ``inserted`` or ``removed``,
beside each side's lowest PRM score and reward. A branch beside its parent shows what was done
where: a feedback turn in its own row, the forced, resampled or completed segment marked
``intervention`` (so the collapsed prefix is what the branch kept); ``first difference`` marks
the first step past that where the two part, a change of whitespace alone aside (``only
whitespace``, its whole texts shown with their whitespace marked).

Pairs by meaning use ``LexicalSimilarity`` unless handed another: a page never loads MiniLM
unasked (its load takes seconds, the page draws again on every click, and a pair the texts
already tell apart needs no meaning); the caption names the method.

Example:
    >>> a = leg_counting_trace("Sheep have 4 legs. Mantises have 4 legs. So 8. ")
    >>> b = leg_counting_trace("Sheep have 4 legs. Mantises have 6 legs. So 8. ")
    >>> view = aligned_view(a, b)
    >>> for row in view.rows[["op", "note", "a #", "a", "b #", "b"]].values.tolist():
    ...     print(row)
    ['equal', '', '0', '(1 segment, the same in both)', '0', '']
    ['changed', 'first difference', '1', 'Mantises have [-4-] legs. ', '1', 'Mantises have {+6+} legs. ']
    ['equal', '', '2', 'So 8. ', '2', 'So 8. ']
    >>> view.caption
    '2 equal, 1 changed · paired by text (no step needed meaning: lexical) · a changed step marks what a lost [-so-] and what b gained {+so+}'

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import pandas as pd

from llenvs.analysis.instruments import (
    AlignedDiff,
    AlignedStep,
    DiffOp,
    LexicalSimilarity,
    StepNumbers,
    TextSimilarity,
    align_traces,
)
from llenvs.core import Feedback
from llenvs.traces import BranchRecord, Trace
from llenvs.workbench._whitespace import only_whitespace_differs, visible_whitespace
from llenvs.workbench._wording import count

if TYPE_CHECKING:  # the search package imports this face: its facts' type only
    from llenvs.workbench.search import StepFacts

__all__ = ["LEXICAL", "AlignedView", "StepMark", "aligned_view"]

LEXICAL = LexicalSimilarity()
"""The similarity the pages pair steps by meaning with: word overlap, no model to load."""


class StepMark(Enum):
    """What a row of the aligned table is, beside its op."""

    NONE = ""
    """Nothing to say."""
    KEPT = "kept"
    """The prefix a branch kept of its parent, in one row."""
    FEEDBACK = "feedback"
    """The user turn a feedback branch injected, where it came."""
    INTERVENTION = "intervention"
    """The segment a force, resample or COMPLETE wrote (and the parent's it replaced)."""
    FIRST_DIFFERENCE = "first difference"
    """The first step past the intervention where the two part."""
    ONLY_WHITESPACE = "only whitespace"
    """A changed pair whose texts differ only in whitespace (not a first difference)."""


@dataclass(frozen=True)
class AlignedView:
    """Two traces aligned for a page: the diff, its table, and a caption saying how."""

    diff: AlignedDiff
    """The alignment itself (``align_traces``)."""
    rows: pd.DataFrame
    """One row per step, the opening equal steps in one (see the module)."""
    caption: str
    """The steps counted, how they were paired, and what the marks mean."""
    text_columns: tuple[str, str]
    """The two columns of segment texts (the ones a page draws wide)."""


def aligned_view(
    a: Trace,
    b: Trace,
    names: tuple[str, str] = ("a", "b"),
    similarity: TextSimilarity = LEXICAL,
    facts: tuple[Sequence[StepFacts], Sequence[StepFacts]] | None = None,
) -> AlignedView:
    """``a`` and ``b`` aligned for a page, their columns named by ``names``.

    When ``b`` is a branch of ``a``, the prefix it kept pairs one to one (``align_traces``'
    ``kept``) and its intervention is shown where it happened. ``facts``: each side's steps'
    stored facts (``facts_of``): their labels and step values get columns of their own when
    either side stores any.

    Example:
        >>> t = leg_counting_trace("So 8. ")
        >>> aligned_view(t, t, ("parent", "branch")).rows.columns.tolist()[:6]
        ['op', 'note', 'parent #', 'parent', 'branch #', 'branch']

    """
    if names[0] == names[1]:
        raise ValueError(f"the two sides need different names, got {names[0]!r} twice")
    record = b.parent if b.parent is not None and b.parent.parent_id == a.trace_id else None
    kept = 0 if record is None else record.segment_index
    diff = align_traces(a, b, similarity, kept=kept)
    rows = _Table(a, b, names, record, facts).rows(diff.ops)
    return AlignedView(diff, rows, _caption(diff, names, similarity.name), names)


class _Table:
    """The rows of one alignment (what ``aligned_view`` draws)."""

    def __init__(
        self,
        a: Trace,
        b: Trace,
        names: tuple[str, str],
        record: BranchRecord | None,
        facts: tuple[Sequence[StepFacts], Sequence[StepFacts]] | None = None,
    ) -> None:
        self.a, self.b = a, b
        self.left, self.right = names
        self.facts = facts or ((), ())
        self.shown = [  # (side, its name, fact): the stored facts that get columns
            (side, name, fact)
            for side, name, stored in zip((0, 1), names, self.facts, strict=True)
            for fact in ("label", "value")
            if any(getattr(f, fact) is not None for f in stored)
        ]
        self.record = record
        self.at = None if record is None else record.segment_index
        given = None if record is None else record.intervention
        self.feedback = given if isinstance(given, Feedback) else None

    def columns(self) -> list[str]:
        left, right = self.left, self.right
        return [
            "op",
            "note",
            f"{left} #",
            left,
            f"{right} #",
            right,
            "paired by",
            "score",
            f"{left} PRM",
            f"{right} PRM",
            f"{left} reward",
            f"{right} reward",
            *(f"{name} {fact}" for _, name, fact in self.shown),
        ]

    def rows(self, ops: Sequence[AlignedStep]) -> pd.DataFrame:
        kept = next((k for k, s in enumerate(ops) if s.op is not DiffOp.EQUAL), len(ops))
        if self.at is not None:
            kept = min(kept, self.at)  # a branch's own first segment is never folded away
        rows = [self._kept(kept)] if kept else []
        turn = next((p for p in range(kept, len(ops)) if self._past_branch_point(ops[p])), len(ops))
        differed = False
        for position in range(kept, len(ops)):
            if position == turn and self.feedback is not None:
                rows.append(self._feedback(self.feedback))
            step = ops[position]
            mark = self._mark(step, differed)
            differed = differed or mark is StepMark.FIRST_DIFFERENCE
            rows.append(self._step(step, mark))
        if turn == len(ops) and self.feedback is not None:
            rows.append(self._feedback(self.feedback))
        return pd.DataFrame(rows, columns=self.columns())

    def _past_branch_point(self, step: AlignedStep) -> bool:
        at = self.at
        return at is not None and any(i is not None and i >= at for i in (step.a, step.b))

    def _mark(self, step: AlignedStep, differed: bool) -> StepMark:
        if self._acted_on(step):
            return StepMark.INTERVENTION
        if step.op is DiffOp.EQUAL:
            return StepMark.NONE
        if self._whitespace_only(step):
            return StepMark.ONLY_WHITESPACE
        return StepMark.NONE if differed else StepMark.FIRST_DIFFERENCE

    def _acted_on(self, step: AlignedStep) -> bool:
        """Whether ``step`` holds the segment the intervention wrote, or the one it replaced."""
        if self.at is None or self.feedback is not None:
            return False
        return step.b == self.at or (step.op is DiffOp.REMOVED and step.a == self.at)

    def _whitespace_only(self, step: AlignedStep) -> bool:
        return (
            step.op is DiffOp.CHANGED
            and step.a is not None
            and step.b is not None
            and only_whitespace_differs(self.a.segments[step.a].text, self.b.segments[step.b].text)
        )

    def _kept(self, kept: int) -> dict[str, object]:
        span = "0" if kept == 1 else f"0–{kept - 1}"
        what = " kept" if self.record is not None else ""
        return {
            "op": DiffOp.EQUAL.value,
            "note": (StepMark.KEPT if self.record is not None else StepMark.NONE).value,
            f"{self.left} #": span,
            self.left: f"({count(kept, 'segment')}{what}, the same in both)",
            f"{self.right} #": span,
            self.right: "",
        }

    def _feedback(self, feedback: Feedback) -> dict[str, object]:
        at = self.at or 0
        return {
            "op": "",
            "note": StepMark.FEEDBACK.value,
            f"{self.left} #": "",
            self.left: "",
            f"{self.right} #": f"after {at - 1}" if at else "before 0",
            self.right: f"user: {feedback.text}",
        }

    def _step(self, step: AlignedStep, mark: StepMark) -> dict[str, object]:
        before = "" if step.a is None else self.a.segments[step.a].text
        after = "" if step.b is None else self.b.segments[step.b].text
        if step.op is DiffOp.CHANGED:
            whole = visible_whitespace if mark is StepMark.ONLY_WHITESPACE else str
            before, after = _marked(before, after, step, whole)
        return {
            "op": step.op.value,
            "note": mark.value,
            f"{self.left} #": "" if step.a is None else str(step.a),
            self.left: before,
            f"{self.right} #": "" if step.b is None else str(step.b),
            self.right: after,
            "paired by": step.method if step.op is DiffOp.CHANGED else None,
            "score": None if step.score is None else round(step.score, 2),
            f"{self.left} PRM": _prm(step.a_numbers),
            f"{self.right} PRM": _prm(step.b_numbers),
            f"{self.left} reward": _reward(step.a_numbers),
            f"{self.right} reward": _reward(step.b_numbers),
            **{
                f"{name} {fact}": self._fact(side, (step.a, step.b)[side], fact)
                for side, name, fact in self.shown
            },
        }

    def _fact(self, side: int, index: int | None, fact: str) -> object:
        stored = self.facts[side]
        return None if index is None or index >= len(stored) else getattr(stored[index], fact)


def _marked(
    before: str, after: str, step: AlignedStep, whole: Callable[[str], str] = str
) -> tuple[str, str]:
    r"""A changed pair's two texts, ``before``'s lost characters ``[-…-]``, ``after``'s ``{+…+}``.

    The marked characters show their whitespace (``visible_whitespace``); the rest is shown by
    ``whole`` (as it is, unless told).

    Example:
        >>> from llenvs.analysis.instruments import TextEdit
        >>> gone = TextEdit(DiffOp.REMOVED, 4, 5, 4, 4)
        >>> _marked("Deer  go.", "Deer go.", AlignedStep(DiffOp.CHANGED, 0, 0, edits=(gone,)))
        ('Deer[-·-] go.', 'Deer go.')

    """
    lost: list[str] = []
    gained: list[str] = []
    at_a = at_b = 0
    for edit in step.edits:
        lost.append(whole(before[at_a : edit.a_start]))
        gained.append(whole(after[at_b : edit.b_start]))
        if edit.a_end > edit.a_start:
            lost.append(f"[-{visible_whitespace(before[edit.a_start : edit.a_end])}-]")
        if edit.b_end > edit.b_start:
            gained.append(f"{{+{visible_whitespace(after[edit.b_start : edit.b_end])}+}}")
        at_a, at_b = edit.a_end, edit.b_end
    lost.append(whole(before[at_a:]))
    gained.append(whole(after[at_b:]))
    return "".join(lost), "".join(gained)


def _prm(numbers: StepNumbers | None) -> float | None:
    return None if numbers is None else numbers.prm


def _reward(numbers: StepNumbers | None) -> float | None:
    """The step's rewards summed (None: that side has no such step, or it stored none)."""
    if numbers is None or not numbers.rewards:
        return None
    return float(sum(numbers.rewards.values()))


def _caption(diff: AlignedDiff, names: tuple[str, str], similarity: str) -> str:
    """The steps counted, how they were paired, and what the marks mean."""
    counts = diff.counts()
    shown = ", ".join(count(n, op.value, op.value) for op, n in counts.items() if n)
    if diff.method == similarity:
        how = f"paired by text, then by meaning ({similarity}, ≥ {diff.threshold:g})"
    else:
        how = f"paired by text (no step needed meaning: {similarity})"
    parts = [shown or "no steps", how]
    if counts[DiffOp.CHANGED]:
        left, right = names
        parts.append(
            f"a changed step marks what {left} lost [-so-] and what {right} gained {{+so+}}"
        )
    if not diff.same_task:
        parts.append("not the same task")
    return " · ".join(parts)
