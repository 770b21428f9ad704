"""The suite's root: the two tiers (``tests/tiers.py``) apply to the tests and the doctests.

No test may reach a model hub (this project's machines have none): the Hugging Face libraries
are told so before any of them is imported, so a name that is not a local folder fails at once
instead of after the hub's retries.
"""

import os

for _variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_variable, "1")

pytest_plugins = ["tests.tiers", "pytester"]
