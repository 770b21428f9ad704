r"""Prefixes: content stepped through the environment before generation starts.

Three forms: a text (every piece of ``segmenter.pieces(text)`` is stepped), a sequence of
segments (stepped as given), and ``(state, action)`` pairs (each action stepped from its given
state, so a non-deterministic trajectory replays exactly). Replayed steps carry
``info["replayed"]``.

A segment is a string or a ``PrefixSegment``, which also carries the token ids the model
generated for it, so that generation continues from those ids rather than from re-tokenised
text (invariant 3); a ``FeedbackTurn`` between segments replays injected feedback (the runner
closes the assistant turn there and opens a new one). That is how a branch replays its parent
faithfully (``trace_prefix`` in ``branch``).

Example:
    >>> from llenvs.core import SegmentedEnvironment, SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> steps = replay_prefix(env, state, "Step 1: count animals.\nStep 2: 2 dogs.")
    >>> [t.action.text for t in steps], steps[-1].info["replayed"]
    (['Step 1: count animals.\n', 'Step 2: 2 dogs.'], True)

**A parent's prefix** (``trace_prefix``) is its first k segments as they happened, for a branch
to replay.

Each segment carries the token ids the model generated for it, and the parent's feedback turns
come back between them, so a branch continues exactly where its parent was (invariant 3).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hm.",
    ...           segments=(SegmentRecord(0, 0, 3, "Hm.", token_ids=(9, 10)),))
    >>> trace_prefix(t, 1)
    [PrefixSegment(text='Hm.', token_ids=(9, 10))]

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from llenvs.core import Action, SegmentedEnvironment, State, Transition
from llenvs.traces.records import SegmentFlag, Trace

__all__ = [
    "FeedbackTurn",
    "Prefix",
    "PrefixSegment",
    "prefix_parts",
    "replay_prefix",
    "trace_feedback",
    "trace_prefix",
]


@dataclass(frozen=True)
class PrefixSegment:
    """A prefix segment with the token ids a model generated for it.

    ``token_ids`` may run past ``text`` (a call's overshoot into the next segment) or stop
    short of it; a backend continues from the longest run of them that spells a prefix of the
    text. None when no model generated it (forced, replayed, or imported text).

    Example:
        >>> PrefixSegment("So 8. ", (2714, 216, 30)).token_ids
        (2714, 216, 30)

    """

    text: str
    """The segment's text, stepped as given."""
    token_ids: tuple[int, ...] | None = None
    """Token ids the model generated for it (overshoot included), or None."""


@dataclass(frozen=True)
class FeedbackTurn:
    """Feedback injected between prefix segments: a user turn, then a new assistant turn.

    Example:
        >>> FeedbackTurn("Check the deer.").text
        'Check the deer.'

    """

    text: str
    """The feedback, as the user turn's content."""

    def __post_init__(self) -> None:
        if not self.text:
            raise ValueError("feedback must be a non-empty string")


PrefixItem = str | PrefixSegment | FeedbackTurn


"""One item of a prefix given as a sequence of segments."""


Prefix = str | Sequence[PrefixItem] | Sequence[tuple[State[Any], Action]] | None


"""A text, segments (with feedback turns), or ``(state, action)`` pairs; None for none."""


def prefix_parts(prefix: Prefix) -> list[Prefix | FeedbackTurn]:
    """``prefix`` cut at its feedback turns: runs of steps, and the feedback turns between.

    Example:
        >>> prefix_parts(["A. ", FeedbackTurn("No."), PrefixSegment("B. ")])
        [['A. '], FeedbackTurn(text='No.'), [PrefixSegment(text='B. ', token_ids=None)]]
        >>> prefix_parts("A. B.")
        ['A. B.']

    """
    if prefix is None or isinstance(prefix, str):
        return [prefix] if prefix else []
    parts: list[Prefix | FeedbackTurn] = []
    run: list[Any] = []
    for item in prefix:
        if isinstance(item, FeedbackTurn):
            if run:
                parts.append(run)
            parts.append(item)
            run = []
        else:
            run.append(item)
    if run:
        parts.append(run)
    return parts


def replay_prefix(env: SegmentedEnvironment, state: State[Any], prefix: Prefix) -> list[Transition]:
    """Step ``prefix`` from ``state``; the transitions carry ``info["replayed"] = True``.

    A prefix may end the episode (its last step is then terminal) but may not go on after it.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> env = SegmentedEnvironment(base, "sentence")
        >>> state, _ = env.reset(options={"task_index": 0})
        >>> [t.action.text for t in replay_prefix(env, state, ["One. Two. ", "Three."])]
        ['One. Two. ', 'Three.']

    """
    if prefix is None:
        return []
    if isinstance(prefix, str):
        pairs: list[tuple[State[Any] | None, Action]] = [
            (None, Action(p)) for p in env.segmenter.pieces(prefix)
        ]
    else:
        pairs = [_pair(item, number) for number, item in enumerate(prefix)]
    transitions: list[Transition] = []
    for number, (given, action) in enumerate(pairs):
        if transitions and transitions[-1].result.done:
            raise ValueError(
                f"the prefix ended the episode at its step {number - 1} but has "
                f"{len(pairs) - number} more step(s)"
            )
        before = state if given is None else given
        result = env.step(before, action)
        info: dict[str, Any] = {**result.info, SegmentFlag.REPLAYED.value: True}
        ids = _token_ids(prefix, number)
        if ids is not None:
            info["token_ids"] = ids
        result = replace(result, info=info)
        transitions.append(Transition(before, action, result))
        state = result.next_state
    return transitions


def _token_ids(prefix: Prefix, number: int) -> tuple[int, ...] | None:
    """The token ids prefix item ``number`` carries, if it is a ``PrefixSegment`` with ids."""
    if prefix is None or isinstance(prefix, str):
        return None
    item = prefix[number]
    return item.token_ids if isinstance(item, PrefixSegment) else None


def _pair(item: object, number: int) -> tuple[State[Any] | None, Action]:
    """One prefix item as ``(given state or None, action)``."""
    if isinstance(item, PrefixSegment):
        item = item.text
    if isinstance(item, str):
        if not item:
            raise ValueError(f"prefix segment {number} is empty (it would end the episode)")
        return None, Action(item)
    if isinstance(item, FeedbackTurn):
        raise TypeError(
            f"prefix item {number} is a FeedbackTurn: the runner replays feedback turns "
            "(run_trajectory's prefix), replay_prefix steps segments only"
        )
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[0], State)
        and isinstance(item[1], Action)
    ):
        return item[0], item[1]
    raise TypeError(
        "a prefix is a text, a sequence of segment strings, or a sequence of (state, action) "
        f"pairs; item {number} is {item!r}"
    )


