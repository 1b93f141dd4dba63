"""The "Value path" view in headless Chromium at 1366x768: it draws the server's tensors for the shown head and
step (the weighted sum z is the head's slice of what the module handed its output projection), follows the head,
the step and the kind, and fits the projector."""

from __future__ import annotations

import numpy as np
import pytest
from browser_fixtures import open_page, settle, shot, shown

pytestmark = pytest.mark.browser


def asked_while(page, action) -> dict:
    with page.expect_response(lambda r: "/ae/api/ask/value_path" in r.url, timeout=60_000) as asked:
        action()
    answer = asked.value.json()
    assert "error" not in answer, answer
    page.wait_for_selector(".ae-valuepath-plot .main-svg")
    settle(page)
    return answer


def test_the_value_path_draws_the_heads_own_tensors(browser, app_url):
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        state = shown(page)
        answer = asked_while(page, lambda: page.locator(".ae-view-tabs button", has_text="Value path").click())
        assert (answer["kind"], answer["layer"], answer["head"], answer["row"]) == (
            state["kind"],
            state["layer"],
            state["head"],
            state["step"] - 1,
        )
        d_head, head = answer["d_head"], answer["head"]
        np.testing.assert_allclose(answer["z"], answer["concat"][head * d_head : (head + 1) * d_head], atol=2e-4)
        np.testing.assert_allclose(answer["z"], np.array(answer["weights"]) @ np.array(answer["values"]), atol=2e-4)
        labels = page.locator(".ae-valuepath-plot .annotation-text").all_text_contents()
        for name in (
            "x",
            "LN(x)",
            "q",
            "keys k",
            "values v",
            "z",
            "heads",
            "out",
            "x+out",
            "× W_q",
            "softmax",
            "Σ w·v",
            "× W_o",
        ):
            assert any(label.startswith(name) for label in labels), (name, "|".join(labels))
        assert f"·H{head}" in page.locator(".ae-valuepath-plot .gtitle").text_content()
        shot(page, "value-path")
        # another head, another step: a new question each, drawn
        other = (head + 1) % 4
        moved = asked_while(page, lambda: page.keyboard.press(str(other)))
        assert moved["head"] == other
        moved = asked_while(page, lambda: page.keyboard.press("ArrowRight"))
        assert moved["row"] == state["step"]
        # the encoder's query is a source token, chosen in the view
        encoder = asked_while(page, lambda: page.locator(".ae-kinds button", has_text="Encoder self").click())
        assert encoder["kind"] == "encoder_self"
        assert (encoder["embedding"] is not None) == (encoder["layer"] == 0)  # emb + PE is drawn at layer 0 only
        expect(page.locator(".ae-valuepath-row")).to_be_visible()
        chosen = asked_while(page, lambda: page.select_option(".ae-valuepath-row", "2"))
        source = page.locator(".ae-source-chips .ae-chip").all_text_contents()  # the source tokens on screen
        assert chosen["row"] == 2 and chosen["row_token"] == source[2]
        page.keyboard.press("m")  # the mean of heads is no one head's path: said, not drawn
        expect(page.locator(".ae-valuepath-plot")).to_contain_text("choose a head")
    finally:
        page.context.close()


def test_on_the_projector_each_key_keeps_its_token_and_its_weight(browser, app_url):
    """Issue 66 #4: in presentation mode at 1366x768 the keys' tokens and the values' weights went to the hover (the
    columns were narrower than 16 px text). The keys' and values' columns now widen, and each is written at 16 px."""
    from urllib.parse import urlencode

    page = open_page(browser, f"{app_url}?{urlencode({'sentence': 'The dog and the cat sleep.', 'step': 3})}")
    try:
        page.locator("#presentation input").check()
        settle(page)
        answer = asked_while(page, lambda: page.locator(".ae-view-tabs button", has_text="Value path").click())
        texts = page.evaluate(
            """() => [...document.querySelectorAll('.ae-valuepath-plot .annotation-text')].map((t) =>
                 [t.textContent, parseFloat(getComputedStyle(t).fontSize)])"""
        )
        weights = [f"{v:.2f}".removeprefix("0") for v in answer["weights"]]  # as drawn: ".23", "1.00"
        drawn = {text: size for text, size in texts}
        for token in answer["key_tokens"]:
            assert token in drawn and drawn[token] >= 16, (token, texts)
        assert sum(1 for text, size in texts if text in weights and size >= 16) >= len(weights), (weights, texts)
        assert len(answer["key_tokens"]) >= 10  # a sentence whose keys did not fit before
        shot(page, "value-path-presentation")
    finally:
        page.context.close()
