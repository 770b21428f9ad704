"""The table ``llenvs analyze`` prints of a ``StepAnalysis``: one row per segment, then the end.

Each row: the value ``v_i`` before the segment with its 95% interval and rollouts, the step's
importance ``v_{i+1} - v_i`` with its interval, its chance of having moved the value, the answer
shift (JS), the forced answer, and the segment's first characters. ``llenvs analyze`` prints it
after sampling, and ``--budget 0`` for every stored source, with the same verdicts the
workbench's step-values panel shows (``StepAnalysis.top_steps``).
"""

from __future__ import annotations

from llenvs.analysis import ContentReturns, StepAnalysis
from llenvs.traces import Trace

__all__ = ["analysis_table"]


def _one_line(answer: str | None) -> str:
    """An answer on one line (its whitespace runs as single spaces); a dash for none."""
    return "—" if answer is None else " ".join(answer.split()) or "''"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def analysis_table(
    trace: Trace, analysis: StepAnalysis, returns: ContentReturns | None = None
) -> str:
    """One row per segment (its value before it, its importance, its forced answer), then the end.

    With ``returns`` (``content_returns``), two more columns: the share of the step's rollouts
    in which its content came back (``back``), and its importance measured only on the rollouts
    where it did not (``w/o return``).

    Example:
        >>> from llenvs.analysis import StepAnalysis
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> print(analysis_table(t, StepAnalysis("t", {}, (), (), None, ())))
        seg  v_i [95% CI]             n  importance [95% CI]      moved JS    forced     text

    """
    forced = {a.boundary: a for a in analysis.forced_answers or ()}
    importances = {s.step: s for s in analysis.importances}
    came_back = {} if returns is None else returns.by_step()
    extra = "" if returns is None else f"{'back':<5} {'w/o return':<10} "
    lines = [
        f"{'seg':<4} {'v_i [95% CI]':<22} {'n':>3}  {'importance [95% CI]':<24} {'moved':<5} "
        f"{'JS':<5} {extra}"
        f"{'forced':<10} text"
    ]
    for value in analysis.values:
        boundary = value.boundary
        shown = (
            f"{_rate(value.value)} (exact)"
            if value.exact
            else f"{_rate(value.value)} [{value.interval.low:.2f}, {value.interval.high:.2f}]"
        )
        step = importances.get(boundary)
        if step is None or step.importance is None:
            importance = ""
        else:
            importance = (
                f"{step.importance:+.2f} [{step.interval.low:+.2f}, {step.interval.high:+.2f}]"
            )
        divergence = "" if step is None or step.divergence is None else f"{step.divergence:.2f}"
        moved = analysis.moved.get(boundary)
        chance = "" if moved is None else f"{moved:.2f}"
        answer = forced.get(boundary)
        verdict = (
            ""
            if answer is None
            else f"{_one_line(answer.answer)[:8]} {'✓' if answer.correct else '✗'}"
        )
        if returns is not None:
            back = came_back.get(boundary)
            share = "" if back is None else f"{back.share:.2f}"
            without = "" if back is None or back.importance is None else f"{back.importance:+.2f}"
            divergence = f"{divergence:<5} {share:<5} {without:<10}"
        if boundary < len(trace.segments):
            label, text = str(boundary), repr(trace.segments[boundary].text[:40])
        else:
            label, text = "end", "(after the last segment)"
        lines.append(
            f"{label:<4} {shown:<22} {value.trials:>3}  {importance:<24} {chance:<5} "
            f"{divergence:<5} {verdict:<10} {text}"
        )
    return "\n".join(line.rstrip() for line in lines)
