"""The viewer on a projector, in headless Chromium: at 1366x768, 1280x720 and 1920x1080, in normal and presentation
mode, with the decoding options open or closed, every view and attention kind keeps the step controls, the status
line and a chart of at least 55% of the window's height in view together, with no two labels overlapping and no
text clipped (measured element boxes). Panels open where the eye is and close; the page around the viewer agrees
with it (the model's name, the switched-off heads); Enter leaves the keys to the viewer.

Screenshots go to tests/artifacts/projector-*.png for a person to look at.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_fixtures import cell_centre, choose, on_screen, open_page, outlined_cells, settle, shot, shown

pytestmark = pytest.mark.browser

SIZES = [(1366, 768), (1280, 720), (1920, 1080)]
LONG = (  # 33 tokens in the tiny test model's vocabulary
    "Yesterday my old friend from school, who now lives in Berlin with his wife and two children, called me."
)
VIEWS = {  # view -> the element that is its chart
    "heatmap": ".ae-heat",
    "headview": ".ae-headview",
    "mosaic": ".ae-mosaic .main-svg",
    "mask": ".ae-mask-stages",
    "compare": ".ae-compare",
}
KINDS = ["encoder_self", "decoder_self", "cross"]
FLOOR = 11  # px: the smallest label a grid draws (grid.js labelFloor)
N_STOPS = 12  # the lesson's stops (lesson.js)

MEASURE = """(chartSelector) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => e && e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const steps = [...document.querySelectorAll('.ae-toolbar > button')].slice(0, 4); // first, previous, next, last
  const controls = steps.concat([document.querySelector('.ae-step')]);
  const rows = ['.ae-toolbar', '.ae-view-tabs', '.ae-kinds', '.ae-layers', '.ae-heads', '.ae-tools', '#header'];
  const children = (sel) => [...document.querySelectorAll(sel + ' > *')].filter(shown);
  const groups = rows.map((sel) => children(sel).map((e) => [sel, box(e)]));
  const textSel = '.ae-viewer button, .ae-row-label, .ae-status-line, .ae-step, .ae-grid-title, .ae-tick-axis';
  const texts = [...document.querySelectorAll(textSel)]
    .filter(shown).filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent.slice(0, 40));
  // every labelled grid on screen: its labels as drawn (page text), its colour scales, and where its cells are (at
  // their labels: a rotated column label ends at its column's centre)
  const grids = [...document.querySelectorAll('.ae-right .ae-grid-body')].map((b) => b.parentNode)
    .filter((d) => shown(d) && d.querySelector('.ae-tick-row')).map((d) => {
    const scroll = d.querySelector('.ae-grid-scroll');
    const [headStrip, strip] = d.querySelectorAll('.ae-grid-stack > .ae-grid-strip');
    // a label's box as seen: cut to the scrolling box (or strip) that shows it; null where it is scrolled out of view
    const seen = (e, frame) => {
      const a = box(e), f = box(frame);
      const c = [Math.max(a[0], f[0]), Math.max(a[1], f[1]), Math.min(a[2], f[2]), Math.min(a[3], f[3])];
      return c[2] > c[0] && c[3] > c[1] ? c : null;
    };
    const visible = (sel, frame) => [...d.querySelectorAll(sel)].map((e) => seen(e, frame)).filter((b) => b);
    const rowLabels = [...d.querySelectorAll('.ae-tick-row')];
    const columnLabels = [...d.querySelectorAll('.ae-tick-column')];
    const rotated = columnLabels.length > 0 && columnLabels[0].classList.contains('ae-tick-rotated');
    const y = (e) => (box(e)[1] + box(e)[3]) / 2;
    const x = (e) => rotated ? box(e)[2] - parseFloat(getComputedStyle(e).lineHeight) / 2 * Math.sin(Math.PI / 3)
      : (box(e)[0] + box(e)[2]) / 2;
    const n = rowLabels.length;
    return {
      name: d.className,
      rowBoxes: rowLabels.map(box), columnBoxes: columnLabels.map(box),
      columnTexts: columnLabels.map((e) => e.textContent), rowTexts: rowLabels.map((e) => e.textContent),
      fonts: rowLabels.concat(columnLabels).map((e) => parseFloat(e.style.fontSize)),
      rotated: rotated, font: parseFloat(rowLabels[0].style.fontSize),
      ch: n > 1 ? (y(rowLabels[n - 1]) - y(rowLabels[0])) / (n - 1) : 1e9,
      cw: columnLabels.length > 1 ? Math.abs(x(columnLabels[1]) - x(columnLabels[0])) : 1e9,
      scales: [...d.querySelectorAll('.ae-scale')].map(box),
      ticks: [...d.querySelectorAll('.ae-scale-tick, .ae-scale-label, .ae-scale-masked')].map(box),
      seenLabels: visible('.ae-tick-row', scroll)
        .concat(visible('.ae-tick-column', strip), visible('.ae-tick-panel', headStrip)),
      names: [...d.querySelectorAll('.ae-tick-panel')].map(box),
      firstRow: headStrip ? headStrip.querySelectorAll('.ae-tick-panel').length : 0, // panels in a row (grid.js)
    };
  });
  // the plotly charts' text (the mosaic): titles, annotations, axis titles and ticks
  const svgText = [...document.querySelectorAll('.ae-right .main-svg text')]
    .filter((t) => shown(t.closest('.ae-plot')) && t.textContent.trim())
    .map((t) => [t.textContent.slice(0, 30), box(t)]);
  return {
    controls: controls.map(box), status: box(document.querySelector('.ae-status-line')),
    chart: shown(document.querySelector(chartSelector)) ? box(document.querySelector(chartSelector)) : null,
    groups: groups, clipped: texts, grids: grids, svgText: svgText,
  };
}"""


def measured(page, chart: str, sizes: tuple[int, int]) -> dict:
    """The layout of the page (MEASURE), with the view it shows and how many rows and labelled columns each of its
    grids must have: from the view state on screen and the trace's `sizes` (source tokens, heads)."""
    m = page.evaluate(MEASURE, chart)
    s, (S, H) = shown(page), sizes
    t, kind = s["step"], s["kind"]
    rows, keys = (S if kind == "encoder_self" else t), (t if kind == "decoder_self" else S)
    for g in m["grids"]:
        if "ae-mask-stages" in g["name"]:  # three stages of the masked decoder self-attention
            g["rows"], g["columns"] = t, 3 * t
        elif s["head"] == "all" and "ae-heat" in g["name"]:  # every head: rows of `cols` panels (grid.js), the
            cols = g["firstRow"] or H  # row labels repeated for each row of panels, the columns under each column
            g["rows"], g["columns"] = rows * -(-H // cols), keys * cols
        elif "ae-compare-diff" in g["name"] and len(g["names"]) == 3:  # A, B and A − B as panels of one grid
            cols = g["firstRow"] or 3
            g["rows"], g["columns"] = rows * -(-3 // cols), keys * cols
        else:  # the heatmap of one head, and Compare's A, B and A − B (the mean for "all")
            g["rows"], g["columns"] = rows, keys
    return m


def sizes_of(page, app_url) -> tuple[int, int]:
    """(source tokens, heads) of the trace on screen, from the network."""
    wire = on_screen(page, app_url)
    return len(wire["source_tokens"]), wire["model"]["n_heads"]


def overlaps(a, b) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


# Compare two in a projector's narrow column: the panels' names, whether the grid scrolls (a row out of view), its box
COMPARED_ROWS = """(() => { const d = document.querySelector('.ae-compare-diff');
  const s = d.querySelector('.ae-grid-scroll'), r = d.getBoundingClientRect();
  return { names: [...d.querySelectorAll('.ae-tick-panel')].map((e) => e.textContent),
    scrolls: s.scrollHeight > s.clientHeight + 3 || s.scrollWidth > s.clientWidth + 1, // 2 px: the sheet's edge
    sizes: [s.scrollWidth, s.clientWidth, s.scrollHeight, s.clientHeight],
    box: [r.left, r.top, r.right, r.bottom] }; })()"""


def inside(box, width, height) -> bool:
    return box[0] >= -1 and box[1] >= -1 and box[2] <= width + 1 and box[3] <= height + 1


def check_grid(g: dict, where: str) -> list[str]:
    """Every row and column label drawn, none under a floor size, none over another or over a colour scale."""
    problems = []
    where = f"{where} {g['name']}"
    if len(g["rowBoxes"]) != g["rows"] or len(g["columnBoxes"]) != g["columns"]:
        drawn = f"{len(g['rowBoxes'])} of {g['rows']} rows, {len(g['columnBoxes'])} of {g['columns']} columns"
        problems.append(f"{where}: {drawn} labelled")
    if g["fonts"] and min(g["fonts"]) < FLOOR:
        problems.append(f"{where}: a label at {min(g['fonts'])} px, under the {FLOOR} px floor")
    if g["ch"] < g["font"] + 1:
        problems.append(f"{where}: rows {g['ch']:.1f} px apart for {g['font']} px labels")
    for a, b in zip(g["rowBoxes"], g["rowBoxes"][1:]):
        if overlaps(a, b):
            problems.append(f"{where}: row labels overlap: {a} {b}")
            break
    if g["rotated"]:  # rotated by 60 degrees: their normal distance is the column pitch times sin 60
        if g["cw"] * 0.866 < g["font"] + 1:
            problems.append(f"{where}: rotated column labels {g['cw'] * 0.866:.1f} px apart for {g['font']} px")
    else:
        for a, b in zip(g["columnBoxes"], g["columnBoxes"][1:]):
            if overlaps(a, b):
                problems.append(f"{where}: column labels overlap: {a} {b}")
                break
    for scale in g["scales"]:
        covered = [t for t in g["seenLabels"] if overlaps(scale, t)]
        if covered:
            problems.append(f"{where}: a colour scale {scale} covers a label {covered[0]}")
    for i, a in enumerate(g["ticks"]):
        if any(overlaps(a, b) for b in g["ticks"][i + 1 :]):
            problems.append(f"{where}: two texts of the colour scales overlap: {a}")
            break
    for a, b in zip(g["names"], g["names"][1:]):
        if overlaps(a, b):
            problems.append(f"{where}: the panels' names overlap")
    return problems


def check(m: dict, width: int, height: int, where: str) -> list[str]:
    """What is wrong with one measured layout, in words (empty: it fits)."""
    problems = []
    if not all(inside(b, width, height) for b in m["controls"]):
        problems.append(f"{where}: the step controls leave the window: {m['controls']}")
    if not inside(m["status"], width, height):
        problems.append(f"{where}: the status line leaves the window: {m['status']}")
    chart = m["chart"]
    seen = 0 if chart is None else max(0, min(chart[3], height) - max(chart[1], 0))
    if seen < height / 3:
        problems.append(f"{where}: {seen:.0f} px of chart in view, under a third of {height}")
    for group in m["groups"]:
        for i, (sel, a) in enumerate(group):
            for _, b in group[i + 1 :]:
                if overlaps(a, b):
                    problems.append(f"{where}: two elements of {sel} overlap: {a} {b}")
    if m["clipped"]:
        problems.append(f"{where}: clipped text: {m['clipped']}")
    if chart is not None and not m["grids"] and not m["svgText"] and "headview" not in where:
        problems.append(f"{where}: the chart's labels are not text in the page")
    for g in m["grids"]:
        problems += check_grid(g, where)
    texts = m["svgText"]
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1 :]:
            if overlaps(box_a, box_b):
                problems.append(f"{where}: chart texts overlap: {a!r} and {b!r}")
    return problems


def set_mode(page, presentation: bool, options_open: bool):
    box = page.locator("#presentation input")
    if box.is_checked() != presentation:
        box.click()
    accordion = page.locator("#options button").first
    if (page.locator("#opt-strategy").is_visible()) != options_open:
        accordion.click()
    if presentation:  # the viewer fills the window: it scrolls itself there when the mode is switched on
        page.evaluate("() => document.querySelector('.ae-viewer').scrollIntoView({block: 'start'})")
    else:
        page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(150)


def show(page, view: str, kind: str, head="all", layer=None):
    # the last layer by default: every layer is drawn the same way, the last has the most labels of all
    choose(page, view=view, kind=kind, layer="last" if layer is None else layer, head=head)
    if view == "mosaic":
        page.wait_for_selector(VIEWS[view])


def translate(page, sentence: str):
    page.fill("#sentence textarea", sentence)
    page.press("#sentence textarea", "Enter")
    page.wait_for_function("(s) => new URLSearchParams(location.search).get('sentence') === s", arg=sentence)
    settle(page)
    page.keyboard.press("End")  # the longest rows: every label of the decode
    compare_same(page)


def compare_same(page):
    """Compare two with B the same sentence and model, so A − B is drawn too (B follows A's sentence once asked);
    back to the view before."""
    from playwright.sync_api import expect

    view = shown(page)["view"]
    choose(page, view="compare")
    page.locator(".ae-compare-sentence").fill("")
    page.locator(".ae-compare-model").select_option("same")
    page.locator(".ae-compare-bar button", has_text="Compare").click()
    expect(page.locator(".ae-compare-note")).to_contain_text("B: the same sentence", timeout=60_000)
    expect(page.locator(".ae-compare-diff canvas")).to_be_visible()
    settle(page)
    choose(page, view=view)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_view_fits_the_projector_with_every_label_drawn_and_nothing_overlapping(browser, app_url, size):
    """Issue 36: every view, kind and head (one head: labels upright where they fit; all heads: rotated), a short
    sentence and a 33-token one, normal and presentation mode, the decoding options open or closed."""
    width, height = size
    page = open_page(browser, app_url)
    problems, seen = [], {}
    try:
        page.set_viewport_size({"width": width, "height": height})
        for sentence in ("The dog sees the cat.", LONG):
            translate(page, sentence)
            length = "long" if sentence == LONG else "short"
            sizes = sizes_of(page, app_url)
            if length == "long":
                assert shown(page)["T"] >= 25, "the long sentence decodes to many tokens"
                assert sizes[0] >= 25
            for presentation in (False, True):
                for options_open in (False, True) if length == "short" else (False,):
                    set_mode(page, presentation, options_open)
                    # the short sentence: every head and every layer too (the tiny model has 2 layers, 4 heads)
                    others = [("heatmap", h, None) for h in ("mean", "rollout", "1", "2", "3")]
                    others += [("heatmap", "all", 0), ("mask", "0", 0)]
                    each = [*((v, "all", None) for v in VIEWS), ("heatmap", "0", None)]
                    for view, head, layer in each + (others if length == "short" else []):
                        for kind in KINDS if view != "mask" else ["decoder_self"]:
                            if head == "rollout" and kind == "decoder_self":
                                continue  # no rollout there: the head row does not offer it
                            show(page, view, kind, head, layer)
                            mode = "presentation" if presentation else "normal"
                            where = f"{width}x{height} {length} {mode} options {'open' if options_open else 'closed'}"
                            where += f" {view} {head} layer {layer if layer is not None else 'last'} {kind}"
                            m = measured(page, VIEWS[view], sizes)
                            problems += check(m, width, height, where)
                            if m["chart"] and not options_open:
                                seen[(length, view, f"{head} layer {layer}", kind, mode)] = (
                                    m["chart"][3] - m["chart"][1]
                                )
                            if kind == "cross" or view == "mask":
                                if not options_open and head != "0" and layer is None:
                                    shot(page, f"projector-{width}-{length}-{mode}-{view}")
        for (length, view, head, kind, mode), h in seen.items():  # presentation mode is never smaller
            if mode == "presentation" and h < seen[(length, view, head, kind, "normal")] - 1:
                problems.append(f"{width}x{height} {length} {view} {head} {kind}: presentation {h:.0f} px tall, "
                                f"normal {seen[(length, view, head, kind, 'normal')]:.0f} px")  # fmt: skip
        assert not problems, "\n".join(problems[:25])
    finally:
        page.context.close()


@pytest.mark.parametrize("size", SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_lesson_stop_fits_the_projector_with_its_chart(browser, app_url, size):
    """Issue 38: the lesson's sentences sit above the chart; at 1366x768 and 1280x720, normal and presentation mode,
    a 33-token sentence: the lesson is in the window, the chart is at least a third of it with every label drawn."""
    width, height = size
    page = open_page(browser, app_url)
    problems = []
    try:
        page.set_viewport_size({"width": width, "height": height})
        translate(page, LONG)
        sizes = sizes_of(page, app_url)
        page.locator(".ae-tools button", has_text="Lesson").click()  # its first stop
        for presentation in (False, True):
            set_mode(page, presentation, False)
            mode = "presentation" if presentation else "normal"
            for stop in range(1, N_STOPS + 1):
                if stop > 1:
                    page.keyboard.press("ArrowRight")  # the next stop, as a presentation clicker sends it
                settle(page)
                view = shown(page)["view"]
                where = f"{width}x{height} {mode} lesson stop {stop} ({view})"
                assert shown(page)["lesson"] == stop, where
                problems += check(measured(page, VIEWS[view], sizes), width, height, where)
                b = page.locator(".ae-lesson").bounding_box()
                if not inside([b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]], width, height):
                    problems.append(f"{where}: the lesson leaves the window: {b}")
                if stop == 6:
                    shot(page, f"projector-{width}-lesson-{mode}")
            for _ in range(N_STOPS - 1):
                page.keyboard.press("ArrowLeft")  # back to the first stop for the other mode
        assert not problems, "\n".join(problems[:25])
    finally:
        page.context.close()


ASKING_VIEWS = {  # issue 38's views: (tab label, the question it asks the server or None, chart)
    "maskless": ("Without the mask", "maskless", ".ae-maskless-plot .main-svg"),
    "valuepath": ("Value path", "value_path", ".ae-valuepath-plot .main-svg"),
    "lens": ("Logit lens", None, ".ae-lens .main-svg"),
    "qkspace": ("Q·K space", "qk_space", ".ae-qkspace .main-svg"),
    "nopos": ("No positions", "no_position", ".ae-nopos-plot .main-svg"),
}


@pytest.mark.parametrize("view", list(ASKING_VIEWS))
@pytest.mark.parametrize("size", SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_issue_38s_views_fit_the_projector(browser, app_url, size, view):
    """Issue 38: "Without the mask" (its sentences, the loss curves, the maskless model's attention), "Value path",
    "Logit lens" and "Q·K space" at 1366x768 and 1280x720, normal and presentation mode: the controls and status in
    the window, the chart a third of it or more, no chart text over another."""
    width, height = size
    label, question, chart = ASKING_VIEWS[view]
    page = open_page(browser, app_url)
    problems = []
    try:
        page.set_viewport_size({"width": width, "height": height})
        if question:
            with page.expect_response(lambda r: f"/ae/api/ask/{question}" in r.url, timeout=60_000):
                page.locator(".ae-view-tabs button", has_text=label).click()
        else:
            page.locator(".ae-view-tabs button", has_text=label).click()
        page.wait_for_selector(chart)
        for presentation in (False, True):
            set_mode(page, presentation, False)
            settle(page)
            mode = "presentation" if presentation else "normal"
            where = f"{width}x{height} {mode} {view}"
            problems += check(measured(page, chart, sizes_of(page, app_url)), width, height, where)
            if view == "maskless":
                text = page.locator(".ae-maskless-text").bounding_box()
                if text["y"] < 0 or text["y"] + text["height"] > height:
                    problems.append(f"{where}: the translations leave the window: {text}")
            shot(page, f"projector-{width}-{view}-{mode}")
        assert not problems, "\n".join(problems[:25])
    finally:
        page.context.close()


def test_enter_leaves_the_keys_to_the_viewer_and_translating_again_starts_over(page, app_url):
    from playwright.sync_api import expect

    page.fill("#sentence textarea", "The dog sees the cat.")
    page.press("#sentence textarea", "Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('sentence') === 'The dog sees the cat.'")
    T = len(on_screen(page, app_url)["steps"])
    expect(page.locator(".ae-step")).to_have_text(f"Step 0 / {T}")
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
    choose(page, view="heatmap", kind="cross", head=0)
    page.locator(".ae-heat canvas").click(position=cell_centre(page, ".ae-heat", 0, 0))
    expect(page.locator(".ae-explain-row").first).to_be_visible(timeout=30_000)  # the explained cell, in view too
    assert page.evaluate("document.querySelector('.ae-panel').getBoundingClientRect().bottom") <= 768


@pytest.mark.parametrize("presentation", [False, True], ids=["normal", "presentation"])
def test_a_panel_leaves_the_clicked_cell_in_view_and_shows_all_of_itself(page, presentation):
    """Issue 36 #5: Explain a cell floated over the heatmap and covered the cell that was clicked."""
    from playwright.sync_api import expect

    sentence = LONG

    page.fill("#sentence textarea", sentence)
    page.press("#sentence textarea", "Enter")
    page.wait_for_function("(s) => new URLSearchParams(location.search).get('sentence') === s", arg=sentence)
    settle(page)
    if presentation:
        page.locator("#presentation input").check()
    page.keyboard.press("End")
    choose(page, view="heatmap", kind="cross", head=0)
    t = shown(page)["step"]
    row, column = t - 2, 3  # a cell low in the chart, where the panel used to open
    page.evaluate("document.querySelector('.ae-heat .ae-grid-scroll').scrollTop = 1e6")

    def cell() -> tuple[float, float]:  # the cell on the page, at its row's and its column's labels
        at, canvas = cell_centre(page, ".ae-heat", row, column), page.locator(".ae-heat canvas").bounding_box()
        return canvas["x"] + at["x"], canvas["y"] + at["y"]

    x, y = cell()
    page.mouse.click(x, y)
    expect(page.locator(".ae-explain-row").first).to_be_visible(timeout=30_000)
    settle(page)
    x, y = cell()
    box = "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"
    scroll = page.evaluate(f"({box})(document.querySelector('.ae-heat .ae-grid-scroll'))")
    panel = page.evaluate(f"({box})(document.querySelector('.ae-panel'))")[1::2]
    assert scroll[0] <= x <= scroll[2] and scroll[1] <= y <= scroll[3], (x, y, scroll)  # in the chart's view
    assert y < panel[0] and panel[1] <= 768 + 1, (y, panel)  # above the panel, which ends in the window
    assert page.evaluate(f"document.elementFromPoint({x}, {y}) === document.querySelector('.ae-heat canvas')")
    shot(page, "projector-explain-" + ("presentation" if presentation else "normal"))


def test_the_header_names_the_model_of_the_trace_on_screen(page, app_url):
    """The header names the model of the trace the page shows: here the server answers the next trace as another
    model's (a trained one's), and the header follows it."""
    import json

    from playwright.sync_api import expect

    name = on_screen(page, app_url)["model"]["name"]
    expect(page.locator("#title .ae-model-name")).to_have_text(name)

    def as_trained(route):
        wire = route.fetch().json()
        wire["model"]["name"], wire["model_key"] = "a trained model", "k"
        route.fulfill(status=200, content_type="application/json", body=json.dumps(wire))

    page.route("**/ae/api/trace?*", as_trained)
    page.fill("#sentence textarea", "The dog sees the cat.")
    page.press("#sentence textarea", "Enter")
    expect(page.locator("#title .ae-model-name")).to_have_text("a trained model")


def test_the_png_of_compare_holds_both_maps_and_the_head_view_has_its_key(browser, app_url):
    from PIL import Image

    page = open_page(browser, app_url, accept_downloads=True)
    try:
        page.keyboard.press("ArrowRight")
        choose(page, kind="cross", head=0)
        compare_same(page)
        choose(page, view="compare")
        # a laptop's column: A, B and A − B are the panels of one grid, and the PNG is that grid at twice its size
        assert page.locator(".ae-compare-diff .ae-tick-panel").all_text_contents() == ["A", "B", "A − B"]
        canvas = page.evaluate("(c => [c.width, c.height])(document.querySelector('.ae-compare-diff canvas'))")
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="PNG").click()
        image = Image.open(info.value.path())
        assert image.width >= 2 * canvas[0] and image.height > 2 * canvas[1]  # the labels and the header too
        choose(page, view="headview")
        drawn = page.evaluate("document.querySelector('.ae-headview canvas').height")
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="PNG").click()
        assert Image.open(info.value.path()).height > drawn  # the title and the heads' colours above the lines
    finally:
        page.context.close()


