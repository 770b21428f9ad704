import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

HEAVY = ["torch", "transformers", "streamlit", "openai", "plotly", "pandas"]
LAYERS = [
    "llenvs.adapters",
    "llenvs.inference",
    "llenvs.evaluation",
    "llenvs.traces",
    "llenvs.rewards",
    "llenvs.ui",
    "llenvs.cli",
]


def test_importing_core_imports_no_heavy_library_and_no_upper_layer():
    code = "import sys, json; import llenvs.core; print(json.dumps(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    modules = set(__import__("json").loads(out.stdout))
    assert "llenvs.core" in modules
    assert not [m for m in HEAVY if m in modules]
    assert not [
        m for m in modules if any(m == layer or m.startswith(layer + ".") for layer in LAYERS)
    ]


def test_the_commands_help_imports_no_model_library():
    """``llenvs --help`` answers at once: the faces it imports load neither torch nor
    transformers (the backends import them in their factories)."""
    code = (
        "import sys, json\n"
        "from llenvs.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    modules = set(__import__("json").loads(out.stdout.splitlines()[-1]))
    assert "llenvs.cli.main" in modules
    assert not [m for m in ("torch", "transformers", "streamlit") if m in modules]
