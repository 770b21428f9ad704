"""An evaluation started from the workbench: what to run, and the run in the background.

``EvaluationPlan`` is everything the Evaluate page sets (the environment, the segmenter, the
PRM, the tasks, the sampling, the model); it names its results file from a digest of the
settings other than the task list, so running the same settings again resumes the same file
(finished tasks are kept, the others run) and asking for more tasks extends it.

``EvaluationJob`` runs the library's ``run_segmented_evaluation`` in a thread of its own and
reads its event stream (the events the CLI's log gets): each task's status and steps as they
arrive. ``stop`` ends the run between segments: the finished tasks stay in the results file,
the ones in flight are dropped and run again on resume.

Example:
    >>> plan = EvaluationPlan("reasoning_gym", "leg_counting", {"size": 10, "seed": 42},
    ...                       "sentence", None, (0, 1), "scripted")
    >>> plan.results_name().startswith("eval-leg_counting-scripted-")
    True
    >>> plan.results_name() == EvaluationPlan(
    ...     "reasoning_gym", "leg_counting", {"seed": 42, "size": 10}, "sentence", None,
    ...     (0, 1, 2, 3), "scripted").results_name()  # more tasks: the same file, resumed
    True

"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    Environment,
    ModelBackend,
    RunControl,
    RunEvent,
    SamplingParams,
    SegmentedEnvironment,
)
from llenvs.core.registry import environment_registry
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.evaluation import EvaluationResult, LogConfig, run_segmented_evaluation
from llenvs.evaluation.branching import scored_environment
from llenvs.evaluation.episodes import (
    AnswerOpening,
    RunStarted,
    StepTaken,
    TrajectoryEnded,
    TrajectoryErrored,
)
from llenvs.rewards.prm import provenance_of
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["EvaluationJob", "EvaluationPlan", "TaskState", "TaskStatus"]


@dataclass(frozen=True)
class EvaluationPlan:
    """What to evaluate (see the module)."""

    adapter: str
    """``reasoning_gym`` (a dataset by name) or ``huggingface`` (a local data file)."""
    name: str
    """The dataset's name, or the data file's path."""
    options: dict[str, Any]
    """The adapter's options: ``size``, ``seed`` and the dataset's own."""
    segmenter: str
    """The segmenter spec."""
    prm: str | None
    """The PRM scoring every step, or None."""
    tasks: tuple[int, ...]
    """The task indices to run."""
    model: str
    """The backend's name (``transformers``, ``openai/<model>``, ...)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Token budget of each trajectory."""
    temperature: float = 0.0
    """0 for greedy."""
    seed: int | None = 0
    """The sampler's seed."""
    batch_size: int = 8
    """Trajectories generated together."""
    answer_opening: bool = False
    """Force the default ``AnswerOpening`` when a response ends without an answer."""
    prm_options: dict[str, Any] = field(default_factory=dict)
    """The PRM's options for ``get_prm`` (a served PRM's ``base_url``); not part of the results
    file's name, so the same served PRM at another address resumes the same file."""

    def base_environment(self) -> Environment:
        """The dataset's environment (raises with the valid choices on a bad name or option)."""
        return environment_registry.get(name=self.name, adapter=self.adapter, **self.options)

    def environment(
        self, backend: ModelBackend | None = None, *, base: Environment | None = None
    ) -> SegmentedEnvironment:
        """The segmented environment to run, its PRM made with ``prm_options``.

        ``backend`` is the run's model: the ``judge`` PRM asks it (no second copy is loaded).
        ``base`` is ``base_environment()`` when already made.

        Example:
            >>> plan = EvaluationPlan("reasoning_gym", "leg_counting", {"size": 2}, "sentence",
            ...                       "vllm/m", (0,), "scripted",
            ...                       prm_options={"base_url": "http://h:8000/v1"})
            >>> plan.environment().reward_functions[0].prm.base_url
            'http://h:8000/v1'

        """
        return scored_environment(
            self.base_environment() if base is None else base,
            segmenter_from_spec(self.segmenter),
            self.prm,
            backend,
            self.prm_options,
        )

    def sampling(self) -> SamplingParams:
        """How to sample."""
        return SamplingParams(
            max_tokens=self.max_tokens, temperature=self.temperature, seed=self.seed
        )

    def results_name(self) -> str:
        """The results file's name: the dataset, the model, a digest of the other settings."""
        settings = {
            "adapter": self.adapter,
            "name": self.name,
            "options": self.options,
            "segmenter": self.segmenter,
            "prm": self.prm,
            "model": self.model,
            "sampling": [self.max_tokens, self.temperature, self.seed],
            **({"answer_opening": True} if self.answer_opening else {}),
        }
        digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()
        model = _slug(self.model.rpartition("/")[2] or self.model)
        return f"eval-{_slug(Path(self.name).stem)}-{model}-{digest[:8]}.jsonl"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:40] or "x"


