"""The suite's two tiers: ``slow`` tests load a model or start a process; the rest run in
``make check``, and this plugin fails any of them that loads a model or starts a process.

A test is slow when it is marked ``slow`` (``pytestmark = pytest.mark.slow`` in a module that
needs it throughout) or asks for a fixture that loads a model or starts a server or a browser
(``HEAVY_FIXTURES``: marked at collection). Every other test, doctests included, is in the fast
tier, and while its setup and call run, starting a process (Python's audit events for a
subprocess, a fork, an exec or a spawn; ``multiprocessing``'s ``Process.start``, whose spawn and
forkserver start an interpreter with no audit event) or loading a model
(``PreTrainedModel.from_pretrained``, which every loader of the project's models goes through)
raises ``SlowTierError`` in the test and fails it, saying what it did and how to mark it.

Every test has a time limit (pytest-timeout: ``timeout`` in pyproject.toml's pytest options, a
hang's bound, not a speed); the tests of the vLLM server get ``VLLM_TIMEOUT_S``. The limit is
the plugin's signal method timed by a thread (``pytest_timeout_set_timer`` below): math-verify
sets its own SIGALRM timer in the main thread, and clearing it cancelled the method's own, so a
test that checked an answer had no limit left.
"""

from __future__ import annotations

import platform
import signal
import sys
import threading
from collections.abc import Generator
from typing import Any

import pytest

SLOW = "slow"
HEAVY_FIXTURES = frozenset(
    {
        "embedded_backend",  # the embedded SmolLM2 on transformers
        "vllm_server",  # a vLLM server process
        "browser",  # chromium
        "app",  # a served app (tests/app): a streamlit process
    }
)
"""Fixtures that load a model or start a process: a test that asks for one is slow."""

SLOW_DOCTESTS = frozenset(
    {
        "llenvs/evaluation/branching/_on_policy.py",
        "llenvs/inference/_backends/chat_tokenizer.py",  # embedded_model_path() converts,
        "llenvs/inference/_backends/embedded_model.py",  # loading the GGUF, when the cache is cold
        "llenvs/inference/_backends/padded_batch.py",
        "llenvs/inference/_backends/text_positions.py",  # embedded_model_path(), as above
        "llenvs/inference/_backends/transformers_backend.py",
        "llenvs/inference/_backends/transformers_loading.py",
    }
)
"""Modules whose doctests load the embedded model (a doctest carries no mark of its own)."""

VLLM_GROUP = "vllm-server"
"""The pytest-xdist group of the tests that use the real vLLM server."""

VLLM_TIMEOUT_S = 600
"""The time limit of a test of the vLLM server, unless it names its own: the server's start
(``tests/vllm_server.py``: up to 240 s on two busy cores) counts against the first test that
asks for it, and a test that restarts it waits for a second start."""

PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.fork",
        "os.forkpty",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.system",
    }
)
"""Python's audit events for starting a process (``sys.addaudithook``)."""


class SlowTierError(RuntimeError):
    """A fast-tier test loaded a model or started a process."""


_watched: list[str] = []
"""The node id of the fast-tier test whose setup or call is running (empty between them)."""
_seen: list[str] = []
"""What the watched test did that only a slow test may do."""


def _refuse(what: str) -> None:
    if _watched:
        said = (
            f"{_watched[0]} {what}: a test that loads a model or starts a process belongs in "
            f"the slow tier (mark it `@pytest.mark.{SLOW}`, or use a fixture of "
            f"tests/tiers.py's HEAVY_FIXTURES)"
        )
        _seen.append(said)
        raise SlowTierError(said)


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    if _watched and event in PROCESS_EVENTS:
        detail = arguments[0] if event in {"subprocess.Popen", "os.exec", "os.system"} else ""
        _refuse(f"started a process ({event} {detail!r})".replace(" ''", ""))


