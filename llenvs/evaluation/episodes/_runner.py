"""``SegmentedTrajectoryRunner``: generate segment by segment, stepping the environment as it goes.

Example:
    >>> from llenvs.core import SegmentedEnvironment, SentenceSegmenter
    >>> from llenvs.inference.protocol import SamplingParams
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))
    >>> result = runner.run_trajectory(task_index=0)
    >>> [t.action.text for t in result.trajectory], result.success
    (['Count. ', 'So 100. <answer>100</answer>'], True)

"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from llenvs.core import ModelBackend, RunControl, SamplingParams, SegmentedEnvironment, Stopped
from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
from llenvs.evaluation.episodes._continuation_strategy import ContinuationStrategy
from llenvs.evaluation.episodes._episode import Episode
from llenvs.evaluation.episodes._episode_driver import drive_episodes
from llenvs.evaluation.episodes._episode_phase import EpisodePhase
from llenvs.evaluation.episodes._episode_start import EpisodeStart
from llenvs.evaluation.episodes._events import trajectory_event
from llenvs.evaluation.episodes._prefix import Prefix
from llenvs.evaluation.episodes._recorded_answer_opening import (
    AnswerOpening,
    recorded_answer_opening,
)
from llenvs.evaluation.episodes._step_decision import StepCallback, StepDecision
from llenvs.evaluation.episodes._token_strategy import TokenContinuationStrategy
from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult
from llenvs.traces.records import Trace

__all__ = ["SegmentedTrajectoryRunner", "derived_seeds"]


def derived_seeds(seed: int | None, count: int) -> list[int | None]:
    """``count`` distinct seeds derived from ``seed`` (None stays None: unseeded sampling).

    The first is ``seed`` itself, so one sample equals a plain seeded run.

    Example:
        >>> derived_seeds(7, 3), derived_seeds(None, 2)
        ([7, 1000010, 2000013], [None, None])

    """
    if seed is None:
        return [None] * count
    return [(seed + number * 1_000_003) % 2**31 for number in range(count)]


class SegmentedTrajectoryRunner:
    """Runs episodes of a segmented environment with a model, one segment per step.

    Arguments:
        environment: the ``SegmentedEnvironment`` to run; its segmenter decides the segments.
        backend: any ``ModelBackend``.
        sampling_params: how to sample; ``max_tokens`` is each trajectory's whole budget. The
            environment's stop sequences (such as ``</answer>``) are added to ``stop``.
        answer_opening: when a response ends without an answer, force this opening and let
            the model complete it (``AnswerOpening``); None: never.

    The continuation strategy is chosen from the segmenter: the Token strategy when it cuts by
    tokens of the tokenizer the backend generates with, else the Boundary strategy. A
    segmenter that cannot find boundaries while streaming (an LLM segmenter) is refused here.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> runner = SegmentedTrajectoryRunner(SegmentedEnvironment(base, "sentence"),
        ...                                    get_backend("scripted", outputs=[]))
        >>> runner.sampling_params.stop
        ('</answer>',)

    """

    def __init__(
        self,
        environment: SegmentedEnvironment,
        backend: ModelBackend,
        sampling_params: SamplingParams | None = None,
        answer_opening: AnswerOpening | None = None,
    ) -> None:
        if not isinstance(environment, SegmentedEnvironment):
            raise TypeError(
                "the runner needs a SegmentedEnvironment (wrap the base environment with a "
                f"segmenter), got {type(environment).__name__}"
            )
        params = SamplingParams() if sampling_params is None else sampling_params
        stop = tuple(dict.fromkeys((*params.stop, *environment.spec.stop_sequences)))
        self.environment = environment
        self.backend = backend
        self.sampling_params = replace(params, stop=stop)
        self.answer_opening = answer_opening
        self._new_strategy()  # refuse a segmenter the runner cannot stream with, now

    @classmethod
    def continuing(
        cls,
        trace: Trace,
        environment: SegmentedEnvironment,
        backend: ModelBackend,
        sampling_params: SamplingParams | None = None,
    ) -> SegmentedTrajectoryRunner:
        """A runner for continuations of ``trace``, opening a missing answer as its run did.

        Branches and rollouts are made by it, so a continuation is judged as the trace was.
        """
        return cls(environment, backend, sampling_params, recorded_answer_opening(trace))

    def run_trajectory(
        self,
        task_index: int,
        step_callback: StepCallback | None = None,
        prefix: Prefix = None,
        max_steps: int | None = None,
        then: StepDecision = None,
        *,
        control: RunControl | None = None,
    ) -> TrajectoryResult:
        """Run one episode of task ``task_index``.

        Arguments:
            task_index: which task (0-based).
            step_callback: called with each live step's result; returns None, feedback text,
                ``COMPLETE`` or ``ForceAction(text)``.
            prefix: a text, segment strings, or ``(state, action)`` pairs stepped first, with
                ``info["replayed"]``, no callback and no count toward ``max_steps``; generation
                then continues with the prefix text as the open assistant turn.
            max_steps: most live steps; the last one is marked truncated.
            then: one intervention applied right after the prefix (even an empty one).
            control: its observer gets a ``StepTaken`` after each live step, as it is
                generated, ``TrajectoryEnded`` (or ``TrajectoryErrored``) at the end, and
                ``Stopped`` when its stop ended it; the stop is read before each generation
                (the episode ends there with the steps it has: ``metadata["stopped"]`` and
                ``truncated``); without its retry a failing backend call raises, with one a
                call that still fails ends only its own trajectory, returned with the
                transitions it has and ``error`` set.

        Feedback closes the assistant turn (the stepped text; unstepped overshoot is dropped)
        and opens a new one; ``ForceAction`` steps its text as one segment (``info["forced"]``)
        and drops the overshoot; ``COMPLETE`` generates the rest in one call and steps its
        segments (``info["one_shot"]``) with no more callbacks. On a step that ended the
        episode, a ``ForceAction`` is refused (``TerminalStateError``) and ``COMPLETE`` is
        ignored; feedback there reopens the episode (while budget is left): the model answers
        it in a new turn, and the step that ends that turn carries the outcome rewards.

        Example:
            >>> from llenvs.evaluation import ForceAction
            >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
            ...                                 size=5)
            >>> script = "Two dogs. So 8 legs. <answer>8</answer>"
            >>> runner = SegmentedTrajectoryRunner(SegmentedEnvironment(base, "sentence"),
            ...                                    get_backend("scripted", outputs=[script]))
            >>> result = runner.run_trajectory(0, prefix="Two dogs. ",
            ...                                then=ForceAction("So 8 legs. "))
            >>> [t.action.text for t in result.trajectory]
            ['Two dogs. ', 'So 8 legs. ', '<answer>8</answer>']
            >>> [t.info.get("replayed", False) for t in result.trajectory]
            [True, False, False]

        """
        return self.run_batch(
            [task_index],
            step_callback=step_callback,
            prefixes=[prefix],
            max_steps=max_steps,
            thens=[then],
            control=control,
        )[0]

    def run_batch(
        self,
        task_indices: Sequence[int],
        step_callback: StepCallback | None = None,
        prefixes: Sequence[Prefix] | None = None,
        max_steps: int | None = None,
        thens: Sequence[StepDecision] | None = None,
        seeds: Sequence[int | None] | None = None,
        *,
        control: RunControl | None = None,
    ) -> list[TrajectoryResult]:
        """Run one episode per task, all at once; the results in the order of the tasks.

        Each request goes to the backend as soon as its episode has one (see
        ``episode_driver``: one call per round of waiting requests for a batching backend, one
        call per request for a concurrent one); ``step_callback`` runs per
        trajectory; ``prefixes`` and ``thens`` give one prefix and one intervention per task;
        ``seeds`` gives each episode its own sampling seed (``derived_seeds`` makes them from
        one). ``control``'s observer gets every live step and each trajectory's end as it ends
        (its ``trajectory`` is its position in ``task_indices``); its stop is read before each
        generation (see ``run_trajectory``).

        Example:
            >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
            ...                                 size=5)
            >>> backend = get_backend("scripted", outputs=["A. <answer>1</answer>", "B."])
            >>> runner = SegmentedTrajectoryRunner(SegmentedEnvironment(base, "sentence"),
            ...                                    backend)
            >>> [r.text for r in runner.run_batch([0, 1])], len(backend.requests)
            (['A. <answer>1</answer>', 'B.'], 2)

        """
        count = len(task_indices)
        prefixes = [None] * count if prefixes is None else list(prefixes)
        thens = [None] * count if thens is None else list(thens)
        seeds = [self.sampling_params.seed] * count if seeds is None else list(seeds)
        if len(prefixes) != count or len(thens) != count or len(seeds) != count:
            raise ValueError(
                f"{count} task(s) need as many prefixes, thens and seeds, got {len(prefixes)} "
                f"prefix(es), {len(thens)} then(s) and {len(seeds)} seed(s)"
            )
        control = RunControl() if control is None else control
        episodes = [
            self._episode(task, step_callback, prefix, max_steps, then, seed, slot, control)
            for slot, (task, prefix, then, seed) in enumerate(
                zip(task_indices, prefixes, thens, seeds, strict=True)
            )
        ]
        results = {}
        for episode in drive_episodes(self.backend, episodes, control.retry):
            results[episode.slot] = _ended(episode, control)
        ordered = [results[slot] for slot in range(count)]
        _report_stop(ordered, count, control)
        return ordered

    def run_tasks(
        self,
        task_indices: Sequence[int],
        step_callback: StepCallback | None = None,
        max_steps: int | None = None,
        in_flight: int = 8,
        *,
        control: RunControl | None = None,
    ) -> Iterator[TrajectoryResult]:
        """Run the tasks with up to ``in_flight`` at once; yield each result as it ends.

        A task starts the moment another one ends (continuous scheduling), so a long
        trajectory holds one slot, not the whole batch. ``control``'s observer gets the events
        of ``run_batch`` (``trajectory``: the task's position in ``task_indices``). Once it is
        stopped no task starts, and those running end between segments
        (``metadata["stopped"]``).

        Example:
            >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
            ...                                 size=5)
            >>> backend = get_backend("scripted", outputs=["A. B. C.", "D.", "E."])
            >>> runner = SegmentedTrajectoryRunner(SegmentedEnvironment(base, "sentence"),
            ...                                    backend)
            >>> [r.text for r in runner.run_tasks([0, 1, 2], in_flight=2)]
            ['A. B. C.', 'D.', 'E.']

        """
        if in_flight < 1:
            raise ValueError(f"in_flight must be >= 1, got {in_flight}")
        seed = self.sampling_params.seed
        control = RunControl() if control is None else control

        def episodes() -> Iterator[Episode]:
            for slot, task_index in enumerate(task_indices):
                if control.stopped:
                    return
                yield self._episode(
                    task_index, step_callback, None, max_steps, None, seed, slot, control
                )

        results = []
        for episode in drive_episodes(self.backend, episodes(), control.retry, in_flight):
            results.append(_ended(episode, control))
            yield results[-1]
        _report_stop(results, len(task_indices), control)

    def _episode(
        self,
        task_index: int,
        step_callback: StepCallback | None,
        prefix: Prefix,
        max_steps: int | None,
        then: StepDecision,
        seed: int | None,
        slot: int,
        control: RunControl,
    ) -> Episode:
        """A new episode of task ``task_index`` with its own strategy and seed."""
        return Episode(
            self.environment,
            self._new_strategy(),
            replace(self.sampling_params, seed=seed),
            task_index,
            step_callback=step_callback,
            start=EpisodeStart(prefix, then),
            max_steps=max_steps,
            control=control,
            answer_opening=self.answer_opening,
            slot=slot,
        )

    def _new_strategy(self) -> ContinuationStrategy:
        """A fresh continuation strategy for one trajectory."""
        segmenter = self.environment.segmenter
        if TokenContinuationStrategy.applies(segmenter, self.backend):
            return TokenContinuationStrategy(segmenter, int(getattr(segmenter, "token_size", 0)))
        return BoundaryContinuationStrategy(segmenter)


def _ended(episode: Episode, control: RunControl) -> TrajectoryResult:
    """The result of the ended ``episode``, told to the observer unless a stop cut it."""
    result = episode.result()
    if episode.phase is not EpisodePhase.STOPPED:
        control.emit(trajectory_event(episode.task_index, result, episode.slot))
    return result


def _report_stop(results: Sequence[TrajectoryResult], planned: int, control: RunControl) -> None:
    """``Stopped`` to the observer when the stop cut an episode or kept one from starting."""
    cut = [result for result in results if result.metadata.get("stopped")]
    if control.stopped and (cut or len(results) < planned):
        control.emit(Stopped(kept=len(results) - len(cut)))
