"""The suite's root: the two tiers (``tests/tiers.py``) apply to the tests and the doctests.

No test may reach a model hub (this project's machines have none): the Hugging Face libraries
are told so before any of them is imported, so a name that is not a local folder fails at once
instead of after the hub's retries.
"""

import importlib
import os

import pytest

for _variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_variable, "1")

pytest_plugins = ["tests.tiers", "pytester"]

DOCTEST_NAMES = {
    "environment_registry": "llenvs.core.registry",
    "SegmentedEnvironment": "llenvs.core",
    "SamplingParams": "llenvs.core.backend",
    "COMPLETE": "llenvs.core.intervention",
    "Trajectory": "llenvs.core.trajectory",
    "get_backend": "llenvs.inference",
    "TaskRecord": "llenvs.traces",
    "ArithmeticPRM": "llenvs.rewards",
    "replay_trace": "llenvs.evaluation.replay_trace",
    "main": "llenvs.cli.main",
}
"""Names every doctest has without importing them (``doctest_namespace``): the setup the
library's examples share, so that a docstring keeps only the line that shows its own call."""


@pytest.fixture(autouse=True)
def _doctest_names(request: pytest.FixtureRequest) -> None:
    if isinstance(request.node, pytest.DoctestItem):
        namespace = request.getfixturevalue("doctest_namespace")
        for name, module in DOCTEST_NAMES.items():
            namespace[name] = getattr(importlib.import_module(module), name)
