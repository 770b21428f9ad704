"""The guide's "Example: AIME with Step Analysis", offline.

Departure (DESIGN.md): the guide loads ``HuggingFaceH4/aime_2024`` from the hub; there is no
network here, so the test writes a local JSONL file with the dataset's columns (``problem``,
``answer``, ...) and gives its path as the name. Everything else is the guide's code.
"""

from __future__ import annotations

import json
from pathlib import Path

from llenvs.core import PatternSegmenter, SegmentedEnvironment
from llenvs.core.registry import environment_registry

AIME_ROWS = [
    {
        "id": 60,
        "problem": "Find x such that x - 40 = 2.",
        "solution": "Adding 40 to both sides gives $x = 42$.",
        "answer": "42",
        "url": "https://example.invalid/aime/1",
        "year": "2024",
    },
    {
        "id": 61,
        "problem": "What is 6 times 7 plus 0?",
        "solution": "$6 \\cdot 7 = 42$.",
        "answer": "42",
        "url": "https://example.invalid/aime/2",
        "year": "2024",
    },
]


def test_aime_sample_with_a_local_file_gives_three_steps(tmp_path: Path) -> None:
    local = tmp_path / "aime_2024.jsonl"
    local.write_text("".join(json.dumps(row) + "\n" for row in AIME_ROWS), encoding="utf-8")
    name = str(local)  # the guide: name="HuggingFaceH4/aime_2024"

    # --- the guide's code ---
    base_env = environment_registry.get(name=name, adapter="huggingface")
    env = SegmentedEnvironment(base_env, PatternSegmenter())
    state, _ = env.reset(options={"task_index": 0})
    response = """Step 1: Identify the given information.
Step 2: Set up the equation.
Step 3: Solve for x = 42.
<answer>42</answer>"""
    results = env.replay(state, response)
    print(f"Number of reasoning steps: {len(results)}")
    # --- end of the guide's code ---

    assert len(results) == 3
    assert results[-1].terminated
    assert results[-1].rewards.as_dict() == {"correctness": 1.0, "format": 1.0}
    assert "".join(results[-1].next_state.hidden.segments) == response
