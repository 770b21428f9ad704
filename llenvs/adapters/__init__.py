"""Environments by adapter: reasoning-gym datasets (and, later, hub and local datasets).

Adapters are imported lazily by ``llenvs.core.registry``; import them directly only to use
their classes.

Example:
    >>> from llenvs.adapters.answers import extract_answer
    >>> extract_answer("<answer>7</answer>")
    '7'

"""
