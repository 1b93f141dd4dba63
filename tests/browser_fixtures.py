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
