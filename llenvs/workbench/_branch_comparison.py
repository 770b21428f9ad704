"""A branch beside its parent: what an intervention kept, what it changed, and what came of it.

Segment k is numbered alike in the panel, the branch list and the branch tree (``acted_on``).

Example:
    >>> from llenvs.traces import InterventionKind
    >>> describe_action(InterventionKind.FORCE, 4)
    'keeps segments 0–3, replaces segment 4 with your text, generates the rest'

"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from llenvs.adapters import extract_answer
from llenvs.core import Complete, Feedback, Force, Resample, Substitute
from llenvs.traces import BranchRecord, InterventionKind, Trace
from llenvs.workbench._whitespace import one_line, only_whitespace_differs, visible_whitespace

__all__ = [
    "WHITESPACE_ONLY",
    "Outcome",
    "acted_on",
    "aligned_segments",
    "branch_label",
    "branch_point",
    "describe_action",
    "describe_branch",
    "outcome",
    "outcome_table",
]

WHITESPACE_ONLY = "differs only in whitespace"
"""The status of a segment whose branch text differs from its parent's only in whitespace."""


def branch_point(kind: InterventionKind, segment: int) -> int:
    """How many of the parent's segments an action of ``kind`` on segment ``segment`` keeps.

    Force, substitute and resample replace segment k (keep 0..k-1); feedback and COMPLETE come
    after it.
    ``kind`` is the action the panel has chosen (an intervention's own is its ``kind``).

    Example:
        >>> branch_point(InterventionKind.FORCE, 3), branch_point(InterventionKind.COMPLETE, 3)
        (3, 4)

    """
    if kind in (InterventionKind.FORCE, InterventionKind.RESAMPLE, InterventionKind.SUBSTITUTE):
        return segment
    return segment + 1


def acted_on(record: BranchRecord) -> int:
    """The segment the action of ``record`` was taken on: ``branch_point`` undone.

    A force or a resample at segment k keeps k segments; a feedback or a COMPLETE after
    segment k keeps k + 1 (-1: feedback before any segment, as ``llenvs intervene --at 0``).

    Example:
        >>> acted_on(BranchRecord("p", 1, Feedback("Why?")))
        0
        >>> acted_on(BranchRecord("p", 1, Force("x")))
        1

    """
    match record.intervention:
        case Force() | Resample() | Substitute():
            return record.segment_index
        case Feedback() | Complete():
            return record.segment_index - 1


def describe_branch(record: BranchRecord) -> str:
    """A recorded branch in the panel's words, numbered by the segment acted on.

    Example:
        >>> describe_branch(BranchRecord("p", 1, Feedback("Check it.")))
        "feedback after segment 0: 'Check it.'"
        >>> describe_branch(BranchRecord("p", 1, Resample()))
        'resample from segment 1'
        >>> describe_branch(BranchRecord("p", 0, Complete()))
        'COMPLETE from the start'

    """
    segment = acted_on(record)
    match record.intervention:
        case Force(text=text):
            return f"force segment {segment}: {one_line(text)[:40]!r}"
        case Substitute(text=text):
            return f"substitute segment {segment} (like {one_line(text)[:40]!r})"
        case Resample():
            return f"resample from segment {segment}"
        case Feedback(text=text):
            where = "before segment 0" if segment < 0 else f"after segment {segment}"
            return f"feedback {where}: {one_line(text)[:40]!r}"
        case Complete():
            where = "from the start" if segment < 0 else f"after segment {segment}"
            return f"COMPLETE {where}"


