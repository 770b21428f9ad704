"""The one episode loop: every trajectory the runner makes is an ``Episode`` driven by it.

An ``Episode`` holds one trajectory's state between backend calls: the conversation, the open
assistant turn, the generated text not yet stepped, the token budget, the transitions.
``next_request`` does all the work that needs no model (stepping segments, running the callback,
applying interventions) until the episode needs a generation or ends; ``receive`` takes the
generation. ``drive_episodes`` (``episode_driver``) drives any number of episodes, each
request sent as soon as its episode has one, each generation or error handed to its own
episode: ``run_trajectory`` is a batch of one.

Example:
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment, SentenceSegmenter
    >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
    >>> from llenvs.evaluation.episodes._episode_driver import run_episodes
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> strategy = BoundaryContinuationStrategy(env.segmenter)
    >>> episode = Episode(env, strategy, SamplingParams(), task_index=0)
    >>> run_episodes(get_backend("scripted", outputs=["Hm. Four. <answer>4</answer>"]), [episode])
    >>> [t.action.text for t in episode.transitions]
    ['Hm. ', 'Four. <answer>4</answer>']

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from llenvs.core import (
    Action,
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
    Prompt,
    RunControl,
    SamplingParams,
    SegmentedEnvironment,
    StepResult,
    Trajectory,
    Transition,
)
from llenvs.evaluation.episodes._continuation_strategy import ContinuationStrategy
from llenvs.evaluation.episodes._decision_effects import apply_decision
from llenvs.evaluation.episodes._episode_phase import EpisodePhase
from llenvs.evaluation.episodes._episode_start import EpisodeStart
from llenvs.evaluation.episodes._events import StepTaken
from llenvs.evaluation.episodes._prefix import FeedbackTurn, Prefix, prefix_parts, replay_prefix
from llenvs.evaluation.episodes._recorded_answer_opening import AnswerOpening
from llenvs.evaluation.episodes._step_decision import ForceAction, StepCallback
from llenvs.evaluation.episodes._step_rewrites import truncated as truncated_result
from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult, is_success
from llenvs.traces.records import SegmentFlag, segment_from_transition

__all__ = ["Episode"]


class Episode:
    """One trajectory in progress (see the module docstring).

    Example:
        >>> from llenvs.core import SamplingParams, SegmentedEnvironment
        >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> env = SegmentedEnvironment(base, "sentence")
        >>> episode = Episode(env, BoundaryContinuationStrategy(env.segmenter), SamplingParams(),
        ...                   task_index=0, start=EpisodeStart("Two dogs. <answer>8</answer>"))
        >>> episode.next_request() is None, episode.result().metadata["prefix_steps"]
        (True, 1)

    """

    def __init__(
        self,
        env: SegmentedEnvironment,
        strategy: ContinuationStrategy,
        params: SamplingParams,
        task_index: int,
        *,
        step_callback: StepCallback | None = None,
        start: EpisodeStart | None = None,
        max_steps: int | None = None,
        control: RunControl | None = None,
        answer_opening: AnswerOpening | None = None,
        slot: int = 0,
    ) -> None:
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"max_steps must be > 0 or None, got {max_steps}")
        self.env = env
        self.strategy = strategy
        self.params = params
        self.callback = step_callback
        self.max_steps = max_steps
        self.control = RunControl() if control is None else control
        """Its observer gets a ``StepTaken`` after every live step (replayed prefix steps
        excepted); its stop is read before each generation: once stopped, the episode ends
        there (``STOPPED``)."""
        self.slot = slot
        """Which trajectory of its call this is (``StepTaken.trajectory``)."""
        self.answer_opening = answer_opening
        self.answer_tokens = 0
        """Tokens the budget gained for the answer once ``answer_opening`` was forced (the
        response ended without an answer); 0 until then."""
        self.phase = EpisodePhase.GENERATING
        """Where the episode is; it moves only along ``episode_phase.TRANSITIONS``."""
        self.state, _ = env.reset(options={"task_index": task_index})
        self.task_index = task_index
        observation = self.state.observation
        system = (
            ()
            if observation.system_prompt is None
            else (Message("system", observation.system_prompt),)
        )
        self.messages: tuple[Message, ...] = (*system, Message("user", observation.prompt))
        self.transitions: list[Transition] = []
        self.turn = ""
        """Text of the open assistant turn that has been stepped."""
        self.turn_ids: list[int] | None = []
        """Token ids of the open turn and the unstepped text, while the backend made all of it."""
        self.hint_ids: list[int] | None = []
        """Token ids a model generated for the open turn's prefix segments (``PrefixSegment``);
        None once a prefix segment without ids (forced, imported) breaks the run."""
        self.pending: list[str] = []
        """Complete segments generated but not yet stepped."""
        self.carried = ""
        """After ``COMPLETE``: segments cut but not stepped, to be re-cut with the rest."""
        self.unassigned_ids: list[int] = []
        self.unassigned_logprobs: list[float] | None = []
        self.forced: ForceAction | None = None
        self.budget = params.max_tokens
        self.live_steps = 0
        self.calls = 0
        self.finish_reason: FinishReason | None = None
        self.error: str | None = None
        """Why the episode stopped early (a backend failure after retries), or None."""
        self.feedback: list[tuple[int, str]] = []
        """Each feedback injected: the number of segments before it, and its text."""
        start = EpisodeStart() if start is None else start
        self._replay(start.prefix)
        self.prefix_steps = len(self.transitions)
        if start.then is not None:
            apply_decision(self, start.then)

    @property
    def done(self) -> bool:
        """Whether the episode has ended (its phase is finished, truncated, stopped or failed)."""
        return self.phase.done

    def next_request(self) -> GenerationRequest | None:
        """Step everything that needs no model; the next request, or None once done."""
        while not self.done:
            if self.forced is not None:
                forced, self.forced = self.forced, None
                self._step(forced.text, final=False, flags=frozenset({SegmentFlag.FORCED}))
            elif self.pending:
                piece = self.pending.pop(0)
                final = self.phase.generation_ended and not self.pending
                opens = final and self._answer_due(piece)
                self._step(piece, final=final and not opens, **self._generated())
                if opens and not self.done:
                    self._open_answer()
            elif self.phase.generation_ended:
                if self._answer_due(""):
                    self._open_answer()
                elif self._last_step_ends_the_turn():
                    self._end_on_last_step()
                else:
                    self._step("", final=True, **self._generated())
            elif self.budget <= 0:
                self._end_generation()
                self.pending = self.strategy.complete("", "")
            elif self.control.stopped:
                self._move(EpisodePhase.STOPPED)
            else:
                prompt = Prompt(
                    self.messages,
                    self.turn + self.carried + self.strategy.buffer,
                    None if self.turn_ids is None else tuple(self.turn_ids),
                    None
                    if self.turn_ids is not None or not self.hint_ids
                    else tuple(self.hint_ids),
                )
                if self.phase.one_shot:
                    return self.strategy.one_shot_request(prompt, self.params, self.budget)
                return self.strategy.request(prompt, self.params, self.budget)
        return None

    def receive(self, generation: Generation) -> None:
        """Take the backend's answer to the last request."""
        self.calls += 1
        self.finish_reason = generation.finish_reason
        self.budget -= len(generation.token_ids)
        self.unassigned_ids.extend(generation.token_ids)
        if self.turn_ids is not None:
            self.turn_ids.extend(generation.token_ids)
        if generation.logprobs is None:
            self.unassigned_logprobs = None
        elif self.unassigned_logprobs is not None:
            self.unassigned_logprobs.extend(generation.logprobs)
        if self.phase.one_shot:
            self.pending = self.strategy.complete(self.carried, generation.text)
            self.carried = ""
            self._end_generation()
        else:
            pieces, ended = self.strategy.absorb(generation, self.budget)
            self.pending.extend(pieces)
            if ended:
                self._end_generation()

    def fail(self, error: BaseException) -> None:
        """End the episode on a backend failure, keeping the transitions it has."""
        self.error = f"{type(error).__name__}: {error}"
        self._move(EpisodePhase.FAILED)

    def result(self) -> TrajectoryResult:
        """The episode as a ``TrajectoryResult`` (call once it is done)."""
        messages = self.messages + ((Message("assistant", self.turn),) if self.turn else ())
        trajectory = Trajectory(tuple(self.transitions))
        metadata: dict[str, Any] = {
            "task_index": self.task_index,
            "prefix_steps": self.prefix_steps,
            "generated_tokens": self.params.max_tokens + self.answer_tokens - self.budget,
            "answer_opened": self.answer_tokens > 0,
            "calls": self.calls,
            "finish_reason": None if self.finish_reason is None else self.finish_reason.value,
            "truncated": self.phase in (EpisodePhase.TRUNCATED, EpisodePhase.STOPPED),
            "stopped": self.phase is EpisodePhase.STOPPED,
            "budget_exhausted": self.budget <= 0,
            "feedback": [{"after_segment": n, "text": text} for n, text in self.feedback],
        }
        success = self.error is None and is_success(trajectory)
        return TrajectoryResult(trajectory, success, metadata, messages, self.error)

    def _replay(self, prefix: Prefix) -> None:
        """Step the prefix: its segments as given, its feedback turns as feedback.

        The token ids of the open turn's prefix segments become ``hint_ids`` (while every
        segment has them), so the backend continues from the model's own tokens (invariant 3).
        """
        for part in prefix_parts(prefix):
            if isinstance(part, FeedbackTurn):
                apply_decision(self, part.text)
                continue
            for transition in replay_prefix(self.env, self.state, part):
                self.transitions.append(transition)
                self.state = transition.result.next_state
                self.turn += transition.action.text
                self.turn_ids = None
                if transition.result.done:
                    self._move(EpisodePhase.FINISHED)
                ids = transition.info.get("token_ids")
                if self.hint_ids is not None:
                    self.hint_ids = None if ids is None else [*self.hint_ids, *ids]

    def _answer_due(self, last_piece: str) -> bool:
        """Whether the response ends here without its answer and the opening is to be forced."""
        opening = self.answer_opening
        return (
            opening is not None
            and not self.answer_tokens
            and self.error is None
            and opening.marker not in self.turn + last_piece
        )

    def _open_answer(self) -> None:
        """Force the answer opening; the model gets ``max_tokens`` more to complete it."""
        opening = self.answer_opening
        assert opening is not None
        self.answer_tokens = opening.max_tokens
        apply_decision(self, ForceAction(opening.text))
        self.budget = max(self.budget, 0) + opening.max_tokens
        stop = tuple(dict.fromkeys((*self.params.stop, *opening.stop)))
        self.params = replace(self.params, stop=stop)

    def _generated(self) -> dict[str, Any]:
        """``_step``'s flags (generated, one shot) and tokens (ids, logprobs) of a generated step.

        The token ids are those of the calls since the last generated step: a call's tokens go
        to the first segment it completes (the overshoot past a boundary included).
        """
        tokens: dict[str, Any] = {"token_ids": tuple(self.unassigned_ids)}
        if self.unassigned_logprobs is not None and self.unassigned_ids:
            tokens["logprobs"] = tuple(self.unassigned_logprobs)
        self.unassigned_ids, self.unassigned_logprobs = [], []
        one_shot = {SegmentFlag.ONE_SHOT} if self.phase.one_shot else set()
        return {"flags": frozenset({SegmentFlag.GENERATED, *one_shot}), "tokens": tokens}

    def _step(
        self,
        text: str,
        *,
        final: bool,
        flags: frozenset[SegmentFlag],
        tokens: Mapping[str, Any] = MappingProxyType({}),
    ) -> None:
        """Step one live segment, mark truncation, and run the callback.

        ``info`` gets each flag under its value (``info["forced"]``) and ``tokens``.
        """
        before, one_shot = self.state, self.phase.one_shot
        action = Action(text, final=final)
        result: StepResult[Any] = self.env.step(before, action)
        self.live_steps += 1
        info = {**result.info, **tokens, **{flag.value: True for flag in flags}}
        truncated = (
            not result.done and self.max_steps is not None and self.live_steps >= self.max_steps
        )
        result = replace(truncated_result(result) if truncated else result, info=info)
        transition = Transition(before, action, result)
        self.transitions.append(transition)
        self.state = result.next_state
        self.turn += text
        if truncated:
            self._move(EpisodePhase.TRUNCATED)
        elif result.done:
            self._move(EpisodePhase.FINISHED)
        if self.control.observer is not None:
            self.control.emit(self._step_taken(transition))
        if self.callback is not None and not one_shot:
            apply_decision(self, self.callback(result))

    def _step_taken(self, transition: Transition) -> StepTaken:
        """The event of the live step ``transition``, the last one taken."""
        end = len(transition.result.next_state.hidden.accumulated_text)
        text = transition.action.text
        segment = segment_from_transition(transition, len(self.transitions) - 1, end - len(text))
        return StepTaken(self.task_index, segment, self.slot)

    def _last_step_ends_the_turn(self) -> bool:
        """Whether generation ended with nothing after the last step, in the same turn.

        After feedback the model's new turn is empty: that empty answer stays a step of its own.
        """
        return (
            bool(self.transitions)
            and not self.unassigned_ids
            and SegmentFlag.FEEDBACK_AFTER.value not in self.transitions[-1].result.info
        )

    def _end_on_last_step(self) -> None:
        """End on the last step when generation ended with nothing after it.

        A forced segment the model did not continue: that step is made again as the terminal
        one, so no empty segment appears (invariant 1) and the outcome is judged on the whole
        response. Callbacks are not run again; the step keeps its flags.
        """
        last = self.transitions[-1]
        result = self.env.step(last.state, replace(last.action, final=True))
        result = replace(result, info={**last.result.info, **result.info})
        self.transitions[-1] = replace(last, action=replace(last.action, final=True), result=result)
        self.state = result.next_state
        self._move(EpisodePhase.FINISHED)

    def _end_generation(self) -> None:
        """The model has said all it will say in this turn: step what it left."""
        self._move(EpisodePhase.COMPLETED if self.phase.one_shot else EpisodePhase.GENERATED)

    def _move(self, target: EpisodePhase) -> None:
        """Go to ``target``, as ``episode_phase.TRANSITIONS`` allows (else an internal error)."""
        self.phase = self.phase.move_to(target)
