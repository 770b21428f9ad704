"""``run_segmented_evaluation``: run a model on many tasks segment by segment, with logs.

Up to ``batch_size`` trajectories run at once, and a finished one's slot goes to the next task at
once (``runner.run_tasks``: no lockstep); every finished trajectory becomes a trace,
appended to the results file at once when one is given, so an interrupted evaluation resumes
from that file without redoing finished tasks (tasks that ended in a backend error are run
again). Each append, and the final rewrite to one trace per task, holds the file's lock, so an
evaluation killed at any moment (even by SIGKILL) leaves a file that loads, and another writer's
lines are never lost. Failing backend calls are retried by the retry policy; a trajectory whose
calls still fail is kept, errored, with the steps it had, and the other trajectories go on:
only the failing requests are sent again, never the ones that got their generation.

Example:
    >>> from llenvs.core import SegmentedEnvironment, SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> backend = get_backend("scripted", outputs=[
    ...     "Count. So 100. <answer>100</answer>", "Hm. <answer>3</answer>"])
    >>> result = run_segmented_evaluation(environment=env, backend=backend, num_tasks=2,
    ...                                   log=LogConfig(targets=()))
    >>> print(f"Accuracy: {result.success_rate:.1%}")
    Accuracy: 50.0%

"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from llenvs.core import (
    ModelBackend,
    RetryPolicy,
    RunControl,
    RunEvent,
    RunObserver,
    SamplingParams,
    SegmentedEnvironment,
    Stopped,
    fan_out,
)
from llenvs.core.errors import TaskIndexError
from llenvs.core.run_spec import PRMSpec, RunSpec, TaskSource, spell_tasks
from llenvs.evaluation._console_progress import ConsoleProgress
from llenvs.evaluation._evaluation_result import EvaluationResult
from llenvs.evaluation._jsonl_event_log import JsonlEventLog
from llenvs.evaluation._log_config import LogConfig
from llenvs.evaluation.episodes import (
    AnswerOpening,
    RunEnded,
    RunStarted,
    SegmentedTrajectoryRunner,
    StepCallback,
    StepTaken,
    TrajectoryOver,
    TrajectoryResult,
    result_trace,
    trajectory_event,
)
from llenvs.inference import backend_spec
from llenvs.traces.files import (
    TraceReader,
    append_trace,
    file_lock,
    remove_leftover_temporaries,
    set_aside_lines,
    write_traces,
)
from llenvs.traces.records import Trace

__all__ = [
    "DEFAULT_RETRY",
    "ProgressCallback",
    "progress_observer",
    "run_segmented_evaluation",
    "settle_results_file",
]

ProgressCallback = Callable[[int, int], None]
"""Called with (tasks finished, tasks in all) each time a trajectory finishes (and at the start,
when a results file already had some): the guide's shorthand for an observer of
``TrajectoryEnded`` (``progress_observer``)."""

DEFAULT_RETRY = RetryPolicy()
"""Three tries per backend call, waiting 1 s then 2 s."""


def run_segmented_evaluation(
    environment: SegmentedEnvironment,
    backend: ModelBackend,
    *,
    num_tasks: int | None = None,
    task_indices: Sequence[int] | None = None,
    sampling_params: SamplingParams | None = None,
    step_callback: StepCallback | None = None,
    progress_callback: ProgressCallback | None = None,
    log: LogConfig | None = None,
    batch_size: int = 8,
    max_steps: int | None = None,
    results_file: str | os.PathLike[str] | None = None,
    control: RunControl | None = None,
    answer_opening: AnswerOpening | None = None,
    prm: PRMSpec | None = None,
) -> EvaluationResult:
    """Evaluate ``backend`` on tasks of ``environment``, one segment per step.

    Arguments:
        environment: the segmented environment; its segmenter cuts the segments.
        backend: any ``ModelBackend``.
        num_tasks: run tasks ``0..num_tasks-1``; or give ``task_indices``; neither: all tasks.
        task_indices: the tasks to run, in order.
        sampling_params: how to sample (``max_tokens`` per trajectory).
        step_callback: as for ``run_trajectory``, per trajectory.
        progress_callback: ``(finished, total)`` after each finished trajectory.
        log: where to report (a progress bar on the console by default; ``"file"`` adds a
            JSONL event log under ``log.directory``, ``./llenvs_logs/`` by default).
        batch_size: most trajectories in flight at once; when one ends, the next task starts
            at once (a batching backend serves the waiting requests as one batch, a
            concurrent one, such as the openai backend, each as soon as it comes).
        max_steps: most live steps per trajectory.
        results_file: a trace file to append each finished trajectory to, and to resume from.
        control: its observer gets the run's events (``llenvs.core``):
            ``RunStarted``, a ``StepTaken`` per live step, ``TrajectoryEnded`` or
            ``TrajectoryErrored`` per task once its trace is kept, ``Stopped`` when the stop
            ended the run early, and ``RunEnded`` (the workbench's live view, and tests, read
            them); its stop is read before each generation: once stopped the trajectories in
            flight are dropped (not written, so a rerun with ``results_file`` runs them
            again), the finished ones kept, and the result holds the finished ones only; its
            retry (``DEFAULT_RETRY`` when it has none) retries failing backend calls.
        answer_opening: when a response ends without an answer, force this opening (a
            segment flagged ``forced``) and let the model complete it; None: never.
        prm: the spec of the PRM that scores the steps (``prm_provenance``), kept in every
            trace's ``run.spec.prm``; None when no PRM scores them.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
        >>> env = SegmentedEnvironment(base, "sentence")
        >>> run_segmented_evaluation(env, get_backend("scripted", outputs=[]), num_tasks=4)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.TaskIndexError: task_index 3 is out of range: this environment has 3 tasks (0..2)

    """  # noqa: E501
    tasks = _task_list(environment, num_tasks, task_indices)
    if batch_size <= 0:
        raise ValueError(f"batch_size must be > 0, got {batch_size}")
    control = RunControl() if control is None else control
    runner = SegmentedTrajectoryRunner(
        environment, backend, sampling_params, answer_opening=answer_opening
    )
    path = None if results_file is None else Path(results_file)
    earlier = {} if path is None else _finished_traces(path, environment, backend)
    finished = {i: earlier[i] for i in tasks if i in earlier and earlier[i].error is None}
    todo = [i for i in tasks if i not in finished]
    slot_of = {task: slot for slot, task in enumerate(todo)}  # the runner's ``trajectory``
    config = LogConfig() if log is None else log
    log_path = _log_path(config, environment) if "file" in config.targets else None
    logs = _logs(config, log_path)
    progress = None if progress_callback is None else progress_observer(progress_callback)
    emit = fan_out(*logs, control.observer, progress)

    def steps_only(event: RunEvent) -> None:  # a trajectory counts once its trace is kept
        if isinstance(event, StepTaken):
            emit(event)

    params, template = runner.sampling_params, backend.capabilities.chat_template
    spec = RunSpec(
        task=_task_source(environment, tasks),
        model=backend_spec(backend),
        prm=prm,
        sampling=params,
        answer_opening=answer_opening,
    )
    started = time.perf_counter()
    results: dict[int, TrajectoryResult] = {}
    traces: dict[int, Trace] = dict(finished)
    try:
        name, segmenter = environment.spec.name, environment.segmenter.spec
        emit(RunStarted(name, backend.name, segmenter, tuple(tasks), resumed=len(finished)))
        for result in runner.run_tasks(
            todo,
            step_callback,
            max_steps=max_steps,
            in_flight=batch_size,
            control=RunControl(steps_only, control.stop, control.retrying(DEFAULT_RETRY)),
        ):
            if result.metadata.get("stopped"):
                continue  # cut short by the stop: run again on resume, never kept
            trace = result_trace(
                result, environment, spec, model_name=backend.name, chat_template=template
            )
            index = trace.task.task_index
            results[index], traces[index] = result, trace
            if path is not None:
                append_trace(path, trace)
            emit(trajectory_event(index, result, slot_of[index]))
        ordered = tuple(traces[i] for i in tasks if i in traces)
        if control.stopped and len(ordered) < len(tasks):
            emit(Stopped(kept=len(ordered)))
        emit(
            RunEnded(
                completed=len(ordered),
                succeeded=sum(bool(t.success) for t in ordered),
                errors=sum(t.error is not None for t in ordered),
                seconds=round(time.perf_counter() - started, 3),
                extra={} if path is None else {"results_file": str(path)},
            )
        )
    finally:
        for log_observer in logs:
            log_observer.close()
    if path is not None:
        settle_results_file(path)
    return EvaluationResult(ordered, results, resumed=len(finished), log_path=log_path)


def _task_list(
    environment: SegmentedEnvironment, num_tasks: int | None, task_indices: Sequence[int] | None
) -> list[int]:
    """The tasks to run, checked against the environment's range."""
    size = len(environment)
    if num_tasks is not None and task_indices is not None:
        raise ValueError("give num_tasks or task_indices, not both")
    if num_tasks is not None:
        if num_tasks <= 0:
            raise ValueError(f"num_tasks must be > 0, got {num_tasks}")
        if num_tasks > size:  # refused before the range is made, however large
            raise TaskIndexError(num_tasks - 1, size)
        tasks = list(range(num_tasks))
    elif task_indices is not None:
        tasks = list(task_indices)
    else:
        tasks = list(range(size))
    for index in tasks:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < size:
            raise TaskIndexError(index, size)
    if len(set(tasks)) != len(tasks):
        raise ValueError(f"task_indices holds a task twice: {tasks}")
    return tasks


