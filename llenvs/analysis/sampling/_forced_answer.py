"""The forced-answer curve: at each boundary, open the answer and read what the model says.

At boundary i the trace's first i segments are replayed, the environment's answer opening
(``<answer>`` for the question-answer adapters) is forced as the next segment, and the model
completes greedily with a short budget. The environment reads the answer and judges it: what
the model would answer if stopped there, right or wrong, at every position of the trace.

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> trace = replay_trace(env, 0, "So 100. <answer>100</answer>", model="scripted")
    >>> backend = get_backend("scripted", outputs=["<answer>8</answer>"])
    >>> [(a.boundary, a.answer, a.correct) for a in forced_answers(trace, backend, env)]
    [(0, '8', False), (1, '100', True)]

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.adapters import ANSWER_OPEN
from llenvs.analysis.sampling._final_answer import final_answer
from llenvs.analysis.sampling._params import AnalysisParams
from llenvs.analysis.sampling._rollout_engine import exact_outcome, sampled_boundaries
from llenvs.core import (
    RECORD,
    Count,
    Flag,
    ModelBackend,
    SamplingParams,
    SegmentedEnvironment,
    Text,
)
from llenvs.evaluation.episodes import ForceAction, SegmentedTrajectoryRunner, trace_prefix
from llenvs.traces.records import Trace

__all__ = ["ForcedAnswer", "forced_answers"]


@dataclass(frozen=True)
class ForcedAnswer:
    """The answer forced at one boundary.

    Example:
        >>> a = ForcedAnswer(2, "4", True, "4</answer>")
        >>> from llenvs.core import read_record, record_dict
        >>> read_record(ForcedAnswer, record_dict(a)) == a
        True

    """

    __pydantic_config__ = RECORD

    boundary: Count
    """Segments kept before the answer was forced."""
    answer: Text | None
    """The answer the environment read (None: none)."""
    correct: Flag
    """The environment's verdict on the response with the forced answer."""
    text: Text
    """What the model generated after the opening."""
    replayed: Flag = False
    """True at the end of an ended trace: its own answer, not a forced one."""


def forced_answers(
    trace: Trace,
    backend: ModelBackend,
    environment: SegmentedEnvironment,
    *,
    params: AnalysisParams | None = None,
    opening: str = ANSWER_OPEN,
    stop: tuple[str, ...] = (),
) -> list[ForcedAnswer]:
    """The forced answer at every boundary of ``trace`` (0..n), generated in one batch.

    Greedy, with ``params.forced_answer_tokens`` tokens each, ending at the environment's stop
    sequences and ``stop`` (an ``AnswerOpening``'s, such as a blank line). After the last
    segment of an ended trace nothing can be forced: that point carries the trace's own answer
    and verdict (``replayed``).

    """
    params = params or AnalysisParams()
    count = len(trace.segments)
    boundaries = sampled_boundaries(trace)
    ended = len(boundaries) == count
    greedy = SamplingParams(max_tokens=params.forced_answer_tokens, temperature=0.0, stop=stop)
    runner = SegmentedTrajectoryRunner(environment, backend, greedy)
    results = runner.run_batch(
        [trace.task.task_index] * len(boundaries),
        prefixes=[trace_prefix(trace, b) for b in boundaries],
        thens=[ForceAction(opening)] * len(boundaries),
    )
    answers = []
    for boundary, result in zip(boundaries, results, strict=True):
        prefix_text = "".join(s.text for s in trace.segments[:boundary])
        generated = result.text[len(prefix_text) + len(opening) :]
        answers.append(ForcedAnswer(boundary, final_answer(result), result.success, generated))
    if ended:
        success, answer = exact_outcome(trace, environment)
        answers.append(ForcedAnswer(count, answer, success, "", True))
    return answers
