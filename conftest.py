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

# pytest-xdist's workers share the machine's cores: each worker's torch (and the servers and CLIs
# it starts, which inherit the variable) gets its share of them instead of every worker starting
# a thread per core, which on two cores and two workers made a model call several times slower.
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _workers > 1:
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _workers)))

pytest_plugins = ["tests.tiers", "pytester"]

DOCTEST_NAMES = {
    "environment_registry": "llenvs.core.registry",
    "SegmentedEnvironment": "llenvs.core",
    "SamplingParams": "llenvs.core._backend",
    "COMPLETE": "llenvs.core._intervention",
    "Trajectory": "llenvs.core._trajectory",
    "get_backend": "llenvs.inference",
    "TaskRecord": "llenvs.traces",
    "ArithmeticPRM": "llenvs.rewards",
    "replay_trace": "llenvs.evaluation.branching._replay_trace",
    "leg_counting_trace": "tests.helpers",
    "main": "llenvs.cli.main",
    "build_parser": "llenvs.cli.main",
}
"""Names every doctest has without importing them (``doctest_namespace``): the setup the
library's examples share, so that a docstring keeps only the line that shows its own call."""


@pytest.fixture(autouse=True)
def _doctest_names(request: pytest.FixtureRequest) -> None:
    if isinstance(request.node, pytest.DoctestItem):
        namespace = request.getfixturevalue("doctest_namespace")
        for name, module in DOCTEST_NAMES.items():
            namespace[name] = getattr(importlib.import_module(module), name)
