"""``SegmentedEnvironment``: a single-step environment made multi-step by a segmenter.

Each step takes one segment of the response. STEP and PROCESS rewards run on every step with
segmented states; OUTCOME and FORMAT rewards run once, on the terminal step, with the base
environment's states and the whole text (invariant 5). ``replay`` steps a complete response
segment by segment; ``finalize`` ends an episode.

Example:
    >>> from llenvs.core.segmenters import SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> [r.rewards.total for r in env.replay(state, "Count. So 100. <answer>100</answer>")]
    [0.0, 2.0]

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from llenvs.core._action import Action
from llenvs.core._environment import Environment, EnvSpec, ResetOptions
from llenvs.core._reward_function import BatchRewardFunction, RewardFunction, StepTriple
from llenvs.core._segmented_hidden import SegmentedHidden, segmented_hidden
from llenvs.core._signal import Rewards, Signal
from llenvs.core._state import State
from llenvs.core._step_result import StepResult
from llenvs.core.errors import TerminalStateError
from llenvs.core.segmenters import Segmenter, segmenter_from_spec

__all__ = ["SegmentedEnvironment"]

SegmentedState = State[SegmentedHidden[Any]]


class SegmentedEnvironment:
    r"""Wraps ``base_env`` so that each step takes one segment of the response.

    Arguments:
        base_env: a single-step environment (one action = one whole response).
        segmenter: a ``Segmenter`` or a spec string such as ``"steps"`` or ``"line:\n\n"``.
        reward_functions: replaces the base environment's set when given; keep the base ones
            with ``(my_prm_reward, *base_env.reward_functions)``.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> SegmentedEnvironment(base, "sentence").spec.segmenter
        'sentence'

    """

    def __init__(
        self,
        base_env: Environment,
        segmenter: Segmenter | str,
        reward_functions: Sequence[RewardFunction] | None = None,
    ) -> None:
        if isinstance(segmenter, str):
            segmenter = segmenter_from_spec(segmenter)
        if not isinstance(segmenter, Segmenter):
            raise TypeError(f"segmenter must be a Segmenter or a spec string, got {segmenter!r}")
        functions = tuple(
            base_env.reward_functions if reward_functions is None else reward_functions
        )
        names = [f.name for f in functions]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"two reward functions share a name: {', '.join(dupes)}")
        self.base_env = base_env
        self.segmenter = segmenter
        self._reward_functions = functions
        self._base_functions = {id(f) for f in base_env.reward_functions}

    @property
    def spec(self) -> EnvSpec:
        """The base environment's spec, with this segmenter's spec."""
        return replace(self.base_env.spec, segmenter=self.segmenter.spec)

    @property
    def reward_functions(self) -> tuple[RewardFunction, ...]:
        """The reward functions in force (the base environment's unless replaced)."""
        return self._reward_functions

    def __len__(self) -> int:
        return len(self.base_env)

    def is_complete(self, text: str) -> bool:
        """Whether the base environment considers ``text`` a complete response."""
        return self.base_env.is_complete(text)

    def reset(
        self, *, seed: int | None = None, options: ResetOptions | None = None
    ) -> tuple[SegmentedState, dict[str, Any]]:
        """Reset the base environment and start with no segments."""
        base_state, info = self.base_env.reset(seed=seed, options=options)
        hidden = SegmentedHidden(base_state.hidden, "", 0, (), None)
        return State(base_state.observation, hidden, base_state.metadata), info

    def step(self, state: SegmentedState, action: Action) -> StepResult[SegmentedHidden[Any]]:
        """Take one segment.

        The step is terminal when ``action.final`` is set, the action is empty, the base
        environment says the open turn's text is complete (live mode), or the last segment of
        a replay is reached.
        """
        return self._step(state, action, frozenset())

    def replay(self, state: SegmentedState, text: str) -> list[StepResult[SegmentedHidden[Any]]]:
        """Step a complete response segment by segment; the last step is terminal.

        Per-step reward functions with a ``compute_batch`` hook score the whole trace at once.
        An empty response is one terminal step with an empty action.
        """
        hidden = self._hidden(state)
        self._refuse_terminal(state)
        pieces = self.segmenter.pieces(text) or [""]
        state = replace(
            state, hidden=replace(hidden, total_segments=hidden.segment_index + len(pieces))
        )
        batched = frozenset(
            id(f)
            for f in self._reward_functions
            if f.reward_type.per_step and isinstance(f, BatchRewardFunction)
        )
        results: list[StepResult[SegmentedHidden[Any]]] = []
        triples: list[StepTriple] = []
        for number, piece in enumerate(pieces, start=1):
            action = Action(piece, final=number == len(pieces))
            result = self._step(state, action, batched)
            triples.append((state, action, result.next_state))
            results.append(result)
            state = result.next_state
        if not batched:
            return results
        late: dict[int, Sequence[Signal]] = {}
        for function in self._reward_functions:
            if id(function) in batched:
                assert isinstance(function, BatchRewardFunction)
                signals = function.compute_batch(triples)
                if len(signals) != len(triples):
                    raise ValueError(
                        f"{function.name}.compute_batch returned {len(signals)} signals for "
                        f"{len(triples)} steps"
                    )
                late[id(function)] = signals
        return [
            replace(result, rewards=self._ordered(result.rewards.signals, late, number))
            for number, result in enumerate(results)
        ]

    def finalize(self, state: SegmentedState) -> StepResult[SegmentedHidden[Any]]:
        """End the episode: a terminal step with no more text.

        On a terminal state it returns the terminal step's result again (recomputed from the
        state before the last segment).
        """
        hidden = self._hidden(state)
        if not state.metadata.is_terminal:
            return self.step(state, Action("", final=True))
        if not hidden.segments:
            raise TerminalStateError("this terminal state has no segments to finalize")
        last = hidden.segments[-1]
        before = replace(
            hidden,
            accumulated_text=hidden.accumulated_text[: len(hidden.accumulated_text) - len(last)],
            segment_index=hidden.segment_index - 1,
            segments=hidden.segments[:-1],
        )
        metadata = replace(
            state.metadata, step=state.metadata.step - 1, is_terminal=False, is_truncated=False
        )
        return self.step(State(state.observation, before, metadata), Action(last, final=True))

    def _step(
        self, state: SegmentedState, action: Action, deferred: frozenset[int]
    ) -> StepResult[SegmentedHidden[Any]]:
        hidden = self._hidden(state)
        self._refuse_terminal(state)
        text = hidden.accumulated_text + action.text
        index = hidden.segment_index + 1
        if hidden.total_segments is None:
            turn = text[hidden.turn_start :]  # after feedback, the model answers anew
            terminal = action.final or not action.text or self.base_env.is_complete(turn)
        else:
            terminal = action.final or not action.text or index >= hidden.total_segments
        next_hidden = SegmentedHidden(
            hidden.base_hidden,
            text,
            index,
            (*hidden.segments, action.text),
            hidden.total_segments,
            hidden.turn_start,
        )
        metadata = replace(state.metadata, step=state.metadata.step + 1, is_terminal=terminal)
        next_state = State(state.observation, next_hidden, metadata)
        signals: dict[int, Signal] = {}
        for function in self._reward_functions:
            if function.reward_type.per_step and id(function) not in deferred:
                signals[id(function)] = function.compute(state, action, next_state)
        info: dict[str, Any] = {"segment_index": index}
        if terminal:
            base_before = State(
                state.observation,
                hidden.base_hidden,
                replace(state.metadata, step=0, is_terminal=False, is_truncated=False),
            )
            whole = Action(text, final=True)
            base_result = self.base_env.step(base_before, whole)
            for function in self._reward_functions:
                if function.reward_type.per_step:
                    continue
                reused = base_result.rewards.get(function.name)
                if id(function) in self._base_functions and reused is not None:
                    signals[id(function)] = reused
                else:
                    signals[id(function)] = function.compute(
                        base_before, whole, base_result.next_state
                    )
            info.update(base_result.info)
        ordered = tuple(signals[id(f)] for f in self._reward_functions if id(f) in signals)
        return StepResult(next_state, Rewards(ordered), terminated=terminal, info=info)

    def _ordered(
        self, signals: tuple[Signal, ...], late: dict[int, Sequence[Signal]], number: int
    ) -> Rewards:
        by_name = {s.name: s for s in signals}
        ordered: list[Signal] = []
        for function in self._reward_functions:
            if id(function) in late:
                ordered.append(late[id(function)][number])
            elif function.name in by_name:
                ordered.append(by_name[function.name])
        return Rewards(tuple(ordered))

    @staticmethod
    def _hidden(state: State[Any]) -> SegmentedHidden[Any]:
        return segmented_hidden(state, "SegmentedEnvironment")

    @staticmethod
    def _refuse_terminal(state: State[Any]) -> None:
        if state.metadata.is_terminal:
            raise TerminalStateError(
                f"the episode ended at segment {state.hidden.segment_index}: a further step "
                "is refused (use finalize() to read the terminal result again)"
            )

    def __repr__(self) -> str:
        return f"SegmentedEnvironment({self.base_env!r}, {self.segmenter.spec!r})"