def test_the_head_ablation_tab_and_the_viewer_show_the_same_heads(page, app_url):
    from playwright.sync_api import expect

    model = on_screen(page, app_url)["model"]
    page.get_by_role("tab", name="Head ablation").click()
    layers, heads = model["n_layers"]["cross"], model["n_heads"]
    assert page.locator("#ablate-cross input[type=checkbox]").count() == layers * heads  # the model on screen's
    page.locator("#ablate-cross label", has_text="L0·H1").click()
    page.locator("#ablate-btn").click()  # re-translate with these heads off: the viewer follows
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('ablation').length === 1")
    wire = on_screen(page, app_url)
    assert wire["request"]["ablation"] == [["cross", 0, 1]]
    outputs = wire["outputs"]
    expect(page.locator("#ablate-after")).to_have_text(outputs[-1])  # beside the translation with every head on
    expect(page.locator("#ablate-before")).not_to_be_empty()
    expect(page.locator(".ae-ablate-note")).to_contain_text("Switching off 1 head(s)")
    expect(page.locator("#ablate-cross label", has_text="L0·H1").locator("input")).to_be_checked()  # from the trace
    shot(page, "ablation-tab")
    page.get_by_role("button", name="Switch all heads back on").click()
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('ablation').length === 0")
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


def test_the_png_is_twice_the_size_with_the_sentence_and_the_step_above_the_chart(browser, app_url):
    """Issue 36 #8: the PNG held the chart alone, at screen size, without the sentence and the step."""
    from PIL import Image

    page = open_page(browser, app_url, accept_downloads=True)
    try:
        page.keyboard.press("ArrowRight")
        for view in ("heatmap", "mask", "mosaic"):
            choose(page, view=view, kind="cross", head=0)
            chart = {"heatmap": ".ae-heat", "mask": ".ae-mask-stages", "mosaic": ".ae-mosaic"}[view]
            width = page.locator(chart).bounding_box()["width"]
            with page.expect_download() as info:
                page.locator(".ae-tools button", has_text="PNG").click()
            image = Image.open(info.value.path()).convert("RGB")
            assert image.width >= 1.9 * width * 0.8, (view, image.width, width)  # 2x (the grid's own width)
            band = image.crop((0, 0, image.width, 40))  # the header: dark text on white
            assert min(band.getextrema()[0]) < 100, view
            # taller than the chart alone at 2x by the two header lines (the sentence, the step): each is font + 8
            font = 13  # the normal font (explorer/app/figures.py NORMAL_FONT)
            if view == "mosaic":
                chart_alone = page.locator(".ae-mosaic .main-svg").first.bounding_box()["height"]
            else:  # the strips of the panels' names and the column labels, and every row (the whole sheet)
                strips = page.locator(f"{chart} .ae-grid-stack > .ae-grid-strip")
                drawn = sum(strips.nth(n).bounding_box()["height"] for n in range(strips.count()))
                drawn += page.locator(f"{chart} .ae-grid-sheet").bounding_box()["height"]
                chart_alone = drawn + 2 * font + 28  # its title line and its axis title, as a header-less picture has
            assert image.height >= 2 * (chart_alone + font + 8), (view, image.height, chart_alone)
    finally:
        page.context.close()


