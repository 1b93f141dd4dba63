"""The "Without the mask" view in headless Chromium at 1366x768: it asks the server once, and draws what the answer
holds (both translations, the accuracy and the weight on the next position, both loss curves, the maskless model's
attention with every next-position cell outlined); it fits the projector in both modes; offline it says it needs the
server."""

from __future__ import annotations

import pytest
from browser_fixtures import open_page, settle, shot

pytestmark = pytest.mark.browser


def open_view(page) -> dict:
    with page.expect_response(lambda r: "/ae/api/ask/maskless" in r.url, timeout=60_000) as asked:
        page.locator(".ae-view-tabs button", has_text="Without the mask").click()
    answer = asked.value.json()
    assert "error" not in answer, answer
    page.wait_for_selector(".ae-maskless-plot .main-svg")
    settle(page)
    return answer


def test_the_view_draws_both_runs_from_the_servers_answer(browser, app_url):
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        answer = open_view(page)
        text = page.locator(".ae-maskless-text").text_content()
        forced = answer["forced"]
        shown = [f"“{t}”" if t else "nothing: its first word is </s>" for t in answer["translations"].values()]
        for needle in (
            *shown,
            f"{round(100 * forced['accuracy'])}% of the next words right",
            f"puts {forced['next_weight']:.2f} of its weight on the next position",
            f"training loss at the end {answer['runs']['without_mask']['final_loss']:g}, validation loss "
            f"{answer['runs']['without_mask']['valid_loss']:g}, chrF {answer['runs']['without_mask']['chrf']:g}",
        ):
            assert needle in text, (needle, text)
        # the runs behave as the lesson says: without the mask the loss ends far lower and the cheat is visible
        assert answer["runs"]["without_mask"]["final_loss"] < answer["runs"]["with_mask"]["final_loss"] - 1
        assert forced["next_weight"] > 0.5
        legend = page.locator(".ae-maskless-plot .legendtext").all_text_contents()
        assert legend == ["with the mask", "without the mask"]
        outlined = page.locator(".ae-maskless-plot .shapelayer path").count()
        assert outlined == len(forced["inputs"]) - 1  # every next-position cell
        rows = page.locator(".ae-maskless-plot .yaxislayer-above .y2tick text").all_text_contents()
        assert rows[0] == f"<s> → {forced['targets'][0]}"
        # asked once per trace: drawing again (a resize, presentation mode) asks nothing
        asked = []
        page.on("request", lambda r: asked.append(r.url) if "/ask/" in r.url else None)
        page.locator("#presentation input").click()
        settle(page)
        page.wait_for_timeout(300)
        assert asked == []
        expect(page.locator(".ae-caption")).to_contain_text("trained twice, with and without the look-ahead mask")
        shot(page, "maskless-presentation")
    finally:
        page.context.close()
