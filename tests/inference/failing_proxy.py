"""A loopback HTTP proxy to a real server that fails chosen requests (429, 5xx, 401).

Request ``n`` (counting POSTs from 1) in ``failures`` is answered with that status and never
reaches the server; every other request is forwarded and its whole answer sent back. A 401 echoes
the request's ``Authorization`` header in its body, as a careless server might.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class FailingProxy:
    """Forwards to ``upstream`` (``http://host:port/v1``) except the requests in ``failures``."""

    def __init__(self, upstream: str, failures: dict[int, int]) -> None:
        self.upstream = urlsplit(upstream)
        self.failures = dict(failures)
        self.posts = 0
        self.failed: list[int] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with proxy._lock:
                    proxy.posts += 1
                    status = proxy.failures.get(proxy.posts)
                    if status is not None:
                        proxy.failed.append(status)
                if status is not None:
                    message = "rate limited" if status == 429 else "server error"
                    if status == 401:
                        message = f"bad key: {self.headers.get('Authorization')}"
                    self._answer(status, json.dumps({"error": {"message": message}}).encode())
                    return
                upstream = http.client.HTTPConnection(
                    proxy.upstream.hostname, proxy.upstream.port, timeout=300
                )
                headers = {"Content-Type": "application/json"}
                upstream.request("POST", self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                upstream.close()
                kind = response.getheader("Content-Type", "application/json")
                self._answer(response.status, data, kind)

            def _answer(self, status: int, data: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("retry-after-ms", "20")
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The proxy's OpenAI base URL."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FailingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
