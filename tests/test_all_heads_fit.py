"""Every head of a layer on one screen (issue 66 #1): the heatmap's "all" and the lesson's Many heads stop lay the heads
out in rows of panels (2 x 2 for four heads, 2 x 4 for eight) when side by side they would not fit, so a class sees
every head the stop's text names, at 1366x768 in presentation mode and at 1280x720, with 4 heads and with 8.
Before, the panels stood side by side and the grid scrolled sideways: 2 of 4 heads in view."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from app_fixtures import build_tiny_checkpoint, served
from browser_fixtures import open_page, settle, shot

pytestmark = pytest.mark.browser

TEXT = "The dog sees the cat."

FIT = """() => {
  const grid = [...document.querySelectorAll('.ae-heat')].find((e) => e.offsetParent !== null);
  const scroll = grid.querySelector('.ae-grid-scroll'), sheet = grid.querySelector('.ae-grid-sheet');
  const names = [...grid.querySelectorAll('.ae-tick-panel')];
  const box = scroll.getBoundingClientRect();
  const inside = (e) => { const r = e.getBoundingClientRect();
    return r.top >= box.top - 40 && r.bottom <= box.bottom && r.left >= box.left - 1 && r.right <= box.right + 1
      && r.bottom <= innerHeight; };
  return { names: names.map((e) => e.textContent), inView: names.filter(inside).length,
    overflowX: sheet.offsetWidth - scroll.clientWidth, overflowY: sheet.offsetHeight - scroll.clientHeight,
    bottom: box.bottom, window: innerHeight };
}"""


SCREENS = [(1366, 768, True), (1280, 720, False)]  # a projector in presentation mode, a laptop


def opened(browser, url: str, link: dict, width: int, height: int, presentation: bool):
    """The page of `link` at width x height, in presentation mode or not, settled."""
    page = open_page(browser, f"{url}?{urlencode(link)}")
    page.set_viewport_size({"width": width, "height": height})
    if presentation:
        page.locator("#presentation input").check()
    settle(page)
    return page


def assert_fits(page, heads: int) -> None:
    """Every head's panel named, in the window, with no sideways scroll and no hidden rows."""
    page.wait_for_timeout(300)
    fit = page.evaluate(FIT)
    assert fit["names"] == [f"H{h}" for h in range(heads)], fit
    assert fit["inView"] == heads, fit
    assert fit["overflowX"] <= 1 and fit["overflowY"] <= 3, fit


@pytest.fixture(scope="module")
def eight_heads_url(tmp_path_factory):
    checkpoint = build_tiny_checkpoint(tmp_path_factory.mktemp("eight") / "tiny8", n_heads=8)
    with served(checkpoint, tmp_path_factory.mktemp("eight-log")) as url:
        yield url


# 8 heads of encoder self-attention over this sentence's 8 tokens need more than 1366x768 with 16 px labels (4 rows
# of 8 cells 18 px tall, or 3 columns of 8 cells 21 px wide beside the row labels): that one scrolls, the least it can
@pytest.mark.parametrize("heads,kind", [(4, "cross"), (4, "encoder_self"), (4, "decoder_self"), (8, "cross")])
@pytest.mark.parametrize("width,height,presentation", SCREENS, ids=["projector", "laptop"])
def test_every_head_of_a_layer_is_on_one_screen(
    browser, app_url, eight_heads_url, heads, kind, width, height, presentation
):
    url = app_url if heads == 4 else eight_heads_url
    link = {"sentence": TEXT, "step": 3, "kind": kind, "layer": 1, "head": "all", "view": "heatmap"}
    page = opened(browser, url, link, width, height, presentation)
    try:
        assert_fits(page, heads)
        shot(page, f"all-heads-{heads}-{kind}-{width}x{height}{'-presentation' if presentation else ''}")
    finally:
        page.context.close()


@pytest.mark.parametrize("width,height,presentation", SCREENS, ids=["projector", "laptop"])
def test_the_lessons_many_heads_stop_shows_every_head_it_names(browser, app_url, width, height, presentation):
    page = opened(browser, app_url, {"sentence": TEXT, "step": 3}, width, height, presentation)
    try:
        page.locator(".ae-tools button", has_text="Lesson").click()
        title = page.locator(".ae-lesson-title")
        for _ in range(12):  # → through the stops to "Many heads, different patterns"
            if "Many heads" in title.inner_text():
                break
            page.keyboard.press("ArrowRight")
            settle(page)
        assert "Many heads" in title.inner_text()
        page.keyboard.press("Home")  # the stop at step 3, as the test opened it (the stops before moved the step)
        for _ in range(3):
            page.locator(".ae-toolbar button", has_text="Next").click()
        settle(page)
        assert "At step 3," in page.locator(".ae-lesson").inner_text()
        page.wait_for_timeout(300)
        shot(page, f"lesson-many-heads-{width}x{height}{'-presentation' if presentation else ''}")
        assert_fits(page, 4)
    finally:
        page.context.close()
