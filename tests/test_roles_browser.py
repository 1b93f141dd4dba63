"""Head roles and "Source or prefix" in headless Chromium on the shipped lecture model: the chips on the head buttons,
the All heads tiles and Heads that matter, the lesson's Many heads stop, the view's bars and caption, in presentation
mode at 1366x768 too, and a room's student following the lecturer onto the view."""

from __future__ import annotations

import re

import pytest
from browser_fixtures import choose, open_page, settle, shot

pytestmark = pytest.mark.browser


def roles(url) -> dict:
    """The roles the page brings: the shipped checkpoint stores them (and the API answers the same)."""
    import httpx

    listed = httpx.get(f"{url}ae/api/models", timeout=60).json()[0]["roles"]
    body = {"trace": {"sentence": "I see the sea."}, "question": {"what": "roles"}}
    answer = httpx.post(f"{url}ae/api/ask/roles", json=body, timeout=120).json()
    assert answer["heads"] == listed["heads"]
    return {(h["kind"], h["layer"], h["head"]): h for h in answer["heads"]}


@pytest.mark.parametrize("presentation", [False, True], ids=["desk", "presentation"])
def test_the_heads_chips_say_their_roles_on_the_buttons_tiles_and_heads_that_matter(browser, shipped_url, presentation):
    from playwright.sync_api import expect

    measured = roles(shipped_url)
    labelled = [key for key, h in measured.items() if h["role"] and key[0] == "encoder_self"]
    assert labelled, measured  # the lecture model's encoder has previous- and next-token heads
    kind, layer, head = labelled[0]
    page = open_page(browser, shipped_url)
    try:
        if presentation:
            page.locator("#presentation input").check()
        choose(page, kind=kind, layer=layer, head=head)
        button = page.locator(f".ae-viewer .ae-heads button[data-value='{head}']")
        short = {"previous token": "prev", "next token": "next", "self": "self"}.get(measured[labelled[0]]["role"])
        expect(button.locator(".ae-role-chip")).to_have_text(short)  # the shown head's chip, on a projector too
        expect(button.locator(".ae-role-chip")).to_be_visible()
        assert measured[labelled[0]]["says"] in button.get_attribute("title")
        others = page.locator(".ae-viewer .ae-heads button:not(.ae-on) .ae-role-chip")
        assert all(not chip.is_visible() for chip in others.all())  # theirs in their tooltips: the row stays one line
        for other in page.locator(".ae-viewer .ae-heads button:not(.ae-on)").all():
            value = other.get_attribute("data-value")
            if value.isdigit() and measured[(kind, layer, int(value))]["role"]:
                assert measured[(kind, layer, int(value))]["says"] in other.get_attribute("title")
        choose(page, view="mosaic")
        page.wait_for_selector(".ae-mosaic .main-svg")
        expect(
            page.locator(".ae-mosaic .annotation-text", has_text=re.compile(r"^(prev|next|self|sink|align)$")).first
        ).to_be_visible()
        shot(page, f"roles-mosaic-{'presentation' if presentation else 'desk'}")
        choose(page, view="heatmap")
        page.locator(".ae-tools button", has_text="Heads that matter").click()
        page.wait_for_selector(".ae-heads-grid")
        cell = page.locator(f".ae-heads-grid[data-kind='{kind}'] td[data-layer='{layer}'][data-head='{head}']").first
        expect(cell.locator(".ae-role")).to_have_text(short)
        assert "Its role: " + measured[labelled[0]]["says"] in cell.get_attribute("title")
        if presentation:  # on a projector the tile keeps its number; its role is in its tooltip
            expect(cell.locator(".ae-role")).to_be_hidden()
        else:
            expect(cell.locator(".ae-role")).to_be_visible()
        shot(page, f"roles-heads-{'presentation' if presentation else 'desk'}")
    finally:
        page.context.close()


def test_the_lessons_many_heads_stop_names_the_measured_roles(browser, shipped_url):
    from playwright.sync_api import expect

    page = open_page(browser, shipped_url + "?sentence=I+know+that+he+reads+a+book+every+day.&lesson=10")
    try:
        expect(page.locator(".ae-lesson-title")).to_contain_text("Many heads")
        expect(page.locator(".ae-lesson-text")).to_contain_text(re.compile(r"Over \d+ sentences, heads take roles: "))
        expect(page.locator(".ae-lesson-text")).to_contain_text("of the mass on the token")
    finally:
        page.context.close()


@pytest.mark.parametrize("presentation", [False, True], ids=["desk", "presentation"])
def test_source_or_prefix_draws_a_bar_per_token_and_names_the_current_one(browser, shipped_url, presentation):
    from playwright.sync_api import expect

    page = open_page(browser, shipped_url + "?step=6")
    try:
        if presentation:
            page.locator("#presentation input").check()
        choose(page, view="contributions")
        page.wait_for_selector(".ae-contributions .main-svg")
        settle(page)
        bars = page.locator(".ae-contributions .barlayer .trace")
        assert bars.count() == 2  # the source's share and the prefix's, stacked
        assert page.locator(".ae-contributions .barlayer .trace").first.locator("path").count() == 6  # steps 1..6
        if presentation:
            page.locator(".ae-caption summary").click()
        expect(page.locator(".ae-caption")).to_contain_text(
            re.compile(r"Step 6: “jeden” takes 0\.\d\d of its prediction from the source")
        )
        page.keyboard.press("ArrowRight")
        expect(page.locator(".ae-caption")).to_contain_text("Step 7:")
        shot(page, f"contributions-{'presentation' if presentation else 'desk'}")
    finally:
        page.context.close()


def test_a_room_follows_the_lecturer_onto_source_or_prefix(browser, shipped_url):
    from test_classroom import room, same_view

    with room(browser, shipped_url) as (lecturer, student, _):
        lecturer.keyboard.press("ArrowRight")
        choose(lecturer, view="contributions")
        same_view(student, lecturer)
        student.wait_for_selector(".ae-contributions .main-svg")
