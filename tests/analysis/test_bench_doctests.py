"""The analysis benchmarks' helpers keep working examples: their doctests run with the suite.

The scripts under ``bench/`` are outside the test paths (they are run, not imported); the
helpers the step-analysis figures rest on (the truth's moves, the calls file, calibration, the
first drop) are checked here, each module loaded as its script loads it.
"""

from __future__ import annotations

import doctest
import importlib.util
import sys

import pytest

from tests.conftest import REPO

BENCH = REPO / "bench"
MODULES = ("curve_scores", "first_drop", "calibration", "fitted_priors")


@pytest.mark.parametrize("name", MODULES)
def test_the_helpers_examples_hold(name):
    sys.path.insert(0, str(BENCH))  # the scripts import their siblings (bench_common)
    loaded = f"bench_examples_{name}"
    try:
        spec = importlib.util.spec_from_file_location(loaded, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[loaded] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    finally:
        sys.path.remove(str(BENCH))
        sys.modules.pop(loaded, None)
    assert attempted > 0, f"bench/{name}.py has no examples"
    assert failed == 0, f"{failed} of bench/{name}.py's {attempted} examples failed"
