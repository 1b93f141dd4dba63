"""Panels and Compare two on a projector (issue 66 #4), in headless Chromium on the shipped model at 1366x768 in
presentation mode, the opening example at step 6: an explained cell's row of keys wraps instead of running off the
panel's right edge; the exact heads-that-matter grids fit the panel without scrolling, cross-attention first; Compare
two with A − B shows every row of A, of B and of A − B, with its key in words under them."""

from __future__ import annotations

import pytest
from browser_fixtures import PROJECTOR, open_page, settle, shot

pytestmark = pytest.mark.browser

# the panel's box and whether anything in it is cut or scrolls (its own scroll bars, or a child wider than it)
PANEL = """() => { const p = document.querySelector('.ae-panel'), r = p.getBoundingClientRect();
  const wide = [...p.querySelectorAll('table')].filter((t) => t.getBoundingClientRect().right > r.right + 1);
  return { box: [r.left, r.top, r.right, r.bottom], scrollsY: p.scrollHeight > p.clientHeight + 1,
    scrollsX: p.scrollWidth > p.clientWidth + 1, cut: wide.length }; }"""


@pytest.fixture
def lecture(browser, shipped_url):
    """The lecturer's page: 1366x768, presentation mode, the opening example at step 6 on its best cross head."""
    page = open_page(browser, shipped_url)
    page.set_viewport_size(PROJECTOR)
    page.locator("#presentation input").check()
    settle(page)
    page.keyboard.press("Home")
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    settle(page)
    yield page
    page.context.close()


WIDTH, HEIGHT = PROJECTOR["width"], PROJECTOR["height"]


def in_window(box) -> bool:
    return box[0] >= -1 and box[1] >= -1 and box[2] <= WIDTH + 1 and box[3] <= HEIGHT + 1


def test_an_explained_cell_shows_every_key_of_its_row_without_a_sideways_scroll(lecture):
    from playwright.sync_api import expect

    keys = lecture.evaluate("AttentionExplorer.viewer.trace.sourceTokens.length")
    lecture.evaluate("AttentionExplorer.viewer.openPanel('explain', {row: 5, column: 4, head: 1})")
    expect(lecture.locator(".ae-explain-row").first).to_be_visible(timeout=30_000)
    settle(lecture)
    panel = lecture.evaluate(PANEL)
    assert not panel["scrollsX"] and not panel["scrollsY"] and panel["cut"] == 0 and in_window(panel["box"]), panel
    keyed = lecture.locator(".ae-explain-row tr:first-child td")
    assert keyed.count() == keys  # every key of the row, in as many tables as the width holds
    assert lecture.locator(".ae-explain-row").count() >= 2
    shot(lecture, "projector-explain-row")


def test_the_exact_heads_that_matter_fit_the_panel_cross_attention_first(lecture):
    from playwright.sync_api import expect

    lecture.locator(".ae-tools button", has_text="Heads that matter").click()
    lecture.locator(".ae-heads-exact").click()
    expect(lecture.locator(".ae-heads-grid[data-method=exact]")).to_have_count(3, timeout=120_000)
    settle(lecture)
    panel = lecture.evaluate(PANEL)
    assert not panel["scrollsX"] and not panel["scrollsY"] and in_window(panel["box"]), panel
    kinds = lecture.locator(".ae-heads-grid[data-method=exact]").evaluate_all("(ts) => ts.map((t) => t.dataset.kind)")
    assert kinds[0] == "cross", kinds
    for grid in lecture.locator(".ae-heads-grid").all():  # every tile in the window
        box = grid.bounding_box()
        assert in_window([box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]), box
    shot(lecture, "projector-heads-exact")


def test_compare_with_a_minus_b_shows_every_row_of_each_map_and_its_key(lecture):
    from playwright.sync_api import expect

    rows = lecture.evaluate("AttentionExplorer.viewer.state.step")
    lecture.locator(".ae-view-tabs button", has_text="Compare two").click()
    lecture.locator(".ae-compare-bar button", has_text="Compare").click()  # B: the same sentence, the same model
    note = lecture.locator(".ae-compare-note")
    expect(note).to_contain_text("B: the same sentence", timeout=60_000)
    settle(lecture)
    grid = lecture.evaluate(
        """() => { const d = document.querySelector('.ae-compare-diff'), s = d.querySelector('.ae-grid-scroll');
        const r = s.getBoundingClientRect();
        const seen = [...d.querySelectorAll('.ae-tick-row')].filter((e) => { const b = e.getBoundingClientRect();
          return b.top >= r.top - 1 && b.bottom <= r.bottom + 1; });
        return { names: [...d.querySelectorAll('.ae-tick-panel')].map((e) => e.textContent), rows: seen.length,
          scrolls: s.scrollHeight > s.clientHeight + 3, bottom: d.getBoundingClientRect().bottom }; }"""
    )
    shot(lecture, "projector-compare-a-minus-b")
    assert grid["names"] == ["A", "B", "A − B"], grid
    assert grid["rows"] == 3 * rows and not grid["scrolls"] and grid["bottom"] <= HEIGHT, grid
    expect(note).to_contain_text("vermillion where A attends more, blue where B does")  # the key, not on hover only
    box = note.bounding_box()
    assert box["y"] + box["height"] <= HEIGHT + 1, box
    shot(lecture, "projector-compare-a-minus-b")
