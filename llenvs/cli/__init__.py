"""The ``llenvs`` command line: evaluate, replay, segment, intervene, import, export.

The command line composes the layers below it: importing ``llenvs.analysis`` here registers the
``mc`` PRM (``MonteCarloPRM``) with ``get_prm``, so ``--prm mc`` works in every command.

Example:
    >>> from llenvs.cli.main import build_parser
    >>> build_parser().prog
    'llenvs'

"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
