"""``rerun``: make a trace again from its record, and say whether it came back the same.

A trace records what produced it: the model, the sampling parameters and seed, the segmenter,
the answer opening, and, for a branch, its parent and intervention. ``rerun`` generates it again
from that record alone (a root trace: a resample of the whole response from its first segment;
a branch: ``rerun_branch`` on its parent) and compares the result with the record
(``ResponseDifference``). Greedy, or sampled with a recorded seed, on the same model and
precision, the two are identical; when they are not, the first segment that differs says where
the run parted from its record (another model, precision or llenvs version).

Example:
    >>> text = "Count. So 8. <answer>8</answer>"
    >>> recorded = leg_counting_trace(text)
    >>> rerun(recorded, get_backend("scripted", outputs=[text])).difference.describe()
    'identical: 2 segments, the same text'
    >>> rerun(recorded, get_backend("scripted", outputs=["Count. So 9."])).difference.describe()
    'differs from segment 1 on (character 10 of 31); 51% of the text in common'

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.core import ModelBackend, Resample, RunControl, SegmentedEnvironment
from llenvs.core.run_spec import ModelSpec
from llenvs.evaluation.branching._branch import branch, rerun_branch
from llenvs.evaluation.branching._branch_request import BranchRequest
from llenvs.evaluation.branching._trace_environment import trace_sampling_params
from llenvs.traces.records import ResponseDifference, Trace

__all__ = ["Rerun", "recorded_model", "rerun"]


@dataclass(frozen=True)
class Rerun:
    """A trace made again from its record, beside the record.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> Rerun(t, t, ResponseDifference.between(t, t)).identical
        True

    """

    recorded: Trace
    """The trace as its file holds it."""
    again: Trace
    """The trace made again from its record (not written anywhere)."""
    difference: ResponseDifference
    """How ``again`` differs from ``recorded`` (nothing, when identical)."""

    @property
    def identical(self) -> bool:
        """The same response, cut into the same segments."""
        return self.difference.identical

    def first_difference_lines(self) -> list[str]:
        """The first differing segment, as recorded and as made again (none when identical).

        Example:
            >>> from llenvs.traces import SegmentRecord, TaskRecord
            >>> a = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
            ...           segments=(SegmentRecord(0, 0, 2, "A."),))
            >>> b = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
            >>> Rerun(a, b, ResponseDifference.between(a, b)).first_difference_lines()
            ["segment 0 recorded: 'A.'", 'segment 0 now:      (none)']

        """
        at = self.difference.first_segment
        if at is None:
            return []
        shown = [
            repr(segments[at].text) if at < len(segments) else "(none)"
            for segments in (self.recorded.segments, self.again.segments)
        ]
        return [f"segment {at} recorded: {shown[0]}", f"segment {at} now:      {shown[1]}"]


def recorded_model(trace: Trace) -> ModelSpec:
    """The model a trace records (``run.spec.model``); a ``ValueError`` when it records none.

    Example:
        >>> from llenvs.core.run_spec import RunSpec
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> model = ModelSpec.parse("openai/smollm2", base_url="http://127.0.0.1:8000/v1")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=RunRecord(RunSpec(model=model)),
        ...           response="", segments=())
        >>> spec = recorded_model(t)
        >>> spec.provider.value, spec.model, spec.base_url
        ('openai', 'smollm2', 'http://127.0.0.1:8000/v1')
        >>> recorded_model(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()))
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: trace ... records no model (a given or imported text): it cannot be made again

    """
    model = trace.run.spec.model
    if model is None:
        unknown = trace.run.model_name
        what = (
            "no model (a given or imported text)"
            if unknown is None
            else (f"the model {unknown!r}, which names no backend")
        )
        raise ValueError(f"trace {trace.trace_id} records {what}: it cannot be made again")
    return model


def rerun(
    trace: Trace,
    backend: ModelBackend,
    *,
    parent: Trace | None = None,
    environment: SegmentedEnvironment | None = None,
    control: RunControl | None = None,
) -> Rerun:
    """``trace`` made again on ``backend`` from its record, compared with the record.

    A root trace is resampled from its first segment with its recorded sampling parameters
    and seed (the runner's defaults where it records none) and answer opening. A branch needs
    its ``parent`` (its file or sidecar holds it): it is made again with ``rerun_branch``.
    Nothing is written: the caller decides what to keep. ``control`` is
    ``branch``'s (the new segments as they come; a stop keeps what was made, truncated).

    Example:
        >>> from llenvs.traces import BranchRecord, TaskRecord
        >>> child = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(),
        ...               parent=BranchRecord("p" * 32, 0, COMPLETE))
        >>> rerun(child, object())
        Traceback (most recent call last):
        ...
        ValueError: the trace is a branch of pppppppppppppppppppppppppppppppp: give its parent to make it again

    """  # noqa: E501
    if trace.parent is not None:
        if parent is None:
            raise ValueError(
                f"the trace is a branch of {trace.parent.parent_id}: give its parent to make it "
                "again"
            )
        again = rerun_branch(trace, parent, backend, environment=environment, control=control)
    else:
        request = BranchRequest(trace, 0, Resample(1, trace_sampling_params(trace)))
        [again] = branch(
            request,
            backend,
            environment=environment,
            control=control,
        )
    return Rerun(trace, again, ResponseDifference.between(trace, again))
