"""The workbench's logic: view models, cached loaders, filters, plots and session keys.

The Streamlit pages (``app.py``, ``pages/``) stay thin and call these helpers. Modules that need
Streamlit import it themselves; the rest (view models, filters, figures) work without it.
"""
