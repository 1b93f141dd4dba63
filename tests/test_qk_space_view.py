"""The "Q·K space" view in headless Chromium at 1366x768: the server's points for the shown head, the current
query enlarged and joined to its strongest keys, hover naming a key's weight, following the head and the step."""

from __future__ import annotations

import pytest
from browser_fixtures import settle, shot, shown

pytestmark = pytest.mark.browser


def asked_while(page, action) -> dict:
    with page.expect_response(lambda r: "/ae/api/ask/qk_space" in r.url, timeout=60_000) as asked:
        action()
    answer = asked.value.json()
    assert "error" not in answer, answer
    page.wait_for_selector(".ae-qkspace .main-svg")
    settle(page)
    return answer


def test_the_view_draws_the_heads_queries_and_keys_with_the_steps_strongest_lines(page):
    from playwright.sync_api import expect

    state = shown(page)
    answer = asked_while(page, lambda: page.locator(".ae-view-tabs button", has_text="Q·K space").click())
    assert (answer["kind"], answer["layer"], answer["head"]) == (state["kind"], state["layer"], state["head"])
    lines = page.locator(".ae-qkspace .shapelayer path").count()
    assert lines == min(3, len(answer["key_tokens"]))  # the current query's strongest keys
    row = answer["weights"][state["step"] - 1]
    strongest = sorted(range(len(row)), key=lambda j: -row[j])[:3]
    named = page.locator(".ae-qkspace .annotation-text").all_text_contents()
    for j in strongest:  # each named with its weight
        assert f"{answer['key_tokens'][j]} {row[j]:.2f}" in named, (j, named)
    share = round(100 * answer["explained"][0])
    expect(page.locator(".ae-qkspace .xtitle")).to_contain_text(f"{share}% of the variance")
    shot(page, "qk-space")
    other = (state["head"] + 1) % 4
    moved = asked_while(page, lambda: page.keyboard.press(str(other)))
    assert moved["head"] == other
    page.keyboard.press("ArrowRight")  # another step: the same head's points, no new question
    expect(page.locator(".ae-qkspace .gtitle")).to_contain_text(f"step {state['step'] + 1}")
