import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

HEAVY = ["torch", "transformers", "streamlit", "openai", "plotly", "pandas"]
ABOVE = ["llenvs.evaluation", "llenvs.rewards", "llenvs.ui", "llenvs.cli", "llenvs.inference"]


def test_importing_traces_imports_no_heavy_library_and_no_layer_above():
    code = "import sys, json; import llenvs.traces; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    modules = set(json.loads(out.stdout))
    assert [m for m in HEAVY if m in modules] == []
    assert [m for m in modules if any(m == a or m.startswith(a + ".") for a in ABOVE)] == []
