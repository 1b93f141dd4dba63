"""The greedy page's line on beam search, in headless Chromium on the shipped lecture model: where beam search (4)
writes another translation than the greedy step-through, one line says which, in beam_search's own words, once the
step-through reaches the end; one click steps through it (its tokens forced) and one goes back; the opening example
brings its answer with the page."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from browser_fixtures import PROJECTOR, open_page, settle, shot

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import OPENING_EXAMPLE

pytestmark = pytest.mark.browser

FOX = "The quick brown fox jumps over the lazy dog."  # greedy: "… den Faulpelsen."; beam 4: "… den faulen Hund."


@pytest.fixture(scope="module")
def decoded():
    """Greedy and beam 4 of a sentence, decoded here by the shipped model: the reference the page is held to."""
    from explorer.interpret.decoding import beam_search, greedy_decode
    from explorer.interpret.handle import load_handle

    handle = load_handle(SHIPPED_CHECKPOINT)

    def decode(sentence: str) -> tuple[str, str, list[int]]:
        source = handle.tokenizer.encode_source(sentence, handle.config.max_len)
        (greedy,) = greedy_decode(handle.model, [source])
        best = beam_search(handle.model, source, 4)[0]
        return handle.tokenizer.decode(greedy), handle.tokenizer.decode(best.ids), best.ids

    return decode


def test_a_different_beam_translation_is_one_line_and_one_click_steps_through_it(browser, shipped_url, decoded):
    from playwright.sync_api import expect

    greedy, beam, beam_ids = decoded(FOX)
    assert greedy != beam  # the sentence shows what the line is for
    page = open_page(browser, f"{shipped_url}?sentence={quote(FOX)}")  # at 1366x768
    try:
        page.locator("#presentation input").check()
        line = page.locator(".ae-beam-line")
        settle(page)
        assert line.is_hidden()  # asked when the step-through reaches the end of the translation
        page.keyboard.press("End")
        expect(line).to_have_text(re.compile(re.escape(f"Beam search (4) writes: “{beam}”")), timeout=30_000)
        assert line.is_visible() and line.bounding_box()["y"] + line.bounding_box()["height"] <= PROJECTOR["height"]
        shot(page, "beam-line-presentation")
        line.get_by_role("button", name="Step through it").click()
        page.wait_for_function("() => new URLSearchParams(location.search).getAll('forced_ids').length > 0")
        expect(line).to_contain_text("Stepping through what beam search (4) writes", timeout=30_000)
        page.keyboard.press("End")
        expect(page.locator(".ae-output")).to_have_text(f"Output so far: {beam}")
        forced = [int(v) for v in page.evaluate("() => new URLSearchParams(location.search).getAll('forced_ids')")]
        assert forced[: len(beam_ids)] == beam_ids
        line.get_by_role("button", name="Back to greedy").click()
        page.wait_for_function("() => !new URLSearchParams(location.search).has('forced_ids')")
        page.keyboard.press("End")
        expect(page.locator(".ae-output")).to_have_text(f"Output so far: {greedy}")
        expect(line).to_have_text(re.compile(re.escape(f"Beam search (4) writes: “{beam}”")), timeout=30_000)
        page.keyboard.press("Home")  # once known, it stays while the class steps back through greedy's choices
        expect(line).to_contain_text("Beam search (4) writes")
    finally:
        page.context.close()


def test_the_opening_example_brings_its_beam_answer_and_a_first_visit_asks_nothing(browser, shipped_url, decoded):
    greedy, beam, _ = decoded(OPENING_EXAMPLE)
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/ae/api/" in r.url else None)
    try:
        page.goto(shipped_url, wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        settle(page)
        page.wait_for_timeout(500)
        line = page.locator(".ae-beam-line")
        if greedy == beam:
            assert line.is_hidden()  # they agree: nothing to say
        else:
            assert line.inner_text().startswith(f"Beam search (4) writes: “{beam}”")
        assert asked == [], asked
    finally:
        context.close()
