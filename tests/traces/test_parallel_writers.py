"""Issue 12 (item 1): writers in several processes at once never interleave nor lose lines.

Each test starts several processes that append to the same file at the same moment (a barrier
releases them together) and checks afterwards that every line parses and that the count is
exactly the sum of what they wrote. Without the file lock, copy + rename appends lose whole
batches (two writers copy the same old bytes) and big in-place appends can interleave.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from pathlib import Path

import pytest

from llenvs.core import Resample
from llenvs.traces import BranchRecord, TraceReader, append_branch, branches_path
from llenvs.traces.files import append_trace, append_traces, file_lock, lock_path, write_traces
from tests.traces.factories import make_trace

WRITERS = 4
EACH = 12
BIG = "x" * 200_000  # lines of ~200 kB: far more than one pipe/page write


def _trace(writer: int, number: int, big: bool = False):
    text = f"Writer {writer} line {number}. " + (BIG if big else "")
    return make_trace(texts=(text,), trace_id=f"w{writer}-{number}")


def _branch(writer: int, number: int):
    parent = BranchRecord("p", 0, Resample())
    return make_trace(texts=(f"Branch {writer}/{number}.",), trace_id=f"b{writer}-{number}",
                      parent=parent)  # fmt: skip


def _append_one_by_one(path: str, writer: int, barrier, big: bool) -> None:
    barrier.wait()
    for number in range(EACH):
        append_trace(path, _trace(writer, number, big))


def _append_in_batches(path: str, writer: int, barrier, big: bool) -> None:
    barrier.wait()
    for start in range(0, EACH, 3):
        append_traces(path, [_trace(writer, n, big) for n in range(start, start + 3)])


def _append_branches(path: str, writer: int, barrier, big: bool) -> None:
    del big
    barrier.wait()
    for number in range(EACH):
        append_branch(path, _branch(writer, number))


def _run_together(target, path: Path, *, big: bool = False, writers: int = WRITERS) -> None:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(writers)
    workers = [
        context.Process(target=target, args=(str(path), writer, barrier, big))
        for writer in range(writers)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0] * writers


def _check_every_line(path: Path, expected_ids: set[str]) -> None:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert all(json.loads(line) for line in lines)  # no torn or interleaved line
    reader = TraceReader(path)
    ids = [trace.trace_id for trace in reader]
    assert reader.skipped == []
    assert len(ids) == len(expected_ids) and set(ids) == expected_ids  # nothing lost, no twice
    leftovers = [p.name for p in path.parent.iterdir() if p.name.endswith((".tmp", ".lock"))]
    assert leftovers == []


def _ids(prefix: str, writers: int = WRITERS) -> set[str]:
    return {f"{prefix}{w}-{n}" for w in range(writers) for n in range(EACH)}


@pytest.mark.slow
@pytest.mark.parametrize("big", [False, True], ids=["small", "200kB"])
def test_appends_one_line_at_a_time_from_several_processes(tmp_path, big):
    path = tmp_path / "runs.jsonl"
    _run_together(_append_one_by_one, path, big=big)
    _check_every_line(path, _ids("w"))


@pytest.mark.slow
@pytest.mark.parametrize("big", [False, True], ids=["small", "200kB"])
def test_copy_and_rename_appends_from_several_processes_lose_nothing(tmp_path, big):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [make_trace(trace_id="first")])
    _run_together(_append_in_batches, path, big=big)
    _check_every_line(path, _ids("w") | {"first"})
    assert next(iter(TraceReader(path))).trace_id == "first"  # the old lines stay first


@pytest.mark.slow
def test_both_kinds_of_append_at_once_lose_nothing(tmp_path):
    path = tmp_path / "runs.jsonl"
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(4)
    workers = [
        context.Process(target=target, args=(str(path), writer, barrier, False))
        for writer, target in enumerate(
            [_append_one_by_one, _append_in_batches, _append_one_by_one, _append_in_batches]
        )
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0] * 4
    _check_every_line(path, _ids("w", 4))


@pytest.mark.slow
def test_branches_saved_at_once_by_several_processes_are_all_kept(tmp_path):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [make_trace()])
    _run_together(_append_branches, path)
    _check_every_line(branches_path(path), _ids("b"))


def test_threads_of_one_process_wait_for_one_another(tmp_path):
    path = tmp_path / "runs.jsonl"
    errors: list[BaseException] = []

    def work(writer: int) -> None:
        try:
            for start in range(0, EACH, 3):
                append_traces(path, [_trace(writer, n) for n in range(start, start + 3)])
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    _check_every_line(path, _ids("w"))


def _hold_then_exit(path: str, ready, go) -> None:
    with file_lock(path):
        ready.set()
        go.wait(30)
        os._exit(0)  # die holding the lock: no cleanup, the lock file stays


@pytest.mark.slow
def test_a_writer_that_died_holding_the_lock_does_not_block_the_next(tmp_path):
    path = tmp_path / "runs.jsonl"
    context = multiprocessing.get_context("fork")
    ready, go = context.Event(), context.Event()
    holder = context.Process(target=_hold_then_exit, args=(str(path), ready, go))
    holder.start()
    assert ready.wait(30)
    waiter = threading.Thread(target=append_trace, args=(path, make_trace(trace_id="after")))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # it waits for the holder
    go.set()
    holder.join(30)
    waiter.join(30)
    assert not waiter.is_alive()
    assert [t.trace_id for t in TraceReader(path)] == ["after"]
    assert not os.path.exists(lock_path(path))
