"""Named moments of a write where a test can make the process SIGKILL itself (fault injection).

The writers call ``crash_point(name)`` at the moments a crash matters: ``append:torn`` (an
append that wrote half its line), ``append:after`` (a line appended and synced),
``replace:before-rename`` (a temporary file written, not yet renamed), ``replace:after-rename``
and ``aside:after`` (unreadable lines set aside, the file not yet rewritten). Nothing happens
unless the environment variable ``LLENVS_CRASH_AT`` is ``<name>:<k>``: the k-th time this process
reaches that moment, it kills itself with SIGKILL (no cleanup, no ``finally``), as a power cut or
the OOM killer would. Only tests set it.

Example:
    >>> crash_point("append:after")  # LLENVS_CRASH_AT is not set: nothing happens

"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

__all__ = ["CRASH_AT", "crash_point"]

CRASH_AT = "LLENVS_CRASH_AT"
"""The environment variable that arms a crash point: ``<name>:<k>``, e.g. ``append:after:2``."""

_reached: dict[str, int] = {}
"""How many times this process reached each armed moment."""


def crash_point(name: str, prepare: Callable[[], None] | None = None) -> None:
    """Kill this process with SIGKILL if ``LLENVS_CRASH_AT`` names this moment for this time.

    ``prepare`` runs just before the kill (to leave a half-written line, say).

    Example:
        >>> import os
        >>> os.environ[CRASH_AT] = "replace:before-rename:2"
        >>> crash_point("append:after"), crash_point("replace:before-rename")  # not yet
        (None, None)
        >>> del os.environ[CRASH_AT]

    """
    armed = os.environ.get(CRASH_AT)
    if not armed:
        return
    moment, _, count = armed.rpartition(":")
    if moment != name:
        return
    _reached[name] = _reached.get(name, 0) + 1
    if str(_reached[name]) != count.strip():
        return
    if prepare is not None:
        prepare()
    os.kill(os.getpid(), signal.SIGKILL)
