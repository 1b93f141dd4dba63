"""The viewer on a projector, in headless Chromium: at 1366x768, 1280x720 and 1920x1080, in normal and presentation
mode, with the decoding options open or closed, every view and attention kind keeps the step controls, the status
line and a chart of at least 55% of the window's height in view together, with no two labels overlapping and no
text clipped (measured element boxes). Panels open where the eye is and close; the page around the viewer agrees
with it (the model's name, the switched-off heads); Enter leaves the keys to the viewer.

Screenshots go to tests/artifacts/projector-*.png for a person to look at.
"""

from __future__ import annotations

import pytest
from browser_fixtures import open_page, shot

pytestmark = pytest.mark.browser

SIZES = [(1366, 768), (1280, 720), (1920, 1080)]
VIEWS = {  # view -> the element that is its chart
    "heatmap": ".ae-heat canvas",
    "headview": ".ae-headview",
    "mosaic": ".ae-mosaic .main-svg",
    "mask": ".ae-mask",
    "compare": ".ae-compare",
}
KINDS = ["encoder_self", "decoder_self", "cross"]

MEASURE = """(chartSelector) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => e && e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const v = window.aeViewer;
  const controls = [v.buttons.reset, v.buttons.prev, v.buttons.next, v.buttons.end, document.querySelector('.ae-step')];
  const rows = ['.ae-toolbar', '.ae-view-tabs', '.ae-kinds', '.ae-layers', '.ae-heads', '.ae-tools', '#header'];
  const children = (sel) => [...document.querySelectorAll(sel + ' > *')].filter(shown);
  const groups = rows.map((sel) => children(sel).map((e) => [sel, box(e)]));
  const texts = [...document.querySelectorAll('.ae-viewer button, .ae-row-label, .ae-status-line, .ae-step, .ae-title')]
    .filter(shown).filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent.slice(0, 40));
  const heat = document.querySelector('.ae-heat')._heat;
  const maps = [...document.querySelectorAll('.ae-heat, .ae-compare-map')].filter((d) => shown(d) && d._heat);
  const cut = maps.filter((d) => d._heat.fits && !(d._heat.fits.title && d._heat.fits.axes)).map((d) => d.className);
  return {
    controls: controls.map(box), status: box(document.querySelector('.ae-status-line')),
    chart: shown(document.querySelector(chartSelector)) ? box(document.querySelector(chartSelector)) : null,
    groups: groups, clipped: texts.concat(cut.map((c) => 'a title or axis title of ' + c)),
    labels: v.state.view === 'heatmap' && heat.geom ? heat.geom.labels : null,
  };
}"""