def _watch_process_starts() -> None:
    """Wrap ``multiprocessing``'s ``BaseProcess.start`` (every context's ``Process``, and the
    pools built on it) so that a fast-tier test starting one fails: spawn and forkserver start
    an interpreter through ``_posixsubprocess``, which fires no audit event."""
    from multiprocessing import process

    start = process.BaseProcess.start
    if getattr(start, "_tier_guarded", False):
        return

    def guarded_start(self: process.BaseProcess) -> None:
        _refuse(f"started a process (multiprocessing {type(self).__name__}.start {self.name!r})")
        start(self)

    guarded_start._tier_guarded = True  # type: ignore[attr-defined]
    process.BaseProcess.start = guarded_start  # type: ignore[method-assign]


def _watch_model_loads() -> None:
    """Wrap ``PreTrainedModel.from_pretrained`` so that a fast-tier test calling it fails."""
    from transformers import modeling_utils

    loader = modeling_utils.PreTrainedModel.from_pretrained.__func__  # type: ignore[attr-defined]
    if getattr(loader, "_tier_guarded", False):
        return

    def from_pretrained(cls: type, *args: Any, **kwargs: Any) -> Any:
        _refuse(f"loaded a model ({cls.__name__}.from_pretrained{args[:1]!r})")
        return loader(cls, *args, **kwargs)

    from_pretrained._tier_guarded = True  # type: ignore[attr-defined]
    modeling_utils.PreTrainedModel.from_pretrained = classmethod(from_pretrained)  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{SLOW}: loads a model or starts a process (a server, a browser, a subprocess); "
        "`make check` runs the rest",
    )
    platform.processor()  # asks `uname -p` once and keeps it: SDKs read it for their headers
    sys.addaudithook(_audit)
    _watch_process_starts()
    _watch_model_loads()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow tier; put every test of the vLLM server in one group, so that a run
    spread over several workers (``-n``, ``--dist loadgroup``) starts one server, not one per
    worker."""
    root = config.rootpath
    for item in items:
        heavy = HEAVY_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        served = item.get_closest_marker("vllm") is not None
        doctest = isinstance(item, pytest.DoctestItem) and (
            item.path.relative_to(root).as_posix() in SLOW_DOCTESTS
        )
        if heavy or served or doctest:
            item.add_marker(SLOW)
        if served or "vllm_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(VLLM_GROUP))
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(VLLM_TIMEOUT_S))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """The signal method's handler with a thread for its clock: past the limit the thread sends
    SIGALRM to the main thread, once a second until the handler has run (a signal that came
    while math-verify's handler was in place is sent again once it has put the handler back)."""
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None  # pytest-timeout's own
    import pytest_timeout

    main = threading.main_thread().ident
    assert main is not None
    failed, cancelled = threading.Event(), threading.Event()

    def handler(signum: int, frame: Any) -> None:
        __tracebackhide__ = True
        failed.set()
        pytest_timeout.timeout_sigalrm(item, settings)

    def clock() -> None:
        if cancelled.wait(settings.timeout):
            return
        while not failed.is_set():
            signal.pthread_kill(main, signal.SIGALRM)
            if cancelled.wait(1.0):
                return

    timer = threading.Thread(target=clock, name=f"time limit of {item.nodeid}", daemon=True)

    def cancel() -> None:
        cancelled.set()
        timer.join()
        signal.signal(signal.SIGALRM, previous)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # the plugin's own cancel calls it
    previous = signal.signal(signal.SIGALRM, handler)
    timer.start()
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _guarded(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _guarded(item))


def _guarded(item: pytest.Item) -> Generator[None, None, None]:
    if item.get_closest_marker(SLOW) is not None:
        return (yield)
    _watched[:] = [item.nodeid]
    del _seen[:]
    try:
        result = yield
    finally:
        _watched.clear()
    if _seen:  # also when the test caught the error
        pytest.fail(_seen[0], pytrace=False)
    return result