def test_the_pngs_header_wraps_instead_of_cutting_the_sentence(browser, app_url):
    """Issue 50 #5: the PNG for a slide cut its own header ("…and the decoder writes the t")."""
    from PIL import Image

    long = (
        "The encoder reads the whole sentence at once, and then the decoder writes the translation one word at a time, "
        "looking back at the source through cross-attention at every single step."
    )
    page = open_page(
        browser, app_url + "?" + urlencode({"sentence": long, "step": 3, "kind": "cross"}), accept_downloads=True
    )
    try:
        settle(page)
        choose(page, view="heatmap", kind="cross", head=0)
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="PNG").click()
        image = Image.open(info.value.path()).convert("L")
        font = 13  # the normal font: a header line is (font + 8) px, twice that in the 2x picture
        header = image.crop((0, 0, image.width, 2 * 5 * (font + 8)))
        dark = [header.crop((0, y, header.width, y + 1)).getextrema()[0] < 128 for y in range(header.height)]
        bands = sum(1 for y in range(1, len(dark)) if dark[y] and not dark[y - 1])  # lines of text
        assert bands >= 4, bands  # the sentence and its output wrapped onto two lines or more, the step, the title
        right = image.crop((image.width - 20, 0, image.width, header.height))  # the last 10 px of each line
        assert right.getextrema()[0] > 200  # nothing runs off the right edge
    finally:
        page.context.close()