class TaskState(StrEnum):
    """Where one task of an evaluation stands (its value is what the page's table shows).

    Example:
        >>> [state.value for state in TaskState if state.ended]
        ['succeeded', 'failed', 'error']

    """

    WAITING = "waiting"
    """Not started yet."""
    RUNNING = "running"
    """Steps are being generated."""
    SUCCEEDED = "succeeded"
    """Ended, and its answer is right."""
    FAILED = "failed"
    """Ended, and its answer is wrong (or missing)."""
    ERROR = "error"
    """A backend failure ended it (run again to retry it)."""

    @property
    def ended(self) -> bool:
        """Whether the task has ended (succeeded, failed or errored)."""
        return self not in (TaskState.WAITING, TaskState.RUNNING)

    @classmethod
    def of(cls, success: bool) -> TaskState:
        """The state of a task that ran to its end.

        Example:
            >>> TaskState.of(True), TaskState.of(False)
            (<TaskState.SUCCEEDED: 'succeeded'>, <TaskState.FAILED: 'failed'>)

        """
        return cls.SUCCEEDED if success else cls.FAILED


@dataclass
class TaskStatus:
    """Where one task stands."""

    state: TaskState = TaskState.WAITING
    """Waiting, running, succeeded, failed, or errored."""
    steps: int = 0
    """Segments generated so far."""
    last: str = ""
    """The latest segment's text."""
    error: str = ""
    """Why it errored."""


class EvaluationJob(BackgroundJob):
    """``run_segmented_evaluation`` of ``plan``'s ``environment`` into ``path``, in a thread.

    ``stop`` ends the run between segments: finished tasks stay in ``path``, those in flight
    are dropped (run again on resume).
    """

    def __init__(
        self,
        plan: EvaluationPlan,
        environment: SegmentedEnvironment,
        backend: ModelBackend,
        path: Path,
        *,
        session: str = "",
    ) -> None:
        super().__init__(name="llenvs-evaluate", start=False, session=session, model=backend)
        self.plan = plan
        """What runs."""
        self.environment = environment
        """The plan's environment (``plan.environment(backend)``, built once by the caller)."""
        self.backend = backend
        """The model."""
        self.path = path
        """The results file."""
        self.result: EvaluationResult | None = None
        """The run's result, once it ended without error."""
        self.resumed = 0
        """Tasks an earlier run had finished."""
        self.statuses = {task: TaskStatus() for task in plan.tasks}
        """Every task's status, updated from the run's events."""
        self._lock = threading.Lock()
        self.start()

    def snapshot(self) -> dict[int, TaskStatus]:
        """A copy of every task's status."""
        with self._lock:
            return {task: replace(s) for task, s in self.statuses.items()}

    def observe(self, event: RunEvent) -> None:
        """Take one event of the run: the tasks' statuses follow it."""
        with self._lock:
            match event:
                case RunStarted(resumed=resumed):
                    self.resumed = resumed
                case StepTaken(task_index=task) if task in self.statuses:
                    status = self.statuses[task]
                    status.state, status.steps = TaskState.RUNNING, status.steps + 1
                    status.last = event.text
                case TrajectoryEnded(task_index=task) if task in self.statuses:
                    self.statuses[task].state = TaskState.of(event.success)
                case TrajectoryErrored(task_index=task) if task in self.statuses:
                    status = self.statuses[task]
                    status.state, status.error = TaskState.ERROR, event.error

    def work(self) -> None:
        """Run the evaluation, reading its events; mark what an earlier run had finished."""
        self.result = run_segmented_evaluation(
            self.environment,
            self.backend,
            task_indices=list(self.plan.tasks),
            sampling_params=self.plan.sampling(),
            log=LogConfig(targets=()),
            batch_size=self.plan.batch_size,
            results_file=self.path,
            control=RunControl(self.observe, self.stop_token),
            prm=provenance_of(self.plan.prm, self.environment.reward_functions),
            answer_opening=AnswerOpening() if self.plan.answer_opening else None,
        )
        with self._lock:
            for trace in self.result.traces:
                status = self.statuses[trace.task.task_index]
                if not status.state.ended:  # finished in an earlier run
                    status.state = TaskState.of(bool(trace.success))
                    status.steps = len(trace.segments)
