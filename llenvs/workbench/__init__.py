"""What the workbench does, without Streamlit: its jobs, models, files and view models.

Jobs and their queue, the model pool, trace files and their index, settings, and the view
models and chart specs the pages draw.

``llenvs.ui`` draws these with Streamlit; the CLI uses some of them too (``trace_scoring``).
Importing ``llenvs.analysis`` here registers the ``mc`` PRM (``MonteCarloPRM``) with
``get_prm``, so the workbench's jobs can make it.
"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
