"""``HTTPOptions``: how an HTTP backend's client waits for its server and retries a request.

Both go to the OpenAI SDK's client as they are: ``timeout_s`` bounds the wait to connect and
between streamed chunks; ``max_retries`` is how often the SDK sends a request again after a
connection error, a timeout, 408/409/429 or 5xx, with exponential backoff and jitter (0 when
the backend's ``retry`` policy retries each request instead).

Example:
    >>> HTTPOptions()
    HTTPOptions(timeout_s=600.0, max_retries=2)
    >>> HTTPOptions(max_retries=0).timeout_s
    600.0

"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HTTPOptions"]


@dataclass(frozen=True)
class HTTPOptions:
    """How the client waits for the server and how often it retries a failed request."""

    timeout_s: float = 600.0
    """Seconds to wait for the server (to connect, and between streamed chunks)."""
    max_retries: int = 2
    """The SDK's own retries of a failed request (backoff with jitter)."""
