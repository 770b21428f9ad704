"""The Home page's panels: where traces come from, their counts, and how to add more.

Traces come from the traces folder (``sample_traces/`` or ``$LLENVS_TRACES_DIR``), a file path
typed here (inside the traces folders: that one and those of ``$LLENVS_TRACE_ROOTS``), an
uploaded trace file, or an import of an outside file (reasoning-gym logs, ProcessBench / PRM800K
step files, OpenAI chat JSONL) into that folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from llenvs.analysis.sidecar import STUDY
from llenvs.traces import IMPORT_FORMATS, skipped_summary
from llenvs.traces.files import MAX_LINE_ENV, max_line_bytes
from llenvs.traces.importers import INSPECT_FORMAT
from llenvs.ui.common import cached_index, shows_errors
from llenvs.workbench import MISSING, PAGES, BrowseLocation, short_name
from llenvs.workbench.files import (
    TRACE_ROOTS_ENV,
    BrowseDefault,
    allowed_roots,
    browse_default,
    import_into,
    resolve_trace_path,
    save_upload,
    shown_path,
    trace_files,
)

__all__ = [
    "BROWSE",
    "add_traces",
    "folder_summary",
    "how_to_get_traces",
    "open_path",
    "page_guide",
    "roots_help",
    "start_here",
    "upload_help",
    "view_label",
]

SEARCH = ":material/search:"
"""The icon of links to Browse."""
BROWSE = "pages/browse.py"
"""The Browse page's file."""

LINK_NAME = 30
"""The most characters of a file's name its Browse link shows whole (three links a row)."""

HOW_TO_GET_TRACES = """\
No trace file yet. Add one with the forms below, or from a terminal:

```bash
# import an outside file (formats: {formats}), or Thought Anchors' published data
.venv/bin/llenvs import thought-anchors ../shared/external/thought_anchors \\
    --output {folder}/thought_anchors.jsonl
.venv/bin/llenvs import reasoning_gym ../shared/external/real_responses.jsonl \\
    --output {folder}/real_responses.jsonl --prm arithmetic
.venv/bin/llenvs import processbench ../shared/external/step_traces.jsonl \\
    --output {folder}/step_traces.jsonl --prm arithmetic
# or record traces with the embedded model (see `llenvs evaluate --help`)
.venv/bin/llenvs evaluate --env leg_counting --num-tasks 4 --prm arithmetic \\
    --output {folder}/leg_counting.jsonl
```
"""


def how_to_get_traces(folder: Path) -> str:
    """The markdown that tells a newcomer how to import or record traces into ``folder``.

    Example:
        >>> "llenvs import processbench" in how_to_get_traces(Path("sample_traces"))
        True

    """
    formats = ", ".join(sorted([*IMPORT_FORMATS, INSPECT_FORMAT]))
    return HOW_TO_GET_TRACES.format(folder=folder, formats=formats)


def roots_help() -> str:
    """Which folders the app opens files in, and how to add one.

    Example:
        >>> "LLENVS_TRACE_ROOTS" in roots_help()
        True

    """
    folders = ", ".join(f"`{root}`" for root in allowed_roots())
    return (
        f"The app opens files only inside its traces folders: {folders}. To open files "
        f"elsewhere, start it with their folders in `{TRACE_ROOTS_ENV}` (separated by "
        f"`{os.pathsep}`)."
    )


def upload_help(limit_mb: float, what: str) -> str:
    """The uploaders' help: the size limit, and where ``what`` goes.

    Example:
        >>> upload_help(100, "It is saved in the traces folder.")[:21]
        'Up to 100 MB per file'

    """
    line_mb = max_line_bytes() / 2**20
    return (
        f"Up to {limit_mb:g} MB per file (`server.maxUploadSize` in `.streamlit/config.toml`); "
        f"a line longer than {line_mb:g} MB is skipped (`{MAX_LINE_ENV}`). {what}"
    )


