"""Traces for the tests: a small hand-made one, and a hypothesis strategy for any valid one."""

from __future__ import annotations

from hypothesis import strategies as st

from llenvs.core import COMPLETE, Feedback, Force, Message, Resample, SamplingParams
from llenvs.core.run_spec import ModelSpec, RunSpec, SegmenterSpec
from llenvs.traces import (
    BranchRecord,
    RunRecord,
    SegmentFlag,
    SegmentRecord,
    TaskRecord,
    Trace,
)
from tests.core.test_spec import runs

TASK = TaskRecord(
    environment="leg_counting",
    adapter="reasoning_gym",
    adapter_kwargs={"size": 100, "seed": 42},
    task_index=0,
    prompt="How many legs?",
    system_prompt=None,
    expected_answer="100",
)


def make_trace(texts=("First. ", "Then 8. ", "<answer>8</answer>"), **changes) -> Trace:
    segments, offset = [], 0
    for index, text in enumerate(texts):
        segments.append(
            SegmentRecord(
                index=index,
                start=offset,
                end=offset + len(text),
                text=text,
                token_ids=(index, index + 1),
                logprobs=(-0.5, -1.25),
                rewards={"prm": 0.5, "correctness": 0.0} if index == len(texts) - 1 else {},
                prm_scores={"prm": 0.5},
                flags=frozenset({SegmentFlag.GENERATED}),
                terminal=index == len(texts) - 1,
            )
        )
        offset += len(text)
    values = dict(
        task=TASK,
        run=RunRecord(
            RunSpec(
                model=ModelSpec.parse("scripted"),
                segmenter=SegmenterSpec("sentence"),
                sampling=SamplingParams(seed=3),
            )
        ),
        messages=(Message("user", "How many legs?"), Message("assistant", "".join(texts))),
        response="".join(texts),
        segments=tuple(segments),
        final_rewards={"correctness": 0.0, "format": 1.0},
        success=False,
        metadata={"prefix_steps": 0, "notes": ["a", 1, None, True, 2.5, {"x": []}]},
    )
    values.update(changes)
    return Trace(**values)


texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
names = st.text("abcdefgh_", min_size=1, max_size=6)
finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
origins = st.sampled_from([SegmentFlag.GENERATED, SegmentFlag.FORCED, SegmentFlag.REPLAYED])
extras = st.sets(st.sampled_from([SegmentFlag.ONE_SHOT, SegmentFlag.FEEDBACK_AFTER]))


@st.composite
def segment_lists(draw):
    pieces = draw(st.lists(texts, max_size=5))
    segments, offset = [], 0
    for index, text in enumerate(pieces):
        ids = draw(st.none() | st.lists(st.integers(0, 2**31), max_size=4).map(tuple))
        logprobs = None
        if ids is not None and draw(st.booleans()):
            logprobs = tuple(draw(st.lists(finite, min_size=len(ids), max_size=len(ids))))
        segments.append(
            SegmentRecord(
                index=index,
                start=offset,
                end=offset + len(text),
                text=text,
                token_ids=ids,
                logprobs=logprobs,
                rewards=draw(st.dictionaries(names, finite, max_size=3)),
                prm_scores=draw(st.dictionaries(names, finite, max_size=2)),
                flags=frozenset({draw(origins), *draw(extras)}),
                terminal=draw(st.booleans()),
            )
        )
        offset += len(text)
    return tuple(segments)


def sampling_params():
    """Any valid ``SamplingParams`` whose values come back equal from JSON."""
    return st.builds(
        SamplingParams,
        max_tokens=st.integers(1, 131_072),
        temperature=st.floats(0, 2, allow_nan=False).map(lambda t: round(t, 3)),
        top_p=st.floats(0.01, 1).map(lambda p: round(p, 3)),
        top_k=st.none() | st.integers(1, 100),
        seed=st.none() | st.integers(0, 2**32 - 1),
        stop=st.lists(st.text(min_size=1, max_size=5), max_size=3).map(tuple),
        logprobs=st.booleans(),
    )


def interventions():
    """Any intervention: a force or feedback text, COMPLETE, or a resample set."""
    return st.one_of(
        st.builds(Force, st.text(min_size=1, max_size=40)),
        st.builds(Feedback, st.text(min_size=1, max_size=40).filter(str.strip)),
        st.just(COMPLETE),
        st.builds(Resample, st.integers(1, 16), st.none() | sampling_params()),
    )


@st.composite
def branches(draw):
    return BranchRecord(
        parent_id=draw(names),
        segment_index=draw(st.integers(0, 50)),
        intervention=draw(interventions()),
    )


@st.composite
def traces(draw):
    segments = draw(segment_lists())
    optional = st.none() | texts
    return Trace(
        trace_id=draw(names),
        created_at=draw(texts),
        task=TaskRecord(
            environment=draw(texts),
            adapter=draw(texts),
            adapter_kwargs=draw(st.dictionaries(texts, json_values, max_size=3)),
            task_index=draw(st.integers(0, 10**6)),
            prompt=draw(texts),
            system_prompt=draw(optional),
            expected_answer=draw(optional),
        ),
        run=RunRecord(
            spec=draw(runs),
            chat_template=draw(optional),
            system_prompt=draw(optional),
            library_version=draw(texts),
            unknown=draw(st.dictionaries(texts, json_values, max_size=3)),
        ),
        messages=tuple(
            Message(draw(st.sampled_from(["system", "user", "assistant"])), draw(texts))
            for _ in range(draw(st.integers(0, 3)))
        ),
        response="".join(s.text for s in segments),
        segments=segments,
        final_rewards=draw(st.dictionaries(names, finite, max_size=3)),
        success=draw(st.none() | st.booleans()),
        error=draw(optional),
        parent=draw(st.none() | branches()),
        metadata=draw(st.dictionaries(texts, json_values, max_size=3)),
    )
