"""The logit lens view in headless Chromium at 1366x768: one row per decoder layer at the current step, from one
answer of /ask/lens asked when the view opens (none while stepping), the chosen token outlined where a layer ranks
it, following the step."""

from __future__ import annotations

import pytest
from browser_fixtures import on_screen, settle, shot, shown

pytestmark = pytest.mark.browser


def test_the_lens_draws_each_layers_prediction_at_this_step_asked_once(page, app_url):
    from playwright.sync_api import expect

    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/ae/api/" in r.url and "/ae/api/client" not in r.url else None)
    with page.expect_response(lambda r: r.url.endswith("/ae/api/ask/lens")) as answered:
        page.locator(".ae-view-tabs button", has_text="Logit lens").click()
    lens = answered.value.json()
    page.wait_for_selector(".ae-lens .main-svg")
    settle(page)
    wire, step = on_screen(page, app_url), shown(page)["step"]
    chosen = wire["steps"][step - 1]
    rows = page.locator(".ae-lens .yaxislayer-above .ytick text").all_text_contents()
    assert rows == [f"layer {layer}" + (" (the output)" if layer == 1 else "") for layer in range(2)]
    cells = page.locator(".ae-lens text").all_text_contents()  # each cell's token and probability, as drawn
    for layer in range(2):
        token, p = lens["top_tokens"][layer][step - 1][0], lens["top_probs"][layer][step - 1][0]
        assert token + f"{p:.2f}" in cells, (token, p, cells)
    outlined = sum(chosen["id"] in lens["top_ids"][layer][step - 1] for layer in range(2))
    assert page.locator(".ae-lens .shapelayer path").count() == outlined + 1  # + the line before p(chosen)
    expect(page.locator(".ae-lens .gtitle")).to_contain_text(f"step {step}")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".ae-lens .gtitle")).to_contain_text(f"step {step + 1}")
    assert [u for u in asked if "/ask/lens" in u] == asked and len(asked) == 1  # asked once; stepping asks nothing
    shot(page, "logit-lens")