def folder_summary(folder: Path) -> None:
    """The trace files of ``folder`` with their counts, each with a link to browse it."""
    files = trace_files(folder)
    st.markdown(f"**Traces folder:** `{shown_path(folder)}`", help=roots_help())
    if not files:
        st.info(how_to_get_traces(folder))
        return
    rows = []
    for path in files:
        with shows_errors(f"reading {path.name}"):
            index = cached_index(str(path))
            table = index.table
            rows.append(
                {
                    "file": path.name,
                    "traces": index.count,
                    "segments": int(table["segments"].sum()),
                    "environments": ", ".join(sorted(table["environment"].unique())[:5]),
                    "succeeded": int((table["success"] == True).sum()),  # noqa: E712
                    "skipped lines": len(index.skipped),
                }
            )
    st.dataframe(pd.DataFrame(rows), hide_index=True, placeholder=MISSING)
    declared = _declared(folder)
    columns = st.columns(min(len(files), 3))
    for number, path in enumerate(files):
        location, opens = BrowseLocation(str(path)), f"Opens {path.name} at its first trace."
        if declared is not None and Path(declared.location.file or "") == path:
            location = declared.location  # the file's link opens where the folder says
            opens = f"Opens {view_label(location)}: {declared.about}"
        columns[number % len(columns)].page_link(
            BROWSE,
            label=f"Browse {short_name(path.name, LINK_NAME)}",
            icon=SEARCH,
            query_params=location.to_params(),
            help=opens,
        )


def view_label(location: BrowseLocation) -> str:
    """A Browse view in words: its file's name, and its line and step where it names them.

    Example:
        >>> view_label(BrowseLocation("sample_traces/r1.jsonl", 3, 158))
        'r1.jsonl, line 3 at step 158'
        >>> view_label(BrowseLocation("a.jsonl"))
        'a.jsonl'

    """
    name = Path(location.file or "").name
    where = [] if location.line is None else [f"line {location.line}"]
    if location.segment:
        where.append(f"at step {location.segment}")
    return ", ".join([name, " ".join(where)]) if where else name


def start_here(folder: Path) -> None:
    """Where a newcomer starts: the view ``folder`` declares, else its first trace file.

    The sample folder declares (``llenvs-browse.json``) its R1 trace at the step where the
    published chance of a right answer falls; a declaration that cannot be followed is said,
    naming its file, and the first file offered instead.
    """
    try:
        declared = browse_default(folder)
    except ValueError as error:
        st.warning(f"{error}. Start with the folder's first file instead.")
        declared = None
    files = trace_files(folder)
    if declared is None and not files:
        return  # the folder's summary says how to get traces
    location = declared.location if declared is not None else BrowseLocation(str(files[0]))
    about = declared.about if declared is not None else "The folder's first trace file."
    with st.container(border=True):
        st.page_link(
            BROWSE,
            label=f"Start here: {view_label(location)}",
            icon=":material/flag:",
            query_params=location.to_params(),
        )
        st.caption(
            f"{about} Then the tour (docs/tour.md) goes through every page: intervening on a "
            "segment, step values, experiments, labels."
        )


def _declared(folder: Path) -> BrowseDefault | None:
    """The view ``folder`` declares; None when none, or one ``start_here`` said it cannot follow."""
    try:
        return browse_default(folder)
    except ValueError:
        return None


def open_path() -> None:
    """A text box for a trace file's path in the traces folders, with a link to Browse it.

    A path outside them is refused with a message naming them (``resolve_trace_path``).
    """
    typed = st.text_input(
        "Open a trace file by path", placeholder="/path/to/traces.jsonl", help=roots_help()
    )
    path = typed.strip()
    if not path:
        return
    try:
        resolved = resolve_trace_path(path)
    except PermissionError as error:
        st.error(str(error), icon=":material/block:")
        return
    if not resolved.is_file():
        st.error(f"No such file: {path}")
        return
    st.page_link(
        BROWSE, label=f"Browse {Path(path).name}", icon=SEARCH, query_params={"file": path}
    )


