"""What the browser tests share: Debian's Chromium driven by playwright, a fresh page per test on the app,
and screenshots kept in tests/artifacts/ (gitignored) for a person to look at."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

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
    page.on("pageerror", lambda error: print(f"\npage error: {error.stack or error}"))  # in a failing test's output
    page.goto(url, wait_until="load")  # never "networkidle": gradio keeps a connection open
    page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
    return page


@pytest.fixture
def page(browser, app_url):
    page = open_page(browser, app_url)
    yield page
    page.context.close()


SETTLED = """() => {
  const root = document.querySelector('.ae-root, #ae-root');
  return root !== null && root.getAttribute('aria-busy') === 'false';
}"""


SHOWN = """() => {
  const root = document.querySelector('.ae-root, #ae-root');
  const pressed = (row) => {
    const b = root.querySelector(row + ' button[aria-pressed=true]');
    return b ? b.dataset.value : null;
  };
  const [step, T] = root.querySelector('.ae-step').textContent.match(/[0-9]+/g).map(Number);
  const head = pressed('.ae-heads'), lesson = root.querySelector('.ae-lesson-title');
  return { step: step, T: T, view: pressed('.ae-view-tabs'), kind: pressed('.ae-kinds'),
    layer: Number(pressed('.ae-layers')), head: /^[0-9]+$/.test(head) ? Number(head) : head,
    lesson: lesson && lesson.offsetParent !== null ? Number(lesson.textContent.match(/[0-9]+/)[0]) : null };
}"""


def shown(page) -> dict:
    """What the viewer shows, as a person reads it: the step and the number of steps (the step label), the view, kind,
    layer and head pressed in the selectors, and the lesson's stop (null: no lesson)."""
    return page.evaluate(SHOWN)


def choose(page, **change) -> None:
    """Press the selectors' buttons as a person would: kind, layer ("last": the last one) and head (each a button's
    value) on the heatmap, whose rows show them all, then the view (the one on screen if none is named); then wait for
    the drawing. A button already pressed is left alone, as a person leaves it, and the heatmap is visited only when a
    row the change needs is hidden in the view shown."""
    rows = {"view": ".ae-view-tabs", "kind": ".ae-kinds", "layer": ".ae-layers", "head": ".ae-heads"}

    def button(name, value):
        buttons = page.locator(f".ae-viewer {rows[name]} button")
        return buttons.last if value == "last" else buttons.and_(page.locator(f"[data-value='{value}']")).first

    def press(name, value):
        if button(name, value).get_attribute("aria-pressed") != "true":
            button(name, value).click()

    view = change.get("view", shown(page)["view"])
    wanted = [(name, change[name]) for name in ("kind", "layer", "head") if name in change]
    if wanted:
        if not all(button(name, value).is_visible() for name, value in wanted):
            press("view", "heatmap")
        for name, value in wanted:
            press(name, value)
    press("view", view)
    settle(page)


def settle(page, timeout: int = TIMEOUT_MS) -> None:
    """Wait until the viewer says it is not busy (`aria-busy`, as a screen reader hears it): its trace has arrived
    and every chart of the view on screen is drawn."""
    page.wait_for_function(SETTLED, timeout=timeout)


