import pytest

from llenvs.adapters.reasoning_gym import (
    REASONING_GYM_INSTRUCTION,
    ReasoningGymEnvironment,
    dataset_names,
)
from llenvs.core import (
    Action,
    RewardType,
    TaskIndexError,
    TerminalStateError,
    UnknownName,
    check_env,
)
from llenvs.core.registry import environment_registry


def test_prompt_is_question_then_instruction(leg_counting):
    state, info = leg_counting.reset(options={"task_index": 0})
    question = leg_counting.task(0).question
    assert state.observation.prompt == question.rstrip() + "\n\n" + REASONING_GYM_INSTRUCTION
    assert "<answer>" in state.observation.prompt
    assert info == {"task_index": 0}
    assert leg_counting.task(0).answer == "100"


def test_instruction_and_system_prompt_are_overridable():
    env = ReasoningGymEnvironment(
        "leg_counting", size=2, seed=1, instruction="Answer in tags.", system_prompt="Be brief."
    )
    state, _ = env.reset(options={"task_index": 1})
    assert state.observation.prompt.endswith("\n\nAnswer in tags.")
    assert state.observation.system_prompt == "Be brief."


def test_default_rewards_and_their_types(leg_counting):
    assert [(f.name, f.reward_type) for f in leg_counting.reward_functions] == [
        ("correctness", RewardType.OUTCOME),
        ("format", RewardType.FORMAT),
    ]


@pytest.mark.parametrize(
    ("response", "correctness", "format_"),
    [
        ("So 100. <answer>100</answer>", 1.0, 1.0),
        ("<answer> 100 </answer>", 1.0, 1.0),  # stripped before score_answer (else 0.6)
        ("<answer>8</answer>", 0.0, 1.0),
        ("The answer is \\boxed{100}.", 1.0, 0.0),
        ("<answer>100", 1.0, 0.0),
        ("I don't know.", 0.0, 0.0),
    ],
)
def test_step_scores_the_whole_response(leg_counting, response, correctness, format_):
    state, _ = leg_counting.reset(options={"task_index": 0})
    result = leg_counting.step(state, Action(response))
    assert result.terminated and result.next_state.metadata.is_terminal
    assert result.rewards.as_dict() == {"correctness": correctness, "format": format_}
    assert result.rewards["correctness"].metadata["expected_answer"] == "100"
    with pytest.raises(TerminalStateError):
        leg_counting.step(result.next_state, Action("more"))


def test_completion_is_a_closing_answer_tag(leg_counting):
    assert leg_counting.is_complete("x <answer>3</answer>")
    assert not leg_counting.is_complete("x <answer>3")
    assert leg_counting.spec.stop_sequences == ("</answer>",)


def test_task_index_out_of_range_gives_the_range(leg_counting):
    with pytest.raises(TaskIndexError, match=r"100 tasks \(0..99\)"):
        leg_counting.reset(options={"task_index": 100})
    with pytest.raises(TaskIndexError):
        leg_counting.reset(options={"task_index": -1})
    with pytest.raises(TypeError, match="must be an int"):
        leg_counting.reset(options={"task_index": "0"})
    with pytest.raises(ValueError, match="valid options are task_index"):
        leg_counting.reset(options={"task": 0})


def test_seeded_reset_draws_a_reproducible_task(leg_counting):
    first = leg_counting.reset(seed=3)[0].metadata.task_index
    assert leg_counting.reset(seed=3)[0].metadata.task_index == first
    assert len({leg_counting.reset(seed=s)[0].metadata.task_index for s in range(20)}) > 1


def test_unknown_dataset_lists_the_datasets():
    with pytest.raises(UnknownName, match="leg_counting") as caught:
        environment_registry.get(name="leg_countin", adapter="reasoning_gym")
    assert caught.value.choices == dataset_names()


def test_bad_dataset_options_name_the_dataset():
    with pytest.raises(ValueError, match="size must be a positive int"):
        ReasoningGymEnvironment("leg_counting", size=0)
    with pytest.raises(ValueError, match="leg_counting"):
        ReasoningGymEnvironment("leg_counting", size=3, min_animals=5, max_animals=1)


@pytest.mark.parametrize("name", ["leg_counting", "basic_arithmetic", "chain_sum", "gsm_symbolic"])
def test_any_dataset_passes_check_env(name):
    check_env(environment_registry.get(name=name, adapter="reasoning_gym", size=5, seed=0))


def test_spec_rebuilds_the_environment(leg_counting):
    spec = leg_counting.spec
    again = environment_registry.get(name=spec.name, adapter=spec.adapter, **spec.kwargs)
    assert (
        again.reset(options={"task_index": 7})[0]
        == leg_counting.reset(options={"task_index": 7})[0]
    )
