"""Browse's segment rows in a real browser (Debian chromium + playwright) at 1500 pixels: the
``text`` column gets the width. Beside the chart it was left about 40 pixels of a 616-pixel
grid. The grid is a canvas, so the column is measured where its borders are drawn."""

from __future__ import annotations

import io

from PIL import Image

from tests.app.served_app import IDLE, REPO, served_app

BORDER = 240
"""Below this grey level a pixel is a drawn line (the grid's borders are #E8E5E2), not paper."""


def column_borders(png: bytes) -> tuple[int, list[int]]:
    """The grid picture's width and the x of each column border: a line down the whole grid
    (a coloured column starts below its header, text stops between rows)."""
    picture = Image.open(io.BytesIO(png)).convert("L")
    width, height = picture.size
    pixels = picture.load()
    assert pixels is not None
    lines = [
        x
        for x in range(1, width - 1)
        if sum(1 for y in range(height) if pixels[x, y] < BORDER) >= height - 2
    ]
    return width, lines


def test_the_text_column_has_the_rows_room_at_1500_pixels(browser):
    with served_app(REPO / "sample_traces") as url:  # opens the R1 trace at step 158
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{url}/browse")
        page.get_by_role("tab", name="Segment 158").wait_for(timeout=60_000)
        page.wait_for_selector(IDLE, timeout=60_000)
        grid = page.locator("[data-testid='stDataFrame']").nth(1)  # the first: the trace list
        grid.locator("th:text-is('text')").wait_for(state="attached", timeout=30_000)
        grid.scroll_into_view_if_needed()
        width, borders = column_borders(grid.screenshot())
        page.close()
    # the row marker, #, PRM, reward, cumulative, label, flags, tags; then text to the edge
    assert len(borders) == 8, borders
    text = width - borders[-1]
    assert text >= 400, (text, width, borders)
    assert text >= 0.4 * width, (text, width)
    assert width >= 1000  # the rows take the page's width, the chart goes under them
