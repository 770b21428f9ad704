"""``LogConfig``: where an evaluation reports, on the console and in a JSONL event file.

Example:
    >>> LogConfig(targets=("console", "file")).directory
    PosixPath('llenvs_logs')
    >>> LogConfig(targets=("screen",))
    Traceback (most recent call last):
    ...
    ValueError: unknown log target 'screen': choose from console, file

"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

__all__ = ["LogConfig", "LogTarget"]

LogTarget = Literal["console", "file"]
"""``console``: a live progress bar on stderr; ``file``: JSONL events in ``directory``."""


@dataclass(frozen=True)
class LogConfig:
    """Logging of ``run_segmented_evaluation``.

    Example:
        >>> LogConfig().targets
        ('console',)

    """

    targets: tuple[LogTarget, ...] = ("console",)
    """Where to report: ``"console"`` and/or ``"file"`` (none: silent)."""
    directory: Path = field(default_factory=lambda: Path("llenvs_logs"))
    """Folder of the JSONL event files (created when needed)."""
    run_name: str | None = None
    """Stem of the event file; by default the start time and the environment's name."""

    def __post_init__(self) -> None:
        if isinstance(self.targets, str):  # type: ignore[unreachable]
            raise TypeError(f"targets must be a tuple of targets, got the string {self.targets!r}")
        valid = get_args(LogTarget)
        for target in self.targets:
            if target not in valid:
                raise ValueError(f"unknown log target {target!r}: choose from {', '.join(valid)}")
        object.__setattr__(self, "directory", Path(self.directory))