def settle_results_file(path: str | os.PathLike[str]) -> Path | None:
    r"""Tidy a results file: the last trace of each task, in task order; bad lines set aside.

    Under the file's lock (so no append of another writer is lost), the file is read again;
    its unreadable lines (a torn last line of a killed append, say) are appended to
    ``<name>.skipped.jsonl`` beside it, with a warning, and the file is rewritten atomically
    with one trace per task. A file that is already tidy is left untouched. Temporary files a
    killed rewrite left are removed. Running it again after a crash at any point is safe: a
    line already set aside is not set aside twice. Returns the skipped file when lines went
    there, else None.

    Example:
        >>> import tempfile, os
        >>> from llenvs.traces.files._writer import write_traces
        >>> from llenvs.traces.files._reader import read_traces
        >>> path = os.path.join(tempfile.mkdtemp(), "results.jsonl")
        >>> tasks = [Trace(task=TaskRecord("e", "a", {}, i, "q"), response="", segments=())
        ...          for i in (1, 0, 1)]
        >>> _ = write_traces(path, tasks)
        >>> settle_results_file(path) is None
        True
        >>> [t.task.task_index for t in read_traces(path)]
        [0, 1]

    """
    target = Path(path)
    with file_lock(target):
        remove_leftover_temporaries(target)
        if not target.exists():
            return None
        reader = TraceReader(target)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reported below, once, with where they went
            found = [trace for _, trace in reader.numbered()]
        by_task = {trace.task.task_index: trace for trace in found}
        order = sorted(by_task)
        if not reader.skipped and [t.task.task_index for t in found] == order:
            return None
        kept = set_aside_lines(target, reader.skipped)
        if kept is not None:
            count = len(reader.skipped)
            warnings.warn(
                f"{target}: {count} unreadable line{'' if count == 1 else 's'} moved out of the "
                f"results file, appended to {kept}",
                stacklevel=2,
            )
        write_traces(target, (by_task[i] for i in order))
        return kept


