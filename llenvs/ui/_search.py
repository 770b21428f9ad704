"""The Search page: every step of the traces folder, by text, regex or meaning, filtered.

The query box, how to read it, the filter (``--where``'s language) and the files; the hits as a
table (each row a link to Browse at its step, in label mode when asked), "Export as label
queue", the meaning index built in the background with its progress and Stop, and the label
queues already exported, each step a link to label it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import streamlit as st

from llenvs.ui.common import current_session, job_controls, shows_errors
from llenvs.workbench import MISSING, MODE_PARAM, QUEUE_PARAM, count
from llenvs.workbench.files import trace_files
from llenvs.workbench.search import (
    FACT_FIELDS,
    QUEUE_SUFFIX,
    MeaningIndex,
    MeaningIndexJob,
    QueueEntry,
    SearchMode,
    StepStore,
    hit_table,
    next_unlabelled,
    queue_folder,
    queue_labels,
    read_label_queue,
    search_steps,
    write_label_queue,
)

__all__ = ["search_page"]

_JOB = "search-meaning-job"
_DONE = "search-meaning-done"
POLL_SECONDS = 1.0
LIMITS = (50, 200, 1000)
SHOWN = 200
"""Steps of a label queue listed as links."""


def search_page(folder: Path) -> None:
    """Draw the Search page over the trace files of ``folder``."""
    files = trace_files(folder)
    if not files:
        st.info(f"No trace files in {folder}.")
        return
    chosen = st.multiselect(
        "Files (none chosen: every file of the folder)",
        [f.name for f in files],
        key="search-files",
    )
    paths = [folder / name for name in chosen] or files
    query = st.text_input("Query", key="search-query", placeholder="a word, a pattern, a meaning")
    left, middle, right = st.columns([2, 5, 1])
    mode = SearchMode(
        left.radio(
            "Search by",
            [m.value for m in SearchMode],
            horizontal=True,
            key="search-mode",
        )
    )
    where = middle.text_input(
        "Filter",
        key="search-where",
        placeholder='prm < 0.5 and label == "wrong"',
        help="Comparisons (==, !=, <, <=, >, >=, ~ contains) of "
        f"{', '.join(FACT_FIELDS)}, joined by and, or, not; a field alone: set and not 0 "
        "(moved: its chance above 1/2).",
    )
    limit = right.selectbox("At most", LIMITS, key="search-limit")
    if mode is SearchMode.MEANING:
        _meaning_panel(paths)
    if query:
        with shows_errors():
            _hits(folder, paths, query, mode, where, int(limit))
    _queues(folder)


def _hits(
    folder: Path, paths: list[Path], query: str, mode: SearchMode, where: str, limit: int
) -> None:
    began = time.perf_counter()
    hits = list(search_steps(paths, query, mode, where, limit=limit))
    seconds = time.perf_counter() - began
    more = " (the first; raise the limit for more)" if len(hits) == limit else ""
    st.caption(f"{count(len(hits), 'step')} found in {seconds:.2f} s{more}.")
    if not hits:
        return
    label = st.toggle("Open in label mode", key="search-label-mode")
    st.dataframe(
        hit_table(hits, label=label),
        hide_index=True,
        column_config={
            "open": st.column_config.LinkColumn("open", display_text="Browse"),
            "snippet": st.column_config.TextColumn("snippet", width="large"),
        },
        placeholder=MISSING,
    )
    name = st.text_input("Queue name", value=_slug(query), key="search-queue-name")
    if st.button("Export as label queue", icon=":material/playlist_add:"):
        path = queue_folder(folder) / f"{_slug(name) or 'queue'}{QUEUE_SUFFIX}"
        write_label_queue(path, (QueueEntry(h.file, h.trace, h.step) for h in hits))
        shown = count(len(hits), "step")
        st.success(f"Label queue {path.name}: {shown} (below, under Label queues).")


def _meaning_panel(paths: list[Path]) -> None:
    """How much of the meaning index is built, and its build with progress and Stop."""
    job = st.session_state.get(_JOB)
    if isinstance(job, MeaningIndexJob):
        st.fragment(_live, run_every=POLL_SECONDS)(job)
        return
    outcome = st.session_state.pop(_DONE, None)
    if isinstance(outcome, Exception):
        st.error(f"The meaning index was not built: {outcome}", icon=":material/error:")
    elif outcome:
        st.success(outcome)
    stale = _stale_steps(paths)
    if stale == 0:
        st.caption("Every step is embedded: the meaning index is up to date.")
        return
    st.info(
        f"{count(stale, 'step')} not embedded yet (all-MiniLM-L6-v2 on this machine's CPU; "
        "a meaning search finds only embedded steps)."
    )
    if st.button("Build the meaning index", icon=":material/hub:"):
        st.session_state[_JOB] = MeaningIndexJob(paths, session=current_session())
        st.rerun()


def _live(job: MeaningIndexJob) -> None:
    progress = job.progress()
    st.caption(
        f"Embedding steps: {progress.steps_done:,} of {progress.steps:,} "
        f"({progress.files_done} of {progress.files} files); {job.clock()}"
    )
    st.progress(progress.steps_done / max(progress.steps, 1))
    if job_controls(job, "search-meaning", "Stopping after this batch; what is embedded is kept."):
        return
    del st.session_state[_JOB]
    build = job.build
    st.session_state[_DONE] = job.error or (
        f"{'Stopped' if build is not None and build.stopped else 'Done'}: "
        f"{count(build.embedded if build else 0, 'step')} embedded."
    )
    st.rerun()


def _stale_steps(paths: list[Path]) -> int:
    stale = 0
    by_folder: dict[Path, list[Path]] = {}
    for path in paths:
        by_folder.setdefault(path.parent, []).append(path)
    for folder, files in by_folder.items():
        store = StepStore(folder)
        try:
            store.refresh(files)
            stale += sum(steps for _, steps in MeaningIndex(store).stale(store.ids(files)))
        finally:
            store.close()
    return stale


def _queues(folder: Path) -> None:
    """The label queues exported from this folder: each step a link to label it in Browse."""
    queues = sorted(queue_folder(folder).glob(f"*{QUEUE_SUFFIX}"))
    if not queues:
        return
    st.subheader("Label queues")
    name = st.selectbox("Queue", [q.name for q in queues], key="search-queue")
    with shows_errors():
        entries = read_label_queue(queue_folder(folder) / str(name))
        labels = queue_labels(entries)
        labelled = {e: label is not None for e, label in zip(entries, labels, strict=True)}
        at = next_unlabelled(entries, lambda e: labelled[e])
        done = sum(label is not None for label in labels)
        st.caption(f"{done} of {count(len(entries), 'step')} labelled.")
        for place, (entry, label) in enumerate(zip(entries[:SHOWN], labels, strict=False)):
            mark = "next: " if place == at else ""
            shown = "unlabelled" if label is None else f"label {label:+d}"
            st.page_link(
                "pages/browse.py",
                label=f"{mark}{Path(entry.file).name}:{entry.trace} step {entry.step} ({shown})",
                icon=":material/label:",
                query_params={
                    "file": entry.file,
                    "trace": str(entry.trace),
                    "segment": str(entry.step),
                    MODE_PARAM: "label",
                    QUEUE_PARAM: str(queue_folder(folder) / str(name)),  # the keys walk it
                },
            )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")[:40]