def overlaps(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


def inside(box, width, height) -> bool:
    return box[0] >= -1 and box[1] >= -1 and box[2] <= width + 1 and box[3] <= height + 1


def check(m: dict, width: int, height: int, where: str) -> list[str]:
    """What is wrong with one measured layout, in words (empty: it fits)."""
    problems = []
    if not all(inside(b, width, height) for b in m["controls"]):
        problems.append(f"{where}: the step controls leave the window: {m['controls']}")
    if not inside(m["status"], width, height):
        problems.append(f"{where}: the status line leaves the window: {m['status']}")
    chart = m["chart"]
    seen = 0 if chart is None else max(0, min(chart[3], height) - max(chart[1], 0))
    if seen < 0.55 * height:
        problems.append(f"{where}: {seen:.0f} px of chart in view, under 55% of {height}")
    for group in m["groups"]:
        for i, (sel, a) in enumerate(group):
            for _, b in group[i + 1 :]:
                if overlaps(a, b):
                    problems.append(f"{where}: two elements of {sel} overlap: {a} {b}")
    if m["clipped"]:
        problems.append(f"{where}: clipped text: {m['clipped']}")
    labels = m["labels"]
    if labels:  # the labels as drawn: rows a line apart; columns side by side, or rotated a line apart
        font, rows, columns = labels["font"], labels["rows"], labels["columns"]
        for above, below in zip(rows, rows[1:]):
            if below - above < font:
                problems.append(f"{where}: row labels at y={above:.0f} and {below:.0f} overlap (font {font} px)")
        for (x1, w1), (x2, w2) in zip(columns, columns[1:]):
            apart = (x2 - x1) * (0.866 if labels["rotated"] else 1)  # rotated by 60 degrees: their normal distance
            need = font if labels["rotated"] else (w1 + w2) / 2 + 2
            if apart < need:
                problems.append(f"{where}: column labels at x={x1:.0f} and {x2:.0f} overlap")
    return problems


def set_mode(page, presentation: bool, options_open: bool):
    box = page.locator("#presentation input")
    if box.is_checked() != presentation:
        box.click()
    accordion = page.locator("#options button").first
    if (page.locator("#opt-strategy").is_visible()) != options_open:
        accordion.click()
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(150)


def show(page, view: str, kind: str, head="'all'"):
    page.evaluate(f"window.aeViewer.select({{view: '{view}', kind: '{kind}', head: {head}}}, 'test')")
    page.evaluate("window.aeViewer.rendered")
    if view in ("mosaic", "mask"):
        page.wait_for_selector(VIEWS[view] if view == "mosaic" else ".ae-mask .main-svg")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_view_fits_the_projector_with_nothing_overlapping_or_clipped(browser, app_url, size):
    width, height = size
    page = open_page(browser, app_url)
    problems = []
    try:
        page.set_viewport_size({"width": width, "height": height})
        page.keyboard.press("End")  # the longest rows: every label of the decode
        page.evaluate("window.aeViewer.askCompare('', 'same')")  # B: the same sentence, so A − B is drawn too
        page.wait_for_function("window.aeViewer.compareTrace !== null")
        for presentation in (False, True):
            for options_open in (False, True):
                set_mode(page, presentation, options_open)
                for view, head in [*((v, "'all'") for v in VIEWS), ("heatmap", "0")]:  # one head: labels upright
                    for kind in KINDS if view != "mask" else ["decoder_self"]:
                        show(page, view, kind, head)
                        where = f"{width}x{height} {'presentation' if presentation else 'normal'} "
                        where += f"options {'open' if options_open else 'closed'} {view} {kind}"
                        problems += check(page.evaluate(MEASURE, VIEWS[view]), width, height, where)
                        if kind == "cross" and not options_open:
                            mode = "presentation" if presentation else "normal"
                            shot(page, f"projector-{width}-{mode}-{view}")
        assert not problems, "\n".join(problems[:20])
    finally:
        page.context.close()


def test_enter_leaves_the_keys_to_the_viewer_and_translating_again_starts_over(page):
    from playwright.sync_api import expect

    page.fill("#sentence textarea", "The dog sees the cat.")
    page.press("#sentence textarea", "Enter")
    page.wait_for_function("window.aeViewer.trace.request.sentence === 'The dog sees the cat.'")
    expect(page.locator(".ae-step")).to_have_text("Step 0 / " + str(page.evaluate("window.aeViewer.trace.T")))
    page.keyboard.press("ArrowRight")  # the sentence box let go of the keys: → steps, it does not move a cursor
    page.keyboard.press("ArrowRight")
    expect(page.locator(".ae-step")).to_contain_text("Step 2 /")
    page.locator("#start-btn").click()  # the same sentence again: back to the start
    expect(page.locator(".ae-step")).to_contain_text("Step 0 /")


def test_every_panel_opens_in_view_and_closes(page):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1366, "height": 768})
    page.keyboard.press("ArrowRight")
    for label, ready in [
        ("Heads that matter", ".ae-heads-grid"),
        ("Attention vs attribution", ".ae-attr"),
        ("Beam tree", ".ae-beamtree canvas"),
    ]:
        page.locator(".ae-tools button", has_text=label).click()
        expect(page.locator(ready).first).to_be_visible(timeout=30_000)
        top, bottom = page.evaluate(
            "(() => { const r = document.querySelector('.ae-panel').getBoundingClientRect(); "
            "return [r.top, r.bottom]; })()"
        )
        assert 0 <= top and bottom <= 768, (label, top, bottom)  # where the eye is, not below the fold
        shot(page, "projector-panel-" + label.lower().replace(" ", "-"))
        if label == "Beam tree":
            page.keyboard.press("Escape")
        else:
            page.locator(".ae-panel-close").click()
        expect(page.locator(".ae-panel")).to_be_hidden()
    page.evaluate("window.aeViewer.select({view: 'heatmap', kind: 'cross', head: 0})")
    box = page.evaluate("window.aeViewer.heat._heat.geom")
    canvas = page.locator(".ae-heat canvas").bounding_box()
    page.mouse.click(canvas["x"] + box["panels"][0]["x0"] + box["cw"] / 2, canvas["y"] + box["top"] + box["ch"] / 2)
    expect(page.locator(".ae-explain-row")).to_be_visible(timeout=30_000)  # the explained cell, in view too
    assert page.evaluate("document.querySelector('.ae-panel').getBoundingClientRect().bottom") <= 768