def _task_source(environment: SegmentedEnvironment, tasks: Sequence[int]) -> TaskSource | None:
    """The source of the run's tasks; None when its options are not plain JSON values."""
    spec = environment.spec
    try:
        return TaskSource.parse(
            spec.name, adapter=spec.adapter, tasks=spell_tasks(tasks), **dict(spec.kwargs)
        )
    except ValueError:
        return None  # the task record of each trace still holds them


def _finished_traces(
    path: Path, environment: SegmentedEnvironment, backend: ModelBackend
) -> dict[int, Trace]:
    """The traces of an earlier run in ``path`` by task (unreadable lines are skipped).

    The last trace of a task wins; every trace is checked to come from the same run.
    """
    if not path.exists():
        return {}
    spec = environment.spec
    wanted = (spec.name, spec.adapter, dict(spec.kwargs), environment.segmenter.spec, backend.name)
    traces: dict[int, Trace] = {}
    reader = TraceReader(path)
    for trace in reader:
        task = trace.task
        run = trace.run
        found = (
            task.environment,
            task.adapter,
            dict(task.adapter_kwargs),
            None if run.spec.segmenter is None else run.spec.segmenter.text,
            run.model_name,
        )
        if found != wanted:
            raise ValueError(
                f"{path}: the results file holds traces of another run (environment, adapter, "
                f"options, segmenter, model = {found}); this evaluation is {wanted}. Give "
                "another results file to start afresh"
            )
        traces[task.task_index] = trace
    return traces


def _log_path(config: LogConfig, environment: SegmentedEnvironment) -> Path:
    """The event file of a run: ``<directory>/<run name>.jsonl``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    name = config.run_name or f"{stamp}-{environment.spec.name}"
    return config.directory / f"{name}.jsonl"


def _logs(config: LogConfig, log_path: Path | None) -> list[ConsoleProgress | JsonlEventLog]:
    """The observers ``config`` asks for (closed when the run ends)."""
    logs: list[ConsoleProgress | JsonlEventLog] = []
    if "console" in config.targets:
        logs.append(ConsoleProgress())
    if log_path is not None:
        logs.append(JsonlEventLog(log_path))
    return logs


def progress_observer(callback: ProgressCallback) -> RunObserver:
    """An observer calling ``callback(finished, total)`` as an evaluation's trajectories end.

    It reads ``RunStarted`` (the total, and tasks a results file already had: reported at once
    when there are some) and each ``TrajectoryOver`` (ended or errored).

    Example:
        >>> from llenvs.evaluation.episodes._events import TrajectoryEnded
        >>> seen = []
        >>> observe = progress_observer(lambda done, total: seen.append((done, total)))
        >>> observe(RunStarted("leg_counting", "scripted", "sentence", (0, 1, 2), resumed=1))
        >>> observe(TrajectoryEnded(2, TrajectoryResult(Trajectory(), success=True)))
        >>> seen
        [(1, 3), (2, 3)]

    """
    done = total = 0

    def observe(event: RunEvent) -> None:
        nonlocal done, total
        if isinstance(event, RunStarted):
            done, total = event.resumed, len(event.task_indices)
            if done:
                callback(done, total)
        elif isinstance(event, TrajectoryOver):
            done += 1
            callback(done, total)

    return observe
