"""The workbench's logic: view models, cached loaders, filters, plots and session keys.

The Streamlit pages (``app.py``, ``pages/``) stay thin and call these helpers. Modules that need
Streamlit import it themselves; the rest (view models, filters, figures) work without it.

The workbench composes the layers below it: importing ``llenvs.analysis`` here registers the
``mc`` PRM (``MonteCarloPRM``) with ``get_prm``, so the workbench's jobs can make it.
"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
