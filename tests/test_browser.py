"""The app in headless Chromium: step a sentence, read the rendered heatmap labels, visit every tab.

Full-page screenshots of each tab go to tests/artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts"
TEXT = "The dog sees the cat."
CURRENT_RGB = "213, 94, 0"  # the "current" chip colour (#D55E00)
TIMEOUT_MS = 30_000


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"\nscreenshot: {path}")
    return path


def chip_texts(page, elem_id: str) -> list[str]:
    return page.locator(f"#{elem_id} .token .text").all_text_contents()


def literal(pieces: list[str]) -> str:
    """Pieces joined back into the typed characters (display markers removed)."""
    return "".join(pieces).replace("·", "").replace("\u2581", "")


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


@pytest.fixture(scope="module")
def session(browser, app_url):
    """One page for the module, with TEXT started and stepped three times; `dialogs` records any alert()."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    dialogs: list[str] = []

    def on_dialog(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(app_url, wait_until="load")  # never "networkidle": gradio keeps a connection open
    page.wait_for_selector("#sentence textarea")
    start(page, TEXT)
    for k in (1, 2, 3):
        page.click("#next-btn")
        expect(page.locator("#status-md")).to_contain_text(f"Step {k}:")
    yield page, dialogs
    context.close()


def start(page, text):
    from playwright.sync_api import expect

    page.fill("#sentence textarea", text)
    page.click("#start-btn")
    expect(page.locator("#status-md")).to_contain_text("Ready: press Next token")


def test_three_steps_show_in_slider_chips_and_heatmap_axes(session, tiny_tokenizer):
    from playwright.sync_api import expect

    page, _ = session
    source = tiny_tokenizer.pieces(tiny_tokenizer.encode(TEXT)) + ["</s>"]
    assert page.locator("#step-slider input[type=number]").input_value() == "3"
    assert page.locator("#step-slider input[type=range]").input_value() == "3"

    targets = chip_texts(page, "target-chips")
    assert len(targets) == 4 and targets[0] == "<s>"
    last_style = page.locator("#target-chips .token").last.get_attribute("style")
    assert CURRENT_RGB in last_style  # the newest token is drawn as "current"
    assert chip_texts(page, "source-chips") == source

    plot = page.locator("#attention-plot")
    expect(plot.locator(".ytick text")).to_have_count(3)
    assert plot.locator(".ytick text").all_text_contents() == targets[1:]
    assert plot.locator(".xtick text").all_text_contents() == source  # "</s>" drawn literally, not as markup
    plot.locator(".main-svg").first.hover()  # plotly's toolbar exports the figure as PNG
    expect(plot.locator('[data-title="Download plot as a PNG"]')).to_have_count(1)
    shot(page, "01-translate-step3")


TABS = [
    ("All heads", "02-all-heads", "#overview-plot .main-svg"),
    ("Look-ahead mask", "03-lookahead-mask", "#mask-plot .main-svg"),
    ("Positional encoding", "04-positional-encoding", "#pe-heatmap .main-svg"),
    ("Head ablation", "05-head-ablation", "#ablate-btn"),
    ("Train", "06-train", "#train-btn"),
    ("About the model", "07-about-the-model", "text=parameters"),
    ("Translate & step", "08-translate-again", "#attention-plot .main-svg"),
]


def test_every_tab_shows_its_main_element(session):
    from playwright.sync_api import expect

    page, _ = session
    for label, name, selector in TABS:
        page.get_by_role("tab", name=label, exact=True).click()
        expect(page.locator(selector).first).to_be_visible()
        if label == "All heads":
            expect(page.locator("#overview-plot .annotation-text", has_text="head 3").first).to_be_visible()
        if label == "Look-ahead mask":
            expect(page.locator("#mask-plot .ytick text")).to_have_count(4)  # <s> and the 3 tokens produced
            assert page.locator("#mask-plot .ytick text").first.text_content() == "<s>"
            expect(page.locator("#stages-plot .main-svg").first).to_be_visible()
        if label == "Positional encoding":
            expect(page.locator("#pe-wave-plot .main-svg").first).to_be_visible()
        page.wait_for_timeout(300)  # let plotly finish drawing before the screenshot
        shot(page, name)


def test_presentation_mode_sets_the_body_class(session):
    from playwright.sync_api import expect

    page, _ = session
    body = page.locator("body")
    page.locator("#presentation input[type=checkbox]").check()
    expect(body).to_have_class(re.compile(r"\bpresentation\b"))
    size = page.evaluate("getComputedStyle(document.body).getPropertyValue('--body-text-size').trim()")
    assert size == "21px"
    shot(page, "09-presentation-mode")
    page.locator("#presentation input[type=checkbox]").uncheck()
    expect(body).not_to_have_class(re.compile(r"\bpresentation\b"))


def test_an_error_is_shown_as_a_readable_toast(session):
    from playwright.sync_api import expect

    page, _ = session
    page.fill("#sentence textarea", "   ")
    page.click("#start-btn")
    expect(page.get_by_text("the box is empty").first).to_be_visible()
    shot(page, "10-error-toast")


def test_markup_typed_as_a_sentence_is_shown_as_text(session):
    from playwright.sync_api import expect

    page, dialogs = session
    text = "<img src=x onerror=alert(1)>"
    start(page, text)
    page.click("#next-btn")
    expect(page.locator("#status-md")).to_contain_text("Step 1:")
    source = chip_texts(page, "source-chips")
    assert literal(source) == text.replace(" ", "") + "</s>"
    assert page.locator("#source-chips img, #attention-plot img, #status-md img").count() == 0
    expect(page.locator("#attention-plot .xtick text")).to_have_count(len(source))
    assert page.locator("#attention-plot .xtick text").all_text_contents() == source
    page.wait_for_timeout(500)
    assert dialogs == [], f"a dialog fired: {dialogs}"
    shot(page, "11-markup-as-text")
