"""The guide's "Manual generation-time control" loop, run as written with a backend as ``model``.

DESIGN.md's departures table: the guide calls ``model.generate_until`` on an unnamed object; here
``model`` is a backend (the scripted one), whose ``generate_until`` returns one segment per call.
"""

from llenvs.core import Action, SegmentedEnvironment, SentenceSegmenter
from llenvs.inference import get_backend

SCRIPT = (
    "First, count the animals. There are 3 sea slugs, 12 deer, 2 giraffes and 11 elephants. "
    "Sea slugs have no legs. The others have 4 legs each, so 25 × 4 = 100. <answer>100</answer>"
)


def _manual_loop(base_env, some_quality_check):
    model = get_backend("scripted", outputs=[SCRIPT])
    steps = []
    # --- the guide's code, verbatim ---
    env = SegmentedEnvironment(base_env, SentenceSegmenter())
    state, _ = env.reset(options={"task_index": 0})

    accumulated = ""
    while not state.metadata.is_terminal:
        # Generate until next segment boundary
        partial = model.generate_until(
            state.observation.prompt + accumulated,
            stop_at=env.segmenter.find_boundary,
        )

        result = env.step(state, Action(text=partial))
        accumulated += partial
        state = result.next_state
        steps.append(result)

        # Can intervene here: branch, stop early, adjust generation
        if some_quality_check(result):
            break

    # Finalize when done generating
    result = env.finalize(state)
    print(f"Final reward: {result.rewards.total}")
    return env, state, accumulated, steps, result


def test_the_loop_runs_to_the_answer_and_matches_replay(leg_counting, capsys):
    env, state, accumulated, steps, final = _manual_loop(leg_counting, lambda result: False)
    assert accumulated == SCRIPT and state.metadata.is_terminal
    assert capsys.readouterr().out == "Final reward: 2.0\n"
    assert final.rewards.as_dict() == {"correctness": 1.0, "format": 1.0}
    start, _ = env.reset(options={"task_index": 0})
    replayed = env.replay(start, SCRIPT)
    assert [r.next_state.hidden.segments for r in steps] == [
        r.next_state.hidden.segments for r in replayed
    ]
    assert [r.rewards for r in steps] == [r.rewards for r in replayed]


def test_breaking_early_then_finalize_ends_the_episode(leg_counting):
    _, state, accumulated, steps, final = _manual_loop(
        leg_counting, lambda result: result.info["segment_index"] == 2
    )
    assert len(steps) == 2 and not state.metadata.is_terminal
    assert accumulated == "".join(SentenceSegmenter().pieces(SCRIPT)[:2])
    assert final.terminated
    assert final.rewards.as_dict() == {"correctness": 0.0, "format": 0.0}


def test_generate_until_keeps_the_overshoot_and_follows_a_forced_text():
    model = get_backend("scripted", outputs=["One. Two. Three. Four.", "Other."])
    find = SentenceSegmenter().find_boundary
    first = model.generate_until("Q", stop_at=find)
    assert first == "One. "
    # the caller forces its own segment: the turn goes on from that text, overshoot dropped
    forced = model.generate_until("Q" + first + "Yes. ", stop_at=find)
    # the scripted backend resumes its script at the character offset of the turn's text
    assert forced == "Three. "
    # a text that is not this turn's starts a new turn (the next script)
    assert model.generate_until("Another question", stop_at=find) == "Other."
