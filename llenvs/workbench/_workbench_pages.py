"""The workbench's pages, once: ``app.py`` navigates them and Home's guide describes each.

Example:
    >>> [page.title for page in PAGES][:3]
    ['Home', 'Browse', 'Evaluate']
    >>> page_named("Labels").file
    'pages/labels.py'

"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAGES", "WorkbenchPage", "page_named"]


@dataclass(frozen=True)
class WorkbenchPage:
    """One page of the workbench."""

    file: str
    """Its script, relative to the repository (``pages/browse.py``)."""
    title: str
    """Its name in the navigation and in links."""
    icon: str
    """Its Material icon."""
    summary: str
    """What it does, in a sentence or two (Home's guide)."""


PAGES: tuple[WorkbenchPage, ...] = (
    WorkbenchPage(
        "pages/home.py",
        "Home",
        ":material/home:",
        "where traces come from, their counts, uploads and imports.",
    ),
    WorkbenchPage(
        "pages/browse.py",
        "Browse",
        ":material/search:",
        "filter the traces of a file (environment, task, success, reward, PRM minimum, text), "
        "open one, and read it segment by segment: every segment with its step reward, PRM "
        "score and flags, a chart of PRM score and cumulative reward (click a point or a row), "
        "next/previous with the keys `j`/`k` (segment) and `n`/`p` (trace), a raw view with "
        "whitespace shown, and a URL that shares the view; below it, intervene on the selected "
        "segment (force, feedback, COMPLETE, resample) and step values.",
    ),
    WorkbenchPage(
        "pages/evaluate.py",
        "Evaluate",
        ":material/play_arrow:",
        "run a model on a dataset's tasks from the app, segment by segment, with a PRM; watch "
        "each task's steps arrive, stop and resume, and open the results in Browse.",
    ),
    WorkbenchPage(
        "pages/compare.py",
        "Compare segmenters",
        ":material/content_cut:",
        "one trace under 2–4 segmenter specs side by side, with aligned cuts, segment counts, "
        "ArithmeticPRM scores and pairwise boundary F1.",
    ),
    WorkbenchPage(
        "pages/compare_runs.py",
        "Compare runs",
        ":material/compare_arrows:",
        "two or more runs of the same tasks (trace files, an experiment's branches at one "
        "position): success side by side, the paired difference with its interval, and the "
        "tasks where they disagree, each a link to Browse.",
    ),
    WorkbenchPage(
        "pages/experiments.py",
        "Experiments",
        ":material/science:",
        "one intervention (a hint, early answering, a mistake, …) at chosen positions of every "
        "trace of a file, run as one experiment with Stop and resume; the steerability map "
        "(flip and answer-change rates by position, with intervals), paired statistics, and "
        "each branch a link to Browse.",
    ),
    WorkbenchPage(
        "pages/labels.py",
        "Labels",
        ":material/label:",
        "a file's human step labels per labeller, between labellers (Cohen's κ, first-error "
        "agreement) and against PRM scores (step AUROC, ProcessBench F1, first-error "
        "localisation with intervals, calibration), each disagreement a link to its step in "
        "Browse.",
    ),
    WorkbenchPage(
        "pages/search.py",
        "Search",
        ":material/manage_search:",
        "every step of every trace in the folder by text, regular expression or meaning "
        "(MiniLM, its index built in the background with Stop), filtered by environment, model, "
        "success, step reward, PRM score, label, function tag, step value, importance and "
        "moved; each hit opens Browse at its step, and the hits export as a label queue.",
    ),
    WorkbenchPage(
        "pages/settings.py",
        "Settings",
        ":material/settings:",
        "the default model (the embedded SmolLM2, a local folder or a server), PRM and "
        "segmenter, and your labeller name, saved in the traces folder.",
    ),
)
"""Every page, in the navigation's order (Home first, the default)."""


def page_named(title: str) -> WorkbenchPage:
    """The page called ``title``."""
    for page in PAGES:
        if page.title == title:
            return page
    raise KeyError(f"no page {title!r}: choose one of {', '.join(p.title for p in PAGES)}")
