"""The ``llenvs`` command line: evaluate, replay, segment, intervene, import, export.

Example:
    >>> from llenvs.cli.main import build_parser
    >>> build_parser().prog
    'llenvs'

"""
