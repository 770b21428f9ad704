"""``quiet_transformers``: load a transformers model without its progress bars and notes.

Example:
    >>> with quiet_transformers():
    ...     pass

"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["quiet_transformers"]


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Within: no transformers progress bars and only its errors logged; as before after.

    Example:
        >>> from transformers.utils import logging
        >>> with quiet_transformers():
        ...     logging.is_progress_bar_enabled()
        False

    """
    from transformers.utils import logging as transformers_logging

    logging: Any = transformers_logging  # its switches are untyped
    bars, verbosity = logging.is_progress_bar_enabled(), logging.get_verbosity()
    logging.disable_progress_bar()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()