def branch_label(branch: Trace) -> str:
    """A branch in one line: what was done where, a resample's seed, its answer, its verdict.

    The samples of one resample set differ only by seed and what came of it, so those name
    them.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> from llenvs.traces.records._run import RunRecord
        >>> from llenvs.core.run_spec import RunSpec
        >>> text = "<answer>14</answer>"
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response=text,
        ...           segments=(SegmentRecord(0, 0, len(text), text),), success=True,
        ...           run=RunRecord(RunSpec(sampling=SamplingParams(seed=1000003))),
        ...           parent=BranchRecord("p", 1, Resample()))
        >>> branch_label(t)
        'resample from segment 1 · seed 1000003 · answer 14 · succeeded'

    """
    record = branch.parent
    if record is None:
        raise ValueError(f"trace {branch.trace_id} is not a branch (it names no parent)")
    seed = ""
    if isinstance(record.intervention, Resample):
        sampling = branch.run.spec.sampling
        seed = f" · seed {'—' if sampling is None or sampling.seed is None else sampling.seed}"
    verdict = {True: "succeeded", False: "failed", None: "no verdict"}[branch.success]
    answer = _shown(extract_answer(branch.response))
    return f"{describe_branch(record)}{seed} · answer {answer} · {verdict}"


def _kept(count: int) -> str:
    if count == 0:
        return "keeps no segment"
    if count == 1:
        return "keeps segment 0"
    return f"keeps segments 0–{count - 1}"


def describe_action(kind: InterventionKind, segment: int, samples: int = 1) -> str:
    """What an action on segment ``segment`` does, in words.

    Example:
        >>> describe_action(InterventionKind.FEEDBACK, 2)
        'keeps segments 0–2, adds your feedback as a user turn after segment 2, generates the answer'
        >>> describe_action(InterventionKind.RESAMPLE, 0, samples=8)
        'keeps no segment, generates 8 samples from segment 0 on'

    """  # noqa: E501
    kept = _kept(branch_point(kind, segment))
    if kind is InterventionKind.FORCE:
        return f"{kept}, replaces segment {segment} with your text, generates the rest"
    if kind is InterventionKind.SUBSTITUTE:
        return (
            f"{kept}, resamples segment {segment} until the model writes something close to your "
            "text, keeps the closest, generates the rest"
        )
    if kind is InterventionKind.FEEDBACK:
        return (
            f"{kept}, adds your feedback as a user turn after segment {segment}, "
            "generates the answer"
        )
    if kind is InterventionKind.COMPLETE:
        return f"{kept}, generates the rest in one call"
    what = "a new sample" if samples == 1 else f"{samples} samples"
    return f"{kept}, generates {what} from segment {segment} on"


@dataclass(frozen=True)
class Outcome:
    """What a trace came to.

    Example:
        >>> Outcome("4", True, 2.0, 0.5, 3).answer
        '4'

    """

    answer: str | None
    """The final answer extracted from the response (None when there is none)."""
    success: bool | None
    """Whether the trace succeeded (None: no verdict)."""
    final_reward: float
    """The sum of the rewards judged once on the whole response (outcome, format)."""
    lowest_prm: float | None
    """The lowest PRM score of any segment, or None without PRM scores."""
    segments: int
    """How many segments it has."""


def outcome(trace: Trace) -> Outcome:
    """The outcome of ``trace``.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> text = "<answer>7</answer>"
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response=text,
        ...           segments=(SegmentRecord(0, 0, len(text), text, prm_scores={"prm": 0.5}),),
        ...           final_rewards={"correctness": 1.0})
        >>> outcome(t)
        Outcome(answer='7', success=None, final_reward=1.0, lowest_prm=0.5, segments=1)

    """
    scores = [score for s in trace.segments for score in s.prm_scores.values()]
    return Outcome(
        answer=extract_answer(trace.response),
        success=trace.success,
        final_reward=float(sum(trace.final_rewards.values())),
        lowest_prm=min(scores) if scores else None,
        segments=len(trace.segments),
    )


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _change(before: object, after: object) -> str:
    if before == after:
        return "same"
    if isinstance(before, bool) or isinstance(after, bool):
        return f"{_shown(before)} → {_shown(after)}"
    if isinstance(before, int | float) and isinstance(after, int | float):
        return f"{after - before:+g}"
    return "changed"