def test_the_decoding_button_says_how_the_trace_was_decoded_and_opens_the_options(page):
    """Issue 36 #8: beam search, sampling and the what-if prefix sat collapsed below the fold, unannounced."""
    from playwright.sync_api import expect

    button = page.locator(".ae-tools .ae-decoding")
    expect(button).to_have_text("Decoding: greedy ▾")
    assert button.bounding_box()["y"] + button.bounding_box()["height"] <= 768  # on screen with the chart
    button.click()
    expect(page.locator("#opt-strategy")).to_be_visible()
    page.locator("#opt-strategy label", has_text="beam search").click()
    page.locator("#start-btn").click()
    expect(button).to_contain_text("Decoding: beam search (")
    page.wait_for_function("() => new URLSearchParams(location.search).get('strategy') === 'beam'")


@pytest.mark.parametrize("size", SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_gold_alignment_on_the_heatmap_fits_the_projector(browser, app_url, size):
    """Issue 38 part 6: a hand-aligned sentence, its gold translation decoded with G, the cross-attention heatmap
    with the links outlined and each head's AER in the title or the panels' names, in both modes."""
    from urllib.parse import urlencode

    width, height = size
    page = open_page(browser, app_url + "?" + urlencode({"sentence": "The man gives a book to the woman."}))
    problems = []
    try:
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        page.keyboard.press("g")
        page.wait_for_function("() => new URLSearchParams(location.search).getAll('forced_ids').length > 0")
        settle(page)
        sizes = sizes_of(page, app_url)
        for presentation in (False, True):
            set_mode(page, presentation, False)
            for head in ("all", "0", "mean"):
                show(page, "heatmap", "cross", head)
                mode = "presentation" if presentation else "normal"
                where = f"{width}x{height} {mode} gold heatmap {head}"
                problems += check(measured(page, VIEWS["heatmap"], sizes), width, height, where)
                if not outlined_cells(page):
                    problems.append(f"{where}: no gold link outlined")
                names = page.locator(".ae-heat .ae-tick-panel").all_text_contents()
                if head == "all" and not all(" · AER 0." in n or " · AER 1.00" in n for n in names):
                    problems.append(f"{where}: a panel without its head's AER: {names}")
                if head == "all":
                    shot(page, f"projector-{width}-gold-{mode}")
        assert not problems, "\n".join(problems[:25])
    finally:
        page.context.close()


ON_ONE_SCREEN = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => e && e.offsetParent !== null && e.getBoundingClientRect().width > 0;
  const viewer = document.querySelector('.ae-viewer');
  // every text the right column draws, with its size: page text (own text nodes) and the Plotly charts' svg text
  const own = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const texts = [...document.querySelectorAll('.ae-right *')].filter((e) => shown(e.closest('.ae-right > *') || e))
    .filter((e) => (e.tagName === 'text' || e.tagName === 'tspan' ? e.textContent.trim() : own(e)))
    .filter((e) => !e.closest('details:not([open]) > :not(summary)') && !e.closest('.ae-tip, .modebar'))
    .filter((e) => e.getBoundingClientRect().width > 0)
    .map((e) => [e.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(e).fontSize)]);
  const panel = document.querySelector('.ae-panel');
  return {
    viewer: box(viewer), left: box(document.querySelector('.ae-left')), right: box(document.querySelector('.ae-right')),
    tools: [...document.querySelectorAll('.ae-viewer > .ae-tools > button')].filter(shown)
      .map((b) => [b.textContent, box(b)]),
    texts: texts,
    panel: shown(panel) ? { box: box(panel), scroll: panel.scrollHeight, client: panel.clientHeight } : null,
  };
}"""


@pytest.mark.parametrize("size", SIZES[:2], ids=lambda s: f"{s[0]}x{s[1]}")
def test_presentation_mode_puts_every_view_and_panel_on_one_screen(browser, app_url, size):
    """Issue 50: on a projector (1366x768, 1280x720, presentation mode) the lecturer never scrolls the page. For every
    view, Compare with its B, and every panel: the viewer ends in the window, both columns with it; the tools (Lesson,
    Present to class, PNG, the questions) are in the top bar; every text on the right is 16 px or more (the Plotly
    charts' included); a panel shows all of itself under the chart. The mask's three stages sit side by side, named,
    with their row labels; Compare shows A, B and A − B as panels of one grid, every row in the window; on a long
    sentence the row labels stay when the grid scrolls sideways."""
    width, height = size
    page = open_page(browser, app_url)
    problems = []
    try:
        page.set_viewport_size({"width": width, "height": height})
        translate(page, "The dog sees the cat.")
        sizes = sizes_of(page, app_url)
        set_mode(page, True, False)
        page.keyboard.press("Home")
        for _ in range(6):  # a lecture's step: a 6 x 6 mask (the tiny model babbles on)
            page.keyboard.press("ArrowRight")

        def measure(where: str) -> dict:
            m = page.evaluate(ON_ONE_SCREEN)
            for name in ("left", "right"):  # the page does not scroll past the viewer's top; both columns in the window
                if m[name][1] < -1 or m[name][3] > height + 1:
                    problems.append(f"{where}: the {name} column runs from {m[name][1]:.0f} to {m[name][3]:.0f} px")
            small = [t for t in m["texts"] if t[1] < 16]
            if small:
                problems.append(f"{where}: text under 16 px: {small[:4]}")
            return m

        for view in ["heatmap", "headview", "mosaic", "mask", "compare", *ASKING_VIEWS]:
            choose(page, view=view, kind="cross", head=0, layer=0)
            if view in ASKING_VIEWS:
                page.wait_for_selector(ASKING_VIEWS[view][2])
            settle(page)
            page.wait_for_timeout(200)  # Plotly lays its text out after the promise
            where = f"{width}x{height} {view}"
            m = measure(where)
            problems += check(measured(page, VIEWS.get(view, ".ae-right"), sizes), width, height, where)
            if view == "heatmap":
                tools = dict(m["tools"])
                for name in ("Lesson", "Present to class", "⬇ PNG", "Heads that matter", "Beam tree"):
                    if name not in tools or not inside(tools[name], width, height):
                        problems.append(f"{where}: {name!r} is not in the top bar: {list(tools)}")
            if view == "mask":  # the three stages, named, side by side: nothing scrolls sideways
                grid = page.evaluate(
                    "(() => { const g = document.querySelector('.ae-mask-stages');"
                    " const s = g.querySelector('.ae-grid-scroll');"
                    " return [s.scrollWidth, s.clientWidth, [...g.querySelectorAll('.ae-tick-panel')]"
                    ".map((n) => n.getBoundingClientRect().right)]; })()"
                )
                if grid[0] > grid[1] + 1 or len(grid[2]) != 3 or max(grid[2]) > width:
                    problems.append(f"{where}: the mask's stages do not fit side by side: {grid}")
            if view == "compare":  # A, B and A − B: panels of one grid, every row of each in the window
                seen = page.evaluate(COMPARED_ROWS)
                if seen["names"] != ["A", "B", "A − B"] or seen["scrolls"] or not inside(seen["box"], width, height):
                    problems.append(f"{where}: A, B and A − B are not all in the window: {seen}")
            shot(page, f"projector-one-screen-{width}-{view}")
        choose(page, view="heatmap", kind="cross", head=0, layer=0)
        for label, ready in [
            ("Heads that matter", ".ae-heads-grid"),
            ("Attention vs attribution", ".ae-attr"),
            ("Beam tree", ".ae-beamtree canvas"),
            ("Explain", ".ae-explain-row"),
        ]:
            if label == "Explain":  # a click on a cell of head 0
                page.locator(".ae-heat canvas").click(position=cell_centre(page, ".ae-heat", 0, 1))
            else:
                page.locator(".ae-tools button", has_text=label).click()
            page.wait_for_selector(ready)
            settle(page)
            where = f"{width}x{height} panel {label}"
            m = measure(where)
            panel = m["panel"]
            if panel is None or panel["scroll"] > panel["client"] + 1 or panel["box"][3] > height + 1:
                problems.append(f"{where}: the panel does not show all of itself in the window: {panel}")
            shot(page, f"projector-one-screen-{width}-panel-{label.split()[0].lower()}")
            page.locator(".ae-panel-close").click()
        translate(page, LONG)  # the mask of a long sentence scrolls sideways: its row labels stay
        choose(page, view="mask", head=0, layer=0)
        page.evaluate("document.querySelector('.ae-mask-stages .ae-grid-scroll').scrollLeft = 1e6")
        page.wait_for_timeout(100)
        seen = page.evaluate(
            "(() => { const s = document.querySelector('.ae-mask-stages .ae-grid-scroll');"
            " const f = s.getBoundingClientRect();"
            " return [s.scrollLeft, [...document.querySelectorAll('.ae-mask-stages .ae-tick-row')].map((e) => {"
            " const r = e.getBoundingClientRect(); return r.left >= f.left - 1 && r.right <= f.right + 1; })]; })()"
        )
        if seen[0] <= 0 or not all(seen[1]):
            problems.append(f"{width}x{height} long mask: its row labels leave when it scrolls sideways: {seen}")
        shot(page, f"projector-one-screen-{width}-long-mask-scrolled")
        assert not problems, "\n".join(problems[:25])
    finally:
        page.context.close()


def test_the_empty_charts_message_is_read_whole_at_step_0(page):
    """From a lecturer's walk (issue 50): at step 0, after a step had drawn rows, the heatmap's "No target token yet"
    read "oken yet: press → (Next)…": the pinned row labels' white covered its start, and it did not wrap."""
    page.locator("#presentation input").check()
    page.keyboard.press("ArrowRight")
    settle(page)
    page.keyboard.press("Home")
    settle(page)
    seen = page.evaluate(
        """() => { const e = document.querySelector('.ae-heat .ae-grid-empty');
          const f = e.parentNode.getBoundingClientRect();
          const range = document.createRange(); range.setStart(e.firstChild, 0); range.setEnd(e.firstChild, 1);
          const first = range.getBoundingClientRect(), last = e.getBoundingClientRect();
          return [e.textContent, document.elementFromPoint(first.left + 2, first.top + first.height / 2) === e,
                  first.left >= f.left - 1 && last.right <= f.right + 1]; }"""
    )
    assert seen[0].startswith("No target token yet") and seen[1] and seen[2], seen
