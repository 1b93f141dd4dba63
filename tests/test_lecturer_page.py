"""A lecturer's page at 1366x768 in presentation mode (issue 66 #2, #3): a reload keeps presentation mode, and "/"
opens a field for the next sentence under the step controls, in the window, without scrolling the viewer away."""

from __future__ import annotations

import re

import pytest
from browser_fixtures import open_page, settle, shot

pytestmark = pytest.mark.browser

NEXT = "The cat sees the dog."


def presenting(page) -> bool:
    return page.evaluate("() => document.body.classList.contains('presentation')")


def test_a_reload_keeps_presentation_mode_and_leaving_it_is_kept_too(browser, app_url):
    page = open_page(browser, app_url)
    try:
        page.locator("#presentation input").check()
        assert presenting(page)
        page.reload(wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        page.wait_for_function("() => document.body.classList.contains('presentation')")
        assert page.locator("#presentation input").is_checked()  # the header's switch agrees with the page
        page.locator("#presentation input").uncheck()
        page.reload(wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        page.wait_for_timeout(500)
        assert not presenting(page)
    finally:
        page.context.close()


def test_slash_opens_the_next_sentence_in_the_window_and_enter_decodes_it(browser, app_url):
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        page.locator("#presentation input").check()
        settle(page)
        page.keyboard.press("ArrowRight")
        scrolled = page.evaluate("() => window.scrollY")
        page.keyboard.press("/")
        field = page.locator(".ae-sentence-input")
        expect(field).to_be_focused()
        box = field.bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= 768  # in the window
        assert page.evaluate("() => window.scrollY") == scrolled  # the viewer did not move
        opening = field.input_value()
        assert opening  # it holds the sentence on screen, selected: typing replaces it
        shot(page, "sentence-field-presentation")
        page.keyboard.type(NEXT)
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(s) => new URLSearchParams(location.search).get('sentence') === s", arg=NEXT, timeout=30_000
        )
        settle(page)
        expect(field).to_be_hidden()
        expect(page.locator("#sentence textarea")).to_have_value(NEXT)  # the page's box agrees
        assert page.evaluate("() => window.scrollY") == scrolled
        page.keyboard.press("ArrowRight")  # the keys step the viewer again
        expect(page.locator(".ae-step")).to_contain_text("Step 1 /")
        page.keyboard.press("/")
        page.keyboard.press("Escape")
        expect(field).to_be_hidden()
    finally:
        page.context.close()


@pytest.mark.parametrize("asked", [42, 0])
def test_a_link_to_a_lesson_stop_the_lesson_lacks_is_named_and_opens_the_nearest(browser, app_url, asked):
    from playwright.sync_api import expect

    page = open_page(browser, f"{app_url}?sentence=The+dog+sees+the+cat.&lesson={asked}")
    try:
        settle(page)
        message = page.locator(".ae-message")
        expect(message).to_contain_text(f"lesson stop {asked}")
        expect(message).to_contain_text("the lesson has 12 stops (1–12)")
        nearest = 12 if asked > 12 else 1
        expect(page.locator(".ae-lesson-title")).to_contain_text(f"Lesson {nearest} / 12")
    finally:
        page.context.close()


def test_a_png_of_cross_attention_at_step_0_is_said_not_downloaded_blank(browser, app_url):
    """Issue 66 #8: at step 0 cross-attention has no row yet, and the PNG was a blank slide."""
    from playwright.sync_api import expect

    page = open_page(browser, f"{app_url}?sentence=The+dog+sees+the+cat.&step=0&kind=cross")
    downloads = []
    page.on("download", lambda d: downloads.append(d.suggested_filename))
    try:
        settle(page)
        page.locator(".ae-tools button", has_text="PNG").click()
        expect(page.locator(".ae-message")).to_contain_text("step once (→) and press PNG again")
        page.wait_for_timeout(300)
        assert downloads == []
        page.keyboard.press("ArrowRight")
        with page.expect_download() as got:
            page.locator(".ae-tools button", has_text="PNG").click()
        assert got.value.suggested_filename.endswith("-step1.png")
    finally:
        page.context.close()


@pytest.mark.parametrize("presentation", [True, False], ids=["presentation", "desk"])
def test_a_panel_and_the_lesson_open_in_the_window_after_the_lecturer_scrolled(browser, app_url, presentation):
    """Issue 66 #3: scrolled down the page, a lecturer opened a panel or the lesson out of sight."""
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        if presentation:
            page.locator("#presentation input").check()
        settle(page)
        page.keyboard.press("ArrowRight")
        in_window = (
            "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
            " return r.top >= 0 && r.top < innerHeight - 40; }"
        )
        for opens, shown in [("Heads that matter", ".ae-panel"), ("Lesson", ".ae-lesson")]:
            page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # the lecturer scrolled down
            page.wait_for_timeout(200)
            page.locator(".ae-tools button", has_text=opens).click()
            expect(page.locator(shown)).to_be_visible()
            page.wait_for_timeout(300)
            assert page.evaluate(in_window, shown), (opens, page.evaluate("() => window.scrollY"))
            page.keyboard.press("Escape")
    finally:
        page.context.close()


def test_a_refused_link_says_what_was_refused_and_the_box_holds_the_sentence_shown(browser, app_url):
    """Issue 66 #6: a link the server refused said only the server's words, and the sentence box kept the link's
    sentence while the viewer showed the opening example."""
    from playwright.sync_api import expect

    page = open_page(browser, f"{app_url}?sentence=The+cat+sees+the+dog.&strategy=sample&temperature=99")
    try:
        settle(page)
        message = page.locator(".ae-message")
        expect(message).to_contain_text("This link's decode was refused")
        expect(message).to_contain_text(re.compile("temperature 99", re.I))  # the server names the value it refused
        shown = message.inner_text().rsplit("still shows “", 1)[1].rsplit("”", 1)[0]
        expect(page.locator("#sentence textarea")).to_have_value(shown)  # the box agrees with the viewer
        assert shown != "The cat sees the dog."
    finally:
        page.context.close()
