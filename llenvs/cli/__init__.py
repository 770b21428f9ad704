"""The ``llenvs`` command line: evaluate, replay, segment, intervene, import, export.

The command line composes the layers below it: importing ``llenvs.analysis`` here registers the
``mc`` PRM (``MonteCarloPRM``) with ``get_prm``, so ``--prm mc`` works in every command.

Example:
    >>> from llenvs.cli.main import build_parser
    >>> build_parser().prog
    'llenvs'

"""

import llenvs.analysis  # noqa: F401  (registers the "mc" PRM with get_prm)
from llenvs.cli._model_options import build_backend
from llenvs.cli._server_options import add_server_options, server_options

__all__ = [
    "add_server_options",
    "build_backend",
    "server_options",
]
