from dataclasses import replace

import pytest

from llenvs.adapters import QuestionAnswerEnvironment, Task
from llenvs.core import Action, EnvironmentCheckError, EnvSpec, Rewards, StepResult, check_env


class Sums(QuestionAnswerEnvironment):
    def __init__(self, **kwargs):
        super().__init__(EnvSpec("sums", "test"), **kwargs)

    def __len__(self):
        return 4

    def task(self, index):
        return Task(index, f"What is {index} + {index}?", str(2 * index))

    def score(self, answer, task):
        return float(answer == task.answer)


class NoRangeCheck(Sums):
    def reset(self, *, seed=None, options=None):
        options = dict(options or {})
        options["task_index"] = options.get("task_index", 0) % len(self)
        return super().reset(seed=seed, options=options)


class NeverTerminal(Sums):
    def step(self, state, action):
        result = super().step(state, action)
        return replace(result, terminated=False)


class StepsAgain(Sums):
    def step(self, state, action):
        result = super().step(
            replace(state, metadata=replace(state.metadata, is_terminal=False)), action
        )
        return result


class OutcomeEveryStep(Sums):
    def step(self, state, action):
        return StepResult(state, Rewards(), terminated=True)


def test_a_good_environment_passes():
    check_env(Sums())


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (NoRangeCheck(), "did not raise TaskIndexError"),
        (NeverTerminal(), "did not end"),
        (StepsAgain(), "did not raise TerminalStateError"),
        (OutcomeEveryStep(), "advance metadata.step"),
        (object(), "missing member"),
    ],
)
def test_broken_environments_are_named(env, message):
    with pytest.raises(EnvironmentCheckError, match=message):
        check_env(env)


def test_duplicate_reward_names_fail():
    env = Sums()
    env._reward_functions = (*env.reward_functions, env.reward_functions[0])
    with pytest.raises(EnvironmentCheckError, match="names repeat"):
        check_env(env)


def test_step_must_leave_its_state_alone():
    class Mutating(Sums):
        def step(self, state, action):
            state.metadata.__dict__["step"] = 99
            return super().step(state, action)

    with pytest.raises(EnvironmentCheckError):
        check_env(Mutating())


def test_probe_can_be_chosen():
    check_env(Sums(), probe="<answer>0</answer>")
    assert Sums().step(Sums().reset(options={"task_index": 0})[0], Action("0")).terminated