def test_the_header_names_the_model_of_the_trace_on_screen(page):
    from playwright.sync_api import expect

    name = page.evaluate("window.aeViewer.trace.model.name")
    expect(page.locator("#title .ae-model-name")).to_have_text(name)
    page.evaluate(
        "(() => { const w = structuredClone(window.aeViewer.trace.wire); w.model.name = 'a trained model'; "
        "w.model_key = 'k'; window.aeViewer.load(w); })()"
    )
    expect(page.locator("#title .ae-model-name")).to_have_text("a trained model")


def test_the_png_of_compare_holds_both_maps_and_the_head_view_has_its_key(browser, app_url):
    from PIL import Image

    page = open_page(browser, app_url, accept_downloads=True)
    try:
        page.keyboard.press("ArrowRight")
        page.evaluate("window.aeViewer.select({view: 'compare', kind: 'cross', head: 0})")
        page.evaluate("window.aeViewer.askCompare('', 'same')")
        page.wait_for_function("window.aeViewer.compareTrace !== null")
        page.evaluate("window.aeViewer.rendered")
        sizes = page.evaluate(
            "['.ae-compare-a canvas', '.ae-compare-b canvas'].map((s) => document.querySelector(s).width)"
        )
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="PNG").click()
        image = Image.open(info.value.path())
        assert image.width >= sum(sizes)  # A and B side by side (and A − B below)
        page.evaluate("window.aeViewer.select({view: 'headview'})")
        page.evaluate("window.aeViewer.rendered")
        drawn = page.evaluate("document.querySelector('.ae-headview canvas').height")
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="PNG").click()
        assert Image.open(info.value.path()).height > drawn  # the title and the heads' colours above the lines
    finally:
        page.context.close()


def test_the_head_ablation_tab_and_the_viewer_show_the_same_heads(page):
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Head ablation").click()
    page.locator("#ablate-cross label", has_text="L0 H1").click()
    page.locator("#ablate-btn").click()  # re-translate with these heads off: the viewer follows
    page.wait_for_function("window.aeViewer.trace.request.ablation.length === 1")
    assert page.evaluate("window.aeViewer.trace.request.ablation") == [["cross", 0, 1]]
    page.get_by_role("button", name="Switch all heads back on").click()
    page.wait_for_function("window.aeViewer.trace.request.ablation.length === 0")
    page.get_by_role("tab", name="Translate & step").click()
    expect(page.locator(".ae-notes")).not_to_contain_text("switched off")


def test_the_selected_button_stays_readable_under_the_mouse(page):
    page.locator(".ae-heads .ae-btn.ae-on").hover()
    colours = page.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('.ae-heads .ae-btn.ae-on')); "
        "return [s.color, s.backgroundColor]; })()"
    )
    luminance = [sum(int(c) for c in colour[colour.index("(") + 1 : -1].split(",")[:3]) for colour in colours]
    assert luminance[0] - luminance[1] > 300, colours  # light text on a dark ground, not white on pale blue
