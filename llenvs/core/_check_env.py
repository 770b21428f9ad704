"""``check_env``: test any environment or wrapper against the environment contract.

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
    >>> check_env(base)
    >>> check_env(SegmentedEnvironment(base, "steps"))

"""

from __future__ import annotations

import copy
from typing import Any

from llenvs.core._action import Action
from llenvs.core._environment import Environment, EnvSpec
from llenvs.core._reward_function import RewardFunction
from llenvs.core._segmented_hidden import SegmentedHidden
from llenvs.core._signal import Rewards, RewardType
from llenvs.core._state import State
from llenvs.core._step_result import StepResult
from llenvs.core.errors import EnvironmentCheckError, TaskIndexError, TerminalStateError

__all__ = ["DEFAULT_PROBE", "check_env"]

DEFAULT_PROBE = "First, read the question. Then think.\n\nSo the answer is 0. <answer>0</answer>"
"""The response ``check_env`` steps through an environment."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise EnvironmentCheckError(message)


def check_env(env: Any, *, probe: str = DEFAULT_PROBE) -> None:
    """Raise ``EnvironmentCheckError`` naming the first broken rule of the contract.

    It checks the protocol's members, the reward functions, reset (task choice, range errors,
    determinism), that step leaves its state unchanged, that an episode driven with ``probe``
    ends in a terminal step whose rewards route by type, and that a terminal state refuses
    another step. Segmented environments are also replayed, segment by segment, losslessly.
    """
    missing = [
        m
        for m in ("spec", "reward_functions", "reset", "step", "is_complete", "__len__")
        if not hasattr(env, m)
    ]
    _require(not missing, f"missing member(s) of the Environment protocol: {', '.join(missing)}")
    _require(isinstance(env, Environment), "not an Environment")
    size = len(env)
    _require(isinstance(size, int) and size > 0, f"len(env) must be a positive int, got {size!r}")
    _require(isinstance(env.spec, EnvSpec), f"spec must be an EnvSpec, got {env.spec!r}")
    _check_reward_functions(env.reward_functions)

    state, info = env.reset(options={"task_index": 0})
    _check_reset_state(state, info, 0)
    again, _ = env.reset(options={"task_index": 0})
    _require(again == state, "reset(task_index=0) twice gave different states")
    last, _ = env.reset(options={"task_index": size - 1})
    _check_reset_state(last, {}, size - 1)
    for bad in (size, -1):
        try:
            env.reset(options={"task_index": bad})
        except TaskIndexError:
            pass
        else:
            raise EnvironmentCheckError(f"reset(task_index={bad}) did not raise TaskIndexError")
    seeded = [env.reset(seed=7)[0] for _ in range(2)]
    _require(seeded[0] == seeded[1], "reset(seed=7) twice gave different states")
    _require(isinstance(env.is_complete(probe), bool), "is_complete must return a bool")

    before = copy.deepcopy(state)
    results = _drive(env, state, probe)
    _require(state == before, "step changed the state it was given")
    _check_episode(env, results, probe)
    if hasattr(env, "replay"):
        replayed = env.replay(state, probe)
        _check_episode(env, replayed, probe)
        hidden = replayed[-1].next_state.hidden
        _require(isinstance(hidden, SegmentedHidden), "replay must give segmented states")
        _require(
            list(hidden.segments) == env.segmenter.pieces(probe),
            "replay's segments differ from the segmenter's pieces",
        )


def _check_reward_functions(functions: Any) -> None:
    _require(isinstance(functions, tuple), "reward_functions must be a tuple")
    for function in functions:
        _require(isinstance(function, RewardFunction), f"{function!r} is not a RewardFunction")
        _require(
            isinstance(function.name, str) and bool(function.name), f"{function!r} has no name"
        )
        _require(
            isinstance(function.reward_type, RewardType),
            f"{function.name} has reward_type {function.reward_type!r}, not a RewardType",
        )
    names = [f.name for f in functions]
    _require(len(set(names)) == len(names), f"reward function names repeat: {names}")


def _check_reset_state(state: Any, info: Any, index: int) -> None:
    _require(isinstance(state, State), f"reset must return (State, dict), got {state!r}")
    _require(isinstance(info, dict), f"reset's info must be a dict, got {info!r}")
    _require(
        isinstance(state.observation.prompt, str) and bool(state.observation.prompt),
        "the observation's prompt must be a non-empty string",
    )
    metadata = state.metadata
    _require(
        metadata.task_index == index,
        f"reset(task_index={index}) gave a state of task {metadata.task_index}",
    )
    _require(
        not metadata.is_terminal and metadata.step == 0,
        "a reset state must be step 0 and not terminal",
    )


def _drive(env: Any, state: State[Any], probe: str) -> list[StepResult[Any]]:
    """Step ``probe`` through ``env``: whole, or segment by segment when it is segmented."""
    segmenter = getattr(env, "segmenter", None)
    pieces = segmenter.pieces(probe) if segmenter is not None else [probe]
    results: list[StepResult[Any]] = []
    for number, piece in enumerate(pieces, start=1):
        result = env.step(state, Action(piece, final=number == len(pieces)))
        _require(isinstance(result, StepResult), f"step must return a StepResult: {result!r}")
        _require(isinstance(result.rewards, Rewards), "step's rewards must be a Rewards bundle")
        _require(
            result.next_state.metadata.step == state.metadata.step + 1,
            "step must advance metadata.step by one",
        )
        results.append(result)
        state = result.next_state
        if result.terminated:
            break
    return results


def _check_episode(env: Any, results: list[StepResult[Any]], probe: str) -> None:
    _require(bool(results), "no step was taken")
    *middle, final = results
    _require(
        final.terminated and final.next_state.metadata.is_terminal,
        "the episode did not end on its last step",
    )
    _require(not any(r.terminated for r in middle), "a step before the last was terminal")
    names = {f.name for f in env.reward_functions}
    per_step = {f.name for f in env.reward_functions if f.reward_type.per_step}
    for result in middle:
        _require(
            set(result.rewards.names) <= per_step,
            f"a non-terminal step carries outcome or format rewards: {result.rewards.names}",
        )
    _require(
        set(final.rewards.names) == names,
        f"the terminal step's rewards {final.rewards.names} are not {sorted(names)}",
    )
    hidden = final.next_state.hidden
    if isinstance(hidden, SegmentedHidden):
        _require(hidden.accumulated_text == probe, "accumulated_text lost or changed text")
        for number, result in enumerate(results, start=1):
            _require(
                result.info.get("segment_index") == number,
                f"info['segment_index'] of step {number} is {result.info.get('segment_index')!r}",
            )
    try:
        env.step(final.next_state, Action("more"))
    except TerminalStateError:
        pass
    else:
        raise EnvironmentCheckError("stepping a terminal state did not raise TerminalStateError")