def add_traces(folder: Path) -> None:
    """Upload a trace file, or import an outside file, into ``folder``."""
    upload, convert = st.columns(2)
    with upload:
        st.markdown("**Upload a trace file** (`.jsonl`, one trace per line)")
        uploaded = st.file_uploader(
            "Trace file",
            type=["jsonl"],
            key="upload-traces",
            help=upload_help(
                _upload_limit_mb(),
                f"It is saved in `{folder}`, under a new name when one is taken.",
            ),
        )
        if uploaded is not None:
            with shows_errors("saving the upload"):
                saved = save_upload(folder, uploaded.name, uploaded.getvalue())
                _saved(saved)
                st.page_link(
                    BROWSE, label="Browse it", icon=SEARCH, query_params={"file": str(saved)}
                )
    with convert:
        st.markdown("**Import an outside file** into the traces folder")
        with st.form("import-form"):
            format = st.selectbox(
                "Format", sorted([*IMPORT_FORMATS, STUDY, INSPECT_FORMAT]), key="import-format"
            )
            source = st.text_input(
                "File path",
                placeholder=str(shown_path(folder) / "step_traces.jsonl"),
                help="A file inside the traces folders (for thought-anchors: a problem folder "
                "or a folder above them). " + roots_help(),
            )
            outside = st.file_uploader(
                "or upload it",
                type=["jsonl", "json", "zip", "eval"],
                key="upload-import",
                help=upload_help(
                    _upload_limit_mb(),
                    "Its traces go to a new file. For thought-anchors, a .zip of problem "
                    "folders; their published step values go beside the traces. For inspect, "
                    "an Inspect log (.eval, or the older .json).",
                ),
            )
            score = st.checkbox("Score every step with ArithmeticPRM", value=True)
            submitted = st.form_submit_button("Import")
        if submitted:
            with shows_errors("import"):
                _import(folder, str(format), source, outside, score)


def _saved(saved: Path) -> None:
    """Say where an upload was saved, and, once, the lines of it Browse will skip and why."""
    skipped = cached_index(str(saved)).skipped
    if skipped:
        st.warning(f"Saved as {saved}, but {skipped_summary(saved.name, skipped)}")
    else:
        st.success(f"Saved as {saved}")


def _import(folder: Path, format: str, source: str, outside: object, score: bool) -> None:
    if outside is not None:
        with tempfile.TemporaryDirectory() as staging:
            path = Path(staging) / Path(outside.name).name  # type: ignore[attr-defined]
            path.write_bytes(outside.getvalue())  # type: ignore[attr-defined]
            outcome = import_into(folder, format, path, score_arithmetic=score)
    elif source.strip():
        path = resolve_trace_path(source.strip())
        outcome = import_into(folder, format, path, score_arithmetic=score)
    else:
        st.warning("Give a file path or upload a file to import.")
        return
    labels = f", their {outcome.labels} step labels beside it" if outcome.labels else ""
    notes = "".join(f"; {note}" for note in outcome.notes)
    st.success(f"Imported {outcome.count} traces into {outcome.path}{labels}{notes}")
    if outcome.skipped:
        unit = "sample(s)" if format == INSPECT_FORMAT else "row(s)"
        st.warning(f"{len(outcome.skipped)} {unit} skipped")
        st.code("\n".join(str(s) for s in outcome.skipped[:50]), language=None)
    st.page_link(BROWSE, label="Browse them", icon=SEARCH, query_params={"file": str(outcome.path)})


def _upload_limit_mb() -> float:
    return float(st.get_option("server.maxUploadSize"))


def page_guide() -> None:
    """What each page does (every page of the navigation), each with a link."""
    for page in PAGES:
        st.page_link(page.file, label=page.title, icon=page.icon)
        st.caption(page.summary[0].upper() + page.summary[1:])
