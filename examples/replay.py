"""The guide's replay example, run as written, then with the right answer for task 0.

Run it with `.venv/bin/python examples/replay.py` from the repository root (after `make
install`). The guide's text answers 8, but task 0 of leg_counting (size 100,
seed 42) asks about 3 sea slugs, 12 deer, 2 giraffes and 11 elephants, whose answer is 100. So
its terminal reward is 1.0 (correctness 0 + format 1), not the guide's 2.0; with
<answer>100</answer> it is 2.0 (correctness 1 + format 1).
"""

from llenvs.core import SegmentedEnvironment, SentenceSegmenter
from llenvs.core.registry import environment_registry

# Create single-step environment
base_env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)

# Wrap with segmentation
env = SegmentedEnvironment(base_env, SentenceSegmenter())

# Reset (same as base env)
state, _ = env.reset(options={"task_index": 0})
print(state.observation.prompt.split("\n\n")[1])

# Model generates full response
full_response = """First, count the animals. There are 2 dogs.
Dogs have 4 legs each. So 2 × 4 = 8. <answer>8</answer>"""

for label, response in [
    ("the guide's response (answers 8)", full_response),
    ("the right answer", full_response.replace("<answer>8</answer>", "<answer>100</answer>")),
]:
    print(f"\n{label}:")
    # Replay to get per-step results
    results = env.replay(state, response)
    for i, result in enumerate(results):
        print(f"Step {i}: terminal={result.terminated}, reward={result.rewards.total}")
    print(f"  terminal rewards: {results[-1].rewards.as_dict()}")
