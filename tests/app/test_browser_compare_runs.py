"""An experiment compared with its parents in a real browser (Debian chromium + playwright):
from the Experiments page, "Compare in Compare runs" opens Compare runs on the parents and the
experiment's positions, and a disagreement opens its branch in Browse."""

from __future__ import annotations

import re
import shutil

from tests.app.served_app import REPO, served_app

PARENTS = "products-smollm2"
EXPERIMENT = f"{PARENTS}-misleading-hint.experiment.jsonl"


def test_an_experiment_opens_in_compare_runs_and_a_disagreement_in_browse(browser, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    for name in (f"{PARENTS}.jsonl", f"{PARENTS}.branches.jsonl", EXPERIMENT):
        shutil.copy(REPO / "sample_traces" / name, folder / name)
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(f"{url}/experiments")
        page.get_by_text("Open a recorded experiment").click()
        button = page.get_by_role("button", name="Compare in Compare runs")
        button.wait_for(timeout=30_000)
        button.click()
        page.get_by_text(f"{PARENTS} against the others").wait_for(timeout=30_000)
        for fraction in ("0.25", "0.5", "0.75"):
            run = f"{PARENTS}-misleading-hint @ position {fraction}"
            page.get_by_text(f"{run}:", exact=False).first.wait_for(timeout=30_000)
        link = page.get_by_role(
            "link", name=re.compile(r"misleading-hint @ position [0-9.]+: \w+ \(line \d+\)")
        ).first
        link.click()
        page.get_by_text("A branch of trace", exact=False).first.wait_for(timeout=30_000)
        page.close()
