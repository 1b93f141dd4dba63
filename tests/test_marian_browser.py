"""A tiny random English → French Marian folder served by `python app.py --checkpoint FOLDER` (converted on load), in
headless Chromium: every view, every panel, the lesson's stops, G, and a room work as with the project's own models;
the page names English → French, and the viewer never says German."""

from __future__ import annotations

import re

import pytest
from app_fixtures import served
from browser_fixtures import cell_centre, choose, open_page, settle, shot
from test_projector import ASKING_VIEWS

from bench.random_marian import build
from explorer.training.data import MINI_CORPUS, clean, read_tsv

pytestmark = pytest.mark.browser
pytest.importorskip("transformers")

VIEWS = ["heatmap", "headview", "mosaic", "mask", "compare", *ASKING_VIEWS]
PANELS = [  # (its button, what shows it is open)
    ("Heads that matter", ".ae-heads-grid"),
    ("Attention vs attribution", ".ae-attr"),
    ("Beam tree", ".ae-beamtree canvas"),
]
N_STOPS = 12


@pytest.fixture(scope="module")
def marian_url(tmp_path_factory):
    pairs = clean(read_tsv(MINI_CORPUS))
    folder = build(
        tmp_path_factory.mktemp("marian") / "opus-mt-en-fr",
        [p[0] for p in pairs],
        [p[1] for p in pairs],
        spm_size=100,
        eos_bias=8.0,
        init_std=1.0,
        languages=("en", "fr"),
    )
    with served(folder, tmp_path_factory.mktemp("marian-log")) as url:
        yield url


def viewer_text(page) -> str:
    return page.evaluate(
        "document.querySelector('.ae-viewer').innerText + ' ' + document.querySelector('#title').innerText"
    )


def test_every_view_panel_and_lesson_stop_of_a_converted_marian_model(browser, marian_url):
    from playwright.sync_api import expect

    page = open_page(browser, marian_url)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    said = []
    try:
        expect(page.locator("#title")).to_contain_text("English → French")
        expect(page.locator(".ae-model-name")).to_contain_text("opus-mt-en-fr")
        page.fill("#sentence textarea", "The dog sees the cat.")
        page.press("#sentence textarea", "Enter")
        settle(page)
        page.locator(".ae-viewer button", has_text="Run to end").click()  # every step drawn
        settle(page)
        for view in VIEWS:
            choose(page, view=view, kind="cross", head=0, layer=0)
            if view in ASKING_VIEWS:
                page.wait_for_selector(ASKING_VIEWS[view][2])
            elif view == "compare":
                page.locator(".ae-compare-bar button", has_text="Compare").click()
                expect(page.locator(".ae-compare-note")).to_contain_text("B: the same sentence")
            settle(page)
            said.append(viewer_text(page))
            shot(page, f"marian-view-{view}")
        choose(page, view="heatmap", kind="cross", head=0, layer=0)
        for label, ready in PANELS:
            page.locator(".ae-tools button", has_text=label).click()
            page.wait_for_selector(ready)
            settle(page)
            said.append(viewer_text(page))
            page.locator(".ae-panel-close").click()
        page.locator(".ae-heat canvas").click(position=cell_centre(page, ".ae-heat", 0, 1))  # explain a cell
        page.wait_for_selector(".ae-explain-row")
        said.append(viewer_text(page))
        page.locator(".ae-panel-close").click()
        page.keyboard.press("g")  # no German hand alignment for an English → French model: said
        expect(page.locator(".ae-viewer")).to_contain_text("this model translates English → French")
        page.get_by_role("button", name="Lesson", exact=True).click()
        for stop in range(1, N_STOPS + 1):
            if stop > 1:
                page.keyboard.press("ArrowRight")
            expect(page.locator(".ae-lesson-title")).to_contain_text(f"Lesson {stop} / {N_STOPS}")
            settle(page)
            text = " ".join(page.locator(".ae-lesson-text p").all_text_contents())
            assert text and "undefined" not in text and "NaN" not in text, (stop, text)
            said.append(text)
        assert any("French" in text for text in said)
        german = [text for text in said if re.search(r"German", text)]
        assert not german, german[0][:500]
        assert not errors, errors
    finally:
        page.context.close()


def test_a_room_follows_a_converted_marian_model(browser, marian_url):
    from playwright.sync_api import expect
    from test_classroom import room, same_view

    with room(browser, marian_url) as (lecturer, student, _):
        lecturer.keyboard.press("ArrowRight")
        lecturer.keyboard.press("2")
        same_view(student, lecturer)
        expect(student.locator("#title")).to_contain_text("English → French")