def outcome_table(
    parent: Trace, child: Trace, names: tuple[str, str] = ("parent", "branch")
) -> pd.DataFrame:
    """The outcomes of ``parent`` and ``child`` side by side (columns ``names``), with the change.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> outcome_table(t, t)["change"].tolist()
        ['same', 'same', 'same', 'same', 'same']

    """
    before, after = outcome(parent), outcome(child)
    rows = [
        ("final answer", before.answer, after.answer),
        ("success", before.success, after.success),
        ("final reward", before.final_reward, after.final_reward),
        ("lowest PRM", before.lowest_prm, after.lowest_prm),
        ("segments", before.segments, after.segments),
    ]
    return pd.DataFrame(
        [
            {"": name, names[0]: _shown(a), names[1]: _shown(b), "change": _change(a, b)}
            for name, a, b in rows
        ]
    )


def aligned_segments(parent: Trace, child: Trace) -> pd.DataFrame:
    r"""The two traces segment by segment: the kept prefix in one row, then each segment.

    ``status`` is ``kept`` (the collapsed prefix), ``feedback`` (the user turn a feedback
    branch injected, in its own row where it happened, its text in the branch column),
    ``intervention`` (a forced segment, the first resampled or completed one),
    ``first difference``, ``same``, ``different``, ``differs only in whitespace`` (its two
    texts then shown with their whitespace marked, ``visible_whitespace``: it is not what
    ``first difference`` marks), ``parent only`` or ``branch only``.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> def trace(texts, parent=None):
        ...     segments, start = [], 0
        ...     for i, text in enumerate(texts):
        ...         segments.append(SegmentRecord(i, start, start + len(text), text))
        ...         start += len(text)
        ...     return Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="".join(texts),
        ...                  segments=tuple(segments), parent=parent)
        >>> p = trace(["A. ", "B. ", "C."])
        >>> c = trace(["A. ", "X. ", "C."], BranchRecord(p.trace_id, 1, Force("X. ")))
        >>> aligned_segments(p, c)["status"].tolist()
        ['kept', 'intervention', 'same']
        >>> f = trace(["A. ", "Y. ", "C."], BranchRecord(p.trace_id, 1, Feedback("Why?")))
        >>> aligned_segments(p, f)[["#", "branch", "status"]].values.tolist()[:3]
        [['0', '', 'kept'], ['after 0', 'user: Why?', 'feedback'], ['1', 'Y. ', 'first difference']]
        >>> w = trace(["A. ", "X. ", "C.\n"], BranchRecord(p.trace_id, 1, Force("X. ")))
        >>> aligned_segments(p, w)[["parent", "branch", "status"]].values.tolist()[-1]
        ['C.', 'C.↵\n', 'differs only in whitespace']

    """
    record = child.parent
    at = record.segment_index if record is not None else 0
    given = None if record is None else record.intervention
    feedback = given if isinstance(given, Feedback) else None
    rows: list[dict[str, object]] = []
    if at:
        rows.append(
            {
                "#": f"0–{at - 1}" if at > 1 else "0",
                "parent": f"({at} segment{'s' if at > 1 else ''} kept, the same in both)",
                "branch": "",
                "status": "kept",
            }
        )
    if feedback is not None:
        rows.append(
            {
                "#": f"after {at - 1}" if at else "before 0",
                "parent": "",
                "branch": f"user: {feedback.text}",
                "status": "feedback",
            }
        )
    differed = False
    for index in range(at, max(len(parent.segments), len(child.segments))):
        before = parent.segments[index].text if index < len(parent.segments) else None
        after = child.segments[index].text if index < len(child.segments) else None
        if index == at and feedback is None:
            status = "intervention"
        elif before is None:
            status = "branch only"
        elif after is None:
            status = "parent only"
        elif before == after:
            status = "same"
        elif only_whitespace_differs(before, after):
            status = WHITESPACE_ONLY
            before, after = visible_whitespace(before), visible_whitespace(after)
        elif not differed:
            status = "first difference"
        else:
            status = "different"
        differed = differed or status in ("first difference", "parent only", "branch only")
        rows.append(
            {"#": str(index), "parent": before or "", "branch": after or "", "status": status}
        )
    return pd.DataFrame(rows, columns=["#", "parent", "branch", "status"])
