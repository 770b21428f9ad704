"""``PRMRewardFunction``: any PRM as a PROCESS reward of a ``SegmentedEnvironment``.

Each step's signal is the PRM's score of the step just taken (``action.text``) given the question
and the segments before it (``state.hidden.segments``). The question is the base task's
``question`` when its hidden state has one (the reasoning_gym adapter's ``Task``), else the whole
prompt (``state.observation.prompt``). ``compute_batch`` is invariant 5's batch hook:
``SegmentedEnvironment.replay`` hands it every step of a trace and the PRM reads the trace once,
instead of once per prefix.

Blank steps (empty or whitespace-only, such as ``finalize``'s empty action) carry no reasoning: they
score ``NEUTRAL_SCORE`` with ``"blank": True`` in the metadata and are not shown to the PRM as
steps; their whitespace joins the next step's text, so a text scorer still sees the response exactly
(trailing blanks are left out). A step the PRM does not rate (score None, such as a ``JudgePRM``
step with no verdict) gets a placeholder signal that adds nothing: reward 0.0, its metadata's
``UNRATED_KEY`` set to True, which the trace writer reads as "no score": the segment stores no
``rewards`` / ``prm_scores`` entry for it (the workbench shows "–"). Unlike the guide's sample
class, which returns 0.0 on the terminal step without asking its PRM, this one scores the terminal
step too: it is a step (invariant 5 runs PROCESS rewards on every step).

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(
    ...     base, "sentence", reward_functions=(PRMRewardFunction(ArithmeticPRM()),))
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> [r.rewards["prm"].reward for r in env.replay(state, "So 2 × 4 = 8. Then 8 + 1 = 10.")]
    [1.0, 0.0]

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llenvs.core import (
    Action,
    RewardType,
    SegmentedHidden,
    Signal,
    State,
    StepTriple,
    segmented_hidden,
)
from llenvs.rewards.prm._contract import NEUTRAL_SCORE, PRM, judge_traces
from llenvs.rewards.prm._step_judgement import StepJudgement
from llenvs.rewards.prm._text_scorer import TextScorer, TextScorerPRM

__all__ = ["PRM_REWARD_NAME", "UNRATED_KEY", "PRMRewardFunction"]

PRM_REWARD_NAME = "prm"
"""The name a PRM's step score goes by, everywhere: a ``PRMRewardFunction``'s default name,
and the key of ``rewards`` and ``prm_scores`` in traces that ``llenvs evaluate``, ``intervene``,
``replay`` and ``import --prm`` write."""

UNRATED_KEY = "unrated"
"""The metadata key (set to True) of a signal for a step the PRM did not rate: the signal's
reward (0.0) is a placeholder and traces store nothing for it (``llenvs.traces.records``
reads the same key)."""


class PRMRewardFunction:
    """A PRM (or any object with ``score(text) -> float``) as a PROCESS reward.

    Arguments:
        prm: a ``PRM``; an object with only ``score(text)`` (the guide's ``prm_model``) is
            wrapped in a ``TextScorerPRM``, which scores the response so far.
        name: the reward's name in ``Rewards`` (default ``PRM_REWARD_NAME``, ``"prm"`` as in
            the guide).

    Example:
        >>> class Length:
        ...     def score(self, text):
        ...         return len(text) / 100
        >>> reward = PRMRewardFunction(Length())
        >>> reward.name, reward.reward_type.value, type(reward.prm).__name__
        ('prm', 'process', 'TextScorerPRM')

    """

    def __init__(self, prm: PRM | TextScorer, name: str = PRM_REWARD_NAME) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        if isinstance(prm, PRM):
            self.prm: PRM = prm
        elif isinstance(prm, TextScorer):
            self.prm = TextScorerPRM(prm)
        else:
            raise TypeError(
                "prm must have score_steps(question, steps) (a PRM) or score(text) (a text "
                f"scorer), got {prm!r}"
            )
        self._name = name

    @property
    def name(self) -> str:
        """The reward's name."""
        return self._name

    @property
    def reward_type(self) -> RewardType:
        """Always PROCESS: it judges the reasoning so far, on every step."""
        return RewardType.PROCESS

    def compute(self, state: State[Any], action: Action, next_state: State[Any]) -> Signal:
        """The PRM's score of ``action.text`` after the segments of ``state``.

        Example:
            >>> from llenvs.core import Observation, StateMetadata
            >>> hidden = SegmentedHidden(None, "2 + 2 = 4. ", 1, ("2 + 2 = 4. ",), None)
            >>> state = State(Observation("2 + 2?"), hidden, StateMetadata(0, step=1))
            >>> s = PRMRewardFunction(ArithmeticPRM()).compute(state, Action("4 + 1 = 6."), state)
            >>> s.reward, s.metadata["step"], s.metadata["verdict"]
            (0.0, 1, 'wrong')

        """
        hidden = _segmented(state)
        steps = (*hidden.segments, action.text)
        [judgements] = self._judge([(_question(state), steps)])
        return self._signal(judgements[-1], len(steps) - 1)

    def compute_batch(self, steps: Sequence[StepTriple]) -> list[Signal]:
        """``compute`` of every step, with one PRM call for all of them.

        Consecutive steps of one trace (each state the previous one's successor, as replay gives
        them) are scored as one trace; other steps start a new trace of the same batch.

        Example:
            >>> from llenvs.core import Observation, StateMetadata
            >>> h0 = SegmentedHidden(None, "", 0, (), None)
            >>> h1 = SegmentedHidden(None, "1 + 1 = 2. ", 1, ("1 + 1 = 2. ",), None)
            >>> s0 = State(Observation("q"), h0, StateMetadata(0))
            >>> s1 = State(Observation("q"), h1, StateMetadata(0, step=1))
            >>> triples = [(s0, Action("1 + 1 = 2. "), s1), (s1, Action("Done."), s1)]
            >>> [s.reward for s in PRMRewardFunction(ArithmeticPRM()).compute_batch(triples)]
            [1.0, 0.5]

        """
        traces: list[tuple[str, list[str]]] = []
        places: list[tuple[int, int]] = []
        for state, action, _ in steps:
            hidden = _segmented(state)
            question = _question(state)
            last = traces[-1] if traces else None
            if (
                last is not None
                and last[0] == question
                and len(last[1]) == len(hidden.segments)
                and tuple(last[1]) == hidden.segments
            ):
                last[1].append(action.text)
            else:
                traces.append((question, [*hidden.segments, action.text]))
            places.append((len(traces) - 1, len(traces[-1][1]) - 1))
        judged = self._judge(traces)
        return [self._signal(judged[trace][step], step) for trace, step in places]

    def _judge(self, traces: Sequence[tuple[str, Sequence[str]]]) -> list[list[StepJudgement]]:
        """Judge every piece of every trace; blank pieces are neutral and not shown to the PRM."""
        shown: list[tuple[str, list[str]]] = []
        indices: list[list[int | None]] = []
        for question, pieces in traces:
            steps: list[str] = []
            index: list[int | None] = []
            pending = ""
            for piece in pieces:
                if piece.strip():
                    index.append(len(steps))
                    steps.append(pending + piece)
                    pending = ""
                else:
                    index.append(None)
                    pending += piece
            shown.append((question, steps))
            indices.append(index)
        judged = judge_traces(self.prm, shown)
        return [
            [_BLANK if i is None else judgements[i] for i in index]
            for index, judgements in zip(indices, judged, strict=True)
        ]

    def _signal(self, judgement: StepJudgement, step: int) -> Signal:
        metadata: dict[str, Any] = {"step": step, **judgement.notes}
        if judgement.score is None:
            metadata[UNRATED_KEY] = True
            return Signal(self._name, RewardType.PROCESS, 0.0, metadata)
        return Signal(self._name, RewardType.PROCESS, float(judgement.score), metadata)

    def __repr__(self) -> str:
        return f"PRMRewardFunction({self.prm!r}, name={self._name!r})"


_BLANK = StepJudgement(NEUTRAL_SCORE, {"blank": True, "verdict": "blank step: not scored"})


def _segmented(state: State[Any]) -> SegmentedHidden[Any]:
    return segmented_hidden(state, "PRMRewardFunction (a PROCESS reward)")


def _question(state: State[Any]) -> str:
    """The base task's question when it has one, else the whole prompt."""
    base = state.hidden.base_hidden if isinstance(state.hidden, SegmentedHidden) else None
    question = getattr(base, "question", None)
    if isinstance(question, str) and question.strip():
        return question
    return state.observation.prompt