OUTLINED = """() => {
  const div = [...document.querySelectorAll('.ae-heat')].find((d) => d.offsetParent !== null);
  const canvas = div.querySelector('canvas'), box = canvas.getBoundingClientRect();
  const ctx = canvas.getContext('2d'), dpr = canvas.width / box.width;
  const white = (x, y) => Array.from(ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3))
    .every((c) => c === 255);
  // each row's and column's centre, from its label as the page shows it (a rotated column label ends at its centre)
  const rows = [...div.querySelectorAll('.ae-tick-row')].map((s) => {
    const r = s.getBoundingClientRect();
    return (r.top + r.bottom) / 2 - box.top;
  });
  const panels = Math.max(1, div.querySelectorAll('.ae-tick-panel').length);
  const labels = [...div.querySelectorAll('.ae-tick-column')];
  const columns = labels.slice(0, labels.length / panels).map((s) => {
    const r = s.getBoundingClientRect(), line = parseFloat(getComputedStyle(s).lineHeight);
    const rotated = s.classList.contains('ae-tick-rotated');
    return (rotated ? r.right - line / 2 * Math.sin(Math.PI / 3) : (r.left + r.right) / 2) - box.left;
  });
  const ch = rows[1] - rows[0], cw = columns[1] - columns[0];
  const cells = [];
  rows.forEach((y, i) => columns.forEach((x, j) => {
    if (white(Math.round(x - cw / 2) + 1, y) && !white(x, y)) cells.push([i, j]);
  }));
  return cells;
}"""


CELL = """([selector, i, j]) => {
  const div = [...document.querySelectorAll(selector)].find((d) => d.offsetParent !== null);
  const box = div.querySelector('canvas').getBoundingClientRect();
  const row = div.querySelectorAll('.ae-tick-row')[i].getBoundingClientRect();
  const label = div.querySelectorAll('.ae-tick-column')[j], r = label.getBoundingClientRect();
  const line = parseFloat(getComputedStyle(label).lineHeight), rotated = label.classList.contains('ae-tick-rotated');
  const x = rotated ? r.right - line / 2 * Math.sin(Math.PI / 3) : (r.left + r.right) / 2;
  return { x: x - box.left, y: (row.top + row.bottom) / 2 - box.top };
}"""


def cell_centre(page, selector: str, row: int, column: int) -> dict:
    """Where cell (row, column) of the first panel of the grid in `selector` is on its canvas ({x, y}), found as a
    person finds it: at its row's label and its column's label."""
    return page.evaluate(CELL, [selector, row, column])


def outlined_cells(page) -> list[list[int]]:
    """The heatmap's cells (first panel) drawn with an outline, read from its pixels where its labels say each cell
    is: a white edge around a cell whose inside is a weight's colour (the scale has no white)."""
    return page.evaluate(OUTLINED)


def on_screen(page, app_url: str) -> dict:
    """The wire trace the page shows, from the network: the trace request the address bar names (the page keeps it
    there, with the place), asked of the API as the page asked it (the same request, so the same cached trace)."""
    import httpx

    from explorer.interpret.request import TraceRequest

    settle(page)
    page.wait_for_function("() => new URLSearchParams(location.search).has('sentence')")
    query = parse_qs(urlsplit(page.url).query)
    params = [(name, value) for name, values in query.items() if name in TraceRequest.model_fields for value in values]
    return httpx.get(app_url.rstrip("/") + "/ae/api/trace", params=params, timeout=60).raise_for_status().json()


class Traced:
    """A wire trace read as the viewer reads it (explorer/ui/static/trace.js), by the server's own unpacking
    (`explorer.app.wire.unpack`): the reference a drawing is held to."""

    def __init__(self, wire: dict):
        from explorer.app.wire import unpack

        self.wire, self.request = wire, wire["request"]
        self.attention = {kind: unpack(array) for kind, array in wire["attention"].items()}
        self.rollout = {kind: unpack(array) for kind, array in wire["rollout"].items()}
        self.T, self.H = len(wire["steps"]), wire["model"]["n_heads"]

    def weights(self, kind: str, layer: int, head, t: int) -> list[list]:
        """The rows of one head ("mean": the mean of heads; "rollout") at step t; the masked future None."""
        if head == "rollout":
            rows = self.rollout[kind][layer]
        else:
            heads = self.attention[kind][layer]
            rows = heads.mean(axis=0) if head == "mean" else heads[head]
        count = rows.shape[0] if kind == "encoder_self" else min(t, rows.shape[0])
        cols = count if kind == "decoder_self" else rows.shape[1]
        masked = kind == "decoder_self"
        return [[None if masked and j > i else float(rows[i, j]) for j in range(cols)] for i in range(count)]
