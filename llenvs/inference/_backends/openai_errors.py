"""What an OpenAI-compatible server's failure means to llenvs: worth a retry, or final.

Connection errors, timeouts, 408, 409, 429 and 5xx are transient: a ``BackendError``, which the
runner's ``RetryPolicy`` retries with backoff. Any other status (400, 401, 403, 404, 422) is a
``PermanentBackendError``. Both messages name the model and the server's URL and never the API
key: the key is cut out of the server's text, and the SDK's exception (which holds the request,
headers included) is not chained.

Example:
    >>> error = backend_error(TimeoutError("read timed out"), "openai/m", "http://h:1/v1", "")
    >>> type(error).__name__, str(error)
    ('BackendError', 'openai/m at http://h:1/v1: TimeoutError: read timed out')

"""

from __future__ import annotations

from llenvs.core.errors import BackendError, PermanentBackendError

__all__ = ["TRANSIENT_STATUSES", "backend_error", "is_transport_error", "scrub"]

TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try (any other 5xx is too)."""


def scrub(text: str, secret: str) -> str:
    """``text`` with ``secret`` cut out (an empty secret changes nothing).

    Example:
        >>> scrub("bad key sk-123", "sk-123")
        'bad key [key hidden]'

    """
    return text.replace(secret, "[key hidden]") if secret else text


def backend_error(error: BaseException, model: str, base_url: str, secret: str) -> BackendError:
    """The llenvs error for ``error`` from the ``openai`` SDK (or the network below it).

    Example:
        >>> refused = ConnectionRefusedError(111, "refused")
        >>> str(backend_error(refused, "openai/m", "http://h/v1", ""))
        'openai/m at http://h/v1: cannot connect: ConnectionRefusedError: [Errno 111] refused'

    """
    where = f"{model} at {base_url}"
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        detail = scrub(_status_detail(error), secret)
        if status == 401:
            detail = "authentication failed: check the API key's environment variable"
        message = f"{where}: HTTP {status}: {detail}"
        if status in TRANSIENT_STATUSES or status >= 500:
            return BackendError(message)
        return PermanentBackendError(message)
    name = type(error).__name__
    text = scrub(str(error), secret)
    if name == "APIConnectionError" or isinstance(error, ConnectionError):
        cause = error.__cause__ or error.__context__
        if cause is not None and name == "APIConnectionError":
            text = f"{type(cause).__name__}: {scrub(str(cause), secret)}"
        else:
            text = f"{name}: {text}"
        return BackendError(f"{where}: cannot connect: {text}")
    return BackendError(f"{where}: {name}: {text}")


def _status_detail(error: BaseException) -> str:
    """The server's own message for an HTTP error, short."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if message:
            return str(message)[:500]
    return str(getattr(error, "message", error))[:500]


def is_transport_error(error: BaseException) -> bool:
    """An error of the SDK or the network below it (not a bug of ours).

    Example:
        >>> is_transport_error(TimeoutError()), is_transport_error(KeyError("x"))
        (True, False)

    """
    module = type(error).__module__.partition(".")[0]
    return module in ("openai", "httpx", "httpx2", "httpcore", "h11") or isinstance(
        error, OSError | TimeoutError
    )