def trace_prefix(
    trace: Trace, at: int, *, keep_feedback_at: bool = True
) -> list[PrefixSegment | FeedbackTurn]:
    """The first ``at`` segments of ``trace`` as the runner's prefix, exactly as they happened.

    Each segment carries the token ids the model generated for it (so generation continues
    from them, not from re-tokenised text), and the trace's feedback turns come back between
    them. Feedback given right after segment ``at - 1`` is kept when ``keep_feedback_at``
    (a new feedback there replaces it).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> segments = (SegmentRecord(0, 0, 3, "Hm."), SegmentRecord(1, 3, 6, " No"))
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hm. No",
        ...           segments=segments, metadata={"feedback": [{"after_segment": 1,
        ...                                                      "text": "Why?"}]})
        >>> trace_prefix(t, 2)
        [PrefixSegment(text='Hm.', token_ids=None), FeedbackTurn(text='Why?'), PrefixSegment(text=' No', token_ids=None)]

    """  # noqa: E501
    feedback = trace_feedback(trace)
    prefix: list[PrefixSegment | FeedbackTurn] = []
    for number in range(at + 1):
        if number < at or keep_feedback_at:
            prefix.extend(FeedbackTurn(text) for after, text in feedback if after == number)
        if number < at:
            segment = trace.segments[number]
            prefix.append(PrefixSegment(segment.text, segment.token_ids))
    return prefix


def trace_feedback(trace: Trace) -> list[tuple[int, str]]:
    """The feedback injected in ``trace``: (segments before it, text), in order.

    Read from the runner's ``metadata["feedback"]``; for a trace without it (an imported
    one), from the user turns after the first, placed after the segments flagged
    ``feedback_after``.

    Example:
        >>> trace_feedback(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="",
        ...                      segments=(), metadata={"feedback": [
        ...                          {"after_segment": 0, "text": "Go on."}]}))
        [(0, 'Go on.')]

    """
    recorded = trace.metadata.get("feedback")
    if isinstance(recorded, list):
        return [(int(item["after_segment"]), str(item["text"])) for item in recorded]
    users = [m.content for m in trace.messages if m.role == "user"][1:]
    flagged = [s.index + 1 for s in trace.segments if SegmentFlag.FEEDBACK_AFTER in s.flags]
    return list(zip(flagged, users, strict=False))
