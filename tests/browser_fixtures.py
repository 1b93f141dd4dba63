"""What the browser tests share: Debian's Chromium driven by playwright, a fresh page per test on the app,
and screenshots kept in tests/artifacts/ (gitignored) for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts"
TIMEOUT_MS = 30_000
PROJECTOR = {"width": 1366, "height": 768}


def shot(page, name: str, full_page: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    print(f"\nscreenshot: {path}")
    return path


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield browser
        browser.close()


def open_page(browser, url, **context_options):
    """A fresh page on `url`, the viewer drawn; `page.dialogs` records any alert()."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context = browser.new_context(viewport=PROJECTOR, **context_options)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.dialogs = []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(url, wait_until="load")  # never "networkidle": gradio keeps a connection open
    page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
    return page


@pytest.fixture
def page(browser, app_url):
    page = open_page(browser, app_url)
    yield page
    page.context.close()


OUTLINED = """() => {
  const div = window.aeViewer.charts.heatmap, g = div._heat.geom, p = g.panels[0];
  const ctx = div.querySelector('canvas').getContext('2d'), dpr = window.devicePixelRatio || 1;
  const white = (x, y) => Array.from(ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3))
    .every((c) => c === 255);
  const cells = [];
  g.queries.forEach((_, i) => g.keys.forEach((_, j) => {
    const x = Math.round(p.x0 + j * g.cw), y = Math.round(g.top + i * g.ch);
    if (white(x + 1, y + g.ch / 2) && !white(x + g.cw / 2, y + g.ch / 2)) cells.push([i, j]);
  }));
  return cells;
}"""


def outlined_cells(page) -> list[list[int]]:
    """The heatmap's cells (first panel) drawn with an outline, read from its pixels: a white edge around a cell whose
    inside is a weight's colour (the scale has no white)."""
    return page.evaluate(OUTLINED)
