"""The app in headless Chromium: the viewer opens decoded with no Gradio event, steps with no server request,
restores deep links, exports an HTML file that works offline, and keeps keys inert while typing. Each test
gets a fresh page; pixels, not attributes written before drawing, prove that the heatmap is drawn.

Screenshots at 1366x768 (a projector) go to tests/artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import numpy as np
import pytest
from browser_fixtures import PROJECTOR, Traced, cell_centre, choose, on_screen, open_page, settle, shot, shown

pytestmark = pytest.mark.browser

TEXT = "The dog sees the cat."


def step_of(page) -> int:
    return int(page.locator(".ae-step").text_content().split()[1])  # "Step 3 / 12", as the person reads it


def heatmap_rows(page) -> list[str]:
    """The heatmap's row labels as the page shows them (text, one per query)."""
    return page.locator(".ae-heat .ae-tick-row").all_text_contents()


CELL_COLOUR = """([x, y]) => {
  const canvas = document.querySelector('.ae-heat canvas'), dpr = canvas.width / canvas.getBoundingClientRect().width;
  return Array.from(canvas.getContext('2d').getImageData(x * dpr, y * dpr, 1, 1).data.slice(0, 3));
}"""


def cell_colour(page, i: int, j: int) -> list[int]:
    """The colour painted at the centre of the heatmap's cell (i, j), found at its row's and its column's labels."""
    at = cell_centre(page, ".ae-heat", i, j)
    return page.evaluate(CELL_COLOUR, [at["x"], at["y"]])


def trace_of(page, app_url) -> Traced:
    """The trace the page shows, from the network, read as the viewer reads it."""
    return Traced(on_screen(page, app_url))


def wait_drawn(page):
    settle(page)


def copied_link(page) -> dict:
    """The link "Copy link" gives (it is copied and put in the address bar), as its query's values."""
    page.locator(".ae-tools button", has_text="Copy link").click()
    return parse_qs(urlsplit(page.url).query)


def wait_sentence(page, sentence: str) -> None:
    """Wait until the page shows the trace of `sentence` (the address bar names it once it is on screen), drawn."""
    page.wait_for_function("(s) => new URLSearchParams(location.search).get('sentence') === s", arg=sentence)
    settle(page)


def test_the_page_opens_on_a_decoded_example_on_the_best_head(page, app_url):
    from playwright.sync_api import expect

    expect(page.locator(".ae-step")).to_have_text(re.compile(r"Step 3 / \d+"))
    expect(page.locator(".ae-status-line")).to_contain_text("Step 3 of")
    state, trace = shown(page), trace_of(page, app_url)
    best = trace.wire["model"]["best_head"]
    assert best == {"kind": "cross", "layer": 1, "head": 2}  # the fixture checkpoint's alignment finding
    assert (state["kind"], state["layer"], state["head"]) == ("cross", 1, 2)
    assert len(heatmap_rows(page)) == 3
    weights = trace.weights("cross", 1, 2, 3)
    drawn = [cell_colour(page, i, j) for i in range(3) for j in range(2)]
    assert len({tuple(c) for c in drawn}) > 1 and all(c != [255, 255, 255] for c in drawn), drawn  # painted cells
    assert len(weights) == 3
    box = page.locator(".ae-heat canvas").bounding_box()
    assert box["y"] + box["height"] <= PROJECTOR["height"] + 1, box  # the heatmap fits the projector without scrolling
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.25)  # over a cell of the first row
    expect(page.locator(".ae-heat .ae-tip")).to_contain_text(re.compile(r"query: .+ · key: .+ · weight \d\.\d{4}"))
    shot(page, "01-opens-decoded")


def test_ten_right_arrows_step_the_heatmap_with_no_server_request(page, app_url):
    from playwright.sync_api import expect

    page.keyboard.press("Home")
    expect(page.locator(".ae-step")).to_have_text(re.compile(r"Step 0 / "))
    targets = on_screen(page, app_url)["target_tokens"]
    assert len(targets) >= 10
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    for n in range(1, 11):
        page.keyboard.press("ArrowRight")
        expect(page.locator(".ae-step")).to_have_text(re.compile(rf"Step {n} / "))
        expect(page.locator(".ae-status-line")).to_contain_text(f"Step {n} of")
        wait_drawn(page)
        rows = heatmap_rows(page)
        assert len(rows) == n and rows[-1].split(" → ")[-1].strip() == targets[n - 1].strip()  # "<s> → Das"
    before = shown(page)
    for key in ("1", "m", "a", "k", "l", "v", "PageUp", "PageDown", "ArrowLeft", "End"):
        page.keyboard.press(key)
    wait_drawn(page)
    page.wait_for_timeout(300)
    assert requests == [], requests  # stepping and switching are drawn in the browser
    after = shown(page)  # a is all heads, K the next kind, V the next view, End the last step
    assert (after["head"], after["kind"], after["step"]) == ("all", "encoder_self", after["T"])
    assert after["view"] != before["view"] and before["head"] != "all"
    page.keyboard.press("Home")
    page.keyboard.press("v")  # back to the heatmap view
    page.keyboard.press("v")


def test_keys_are_inert_while_typing(page, app_url):
    from playwright.sync_api import expect

    page.keyboard.press("End")
    before = step_of(page)
    box = page.locator("#sentence textarea")
    joins = []

    def record(request):
        if "queue/join" in request.url:
            joins.append(request.url)

    page.on("request", record)
    box.click()
    box.press("End")
    for key in ("ArrowLeft", "ArrowLeft", "Home", "1", "m", " "):
        box.press(key)
    page.wait_for_timeout(300)
    page.remove_listener("request", record)
    assert joins == [], joins  # typing asks the server nothing (until Enter or the button)
    assert step_of(page) == before and shown(page)["head"] != "mean"
    expect(box).to_have_value(re.compile("1m "))
    box.fill(on_screen(page, app_url)["request"]["sentence"])
    page.locator(".ae-step").click()  # leave the text box


def test_views_heads_and_presentation_mode(page, app_url):
    from playwright.sync_api import expect

    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.locator(".ae-view-tabs button", has_text="All heads").click()
    wait_drawn(page)
    expect(page.locator(".ae-mosaic .annotation-text", has_text="H3").first).to_be_visible()
    shot(page, "02-all-heads")
    page.locator(".ae-view-tabs button", has_text="Look-ahead mask").click()
    wait_drawn(page)
    # the three stages (scores, -inf, softmax), every row and column labelled as page text, rows as in the heatmap
    stages = page.locator(".ae-mask .ae-mask-stages")
    names = ["1. raw scores q·k/√d_k", "2. future set to −∞", "3. softmax weights"]
    short = ["1. q·k/√d_k", "2. masked", "3. softmax"]  # where the full names do not fit the chart's width
    expect(stages.locator(".ae-tick-panel")).to_have_count(3)
    assert stages.locator(".ae-tick-panel").all_text_contents() in (names, short)
    assert [stages.locator(".ae-tick-panel").nth(k).get_attribute("title") for k in range(3)] == names
    trace = trace_of(page, app_url)
    tokens, produced = trace.wire["decoder_input_tokens"][:4], trace.wire["target_tokens"][:4]
    expect(stages.locator(".ae-tick-row")).to_have_text([f"{a} → {b}" for a, b in zip(tokens, produced)])
    expect(stages.locator(".ae-tick-column")).to_have_count(3 * 4)  # <s> and 3 produced tokens as inputs, per stage
    assert stages.locator(".ae-tick-column").first.text_content() == "<s>"
    # issue 36 #6: a legend for the two colours and a caption with this step's numbers
    expect(page.locator(".ae-mask-legend")).to_contain_text("blocked: set to −∞ before the softmax")
    state = shown(page)
    t, layer = state["step"], state["layer"]
    head = state["head"] if isinstance(state["head"], int) else 0
    row = trace.weights("decoder_self", layer, head, t)[t - 1]
    tokens = trace.wire["decoder_input_tokens"][:t]
    best = max(range(t), key=row.__getitem__)
    expect(page.locator(".ae-mask-caption")).to_contain_text(
        f"At step {t} the mask blocks {t * (t - 1) // 2} of the {t * t} query–key pairs"
    )
    expect(page.locator(".ae-mask-caption")).to_contain_text(
        f"the last, “{tokens[-1]}”, sees all {t} and puts {row[best]:.3f} on “{tokens[best]}”."
    )
    shot(page, "03-lookahead-mask")
    page.locator(".ae-view-tabs button", has_text="Heatmap").click()
    page.locator(".ae-kinds button", has_text="Decoder self").click()
    page.locator(".ae-heads button", has_text="all").click()
    wait_drawn(page)
    shot(page, "04-decoder-self-all-heads")
    page.locator("#presentation input[type=checkbox]").check()
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresentation\b"))
    wait_drawn(page)
    assert page.evaluate("getComputedStyle(document.querySelector('.ae-viewer')).fontSize") == "20px"
    shot(page, "05-presentation-mode")
    page.locator("#presentation input[type=checkbox]").uncheck()
    page.locator(".ae-heads button", has_text="mean").click()


def test_rollout_is_a_head_choice_with_its_caption_and_the_servers_numbers(page, app_url):
    """Attention rollout, offered for encoder_self and cross next to the heads, draws the server's rollout."""
    from playwright.sync_api import expect

    from explorer.app.wire import unpack
    from explorer.interpret.rollout import cross_rollout

    show(page, 3, "Cross", "rollout")
    assert shown(page)["head"] == "rollout"
    assert "attention rollout · step 3" in page.locator(".ae-heat canvas").get_attribute("aria-label")
    expect(page.locator(".ae-caption")).to_contain_text("Abnar & Zuidema")
    trace, layer = trace_of(page, app_url), shown(page)["layer"]
    wire = trace.wire
    expected = cross_rollout(unpack(wire["attention"]["cross"]), unpack(wire["attention"]["encoder_self"]))[layer, :3]
    drawn = np.array(trace.weights("cross", layer, "rollout", 3))  # the server's rollout, as the wire carries it
    np.testing.assert_allclose(drawn, expected, atol=1e-4)  # 16-bit wire precision of both sides
    np.testing.assert_allclose(drawn.sum(-1), 1.0, atol=1e-3)
    shot(page, "06-cross-rollout")
    page.locator(".ae-kinds button", has_text="Decoder self").click()  # no rollout there: back to the mean
    expect(page.locator(".ae-heads button", has_text="rollout")).to_have_count(0)
    assert shown(page)["head"] == "mean"
    expect(page.locator(".ae-caption")).to_be_hidden()
    page.locator(".ae-kinds button", has_text="Cross").click()


def show(page, step: int, kind: str, head: str, layer: str | None = None):
    """Step `step` of the heatmap of one kind (its button label), layer and head, drawn."""
    page.keyboard.press("Home")
    for _ in range(step):
        page.keyboard.press("ArrowRight")
    page.locator(".ae-view-tabs button", has_text="Heatmap").click()
    page.locator(".ae-kinds button", has_text=kind).click()
    if layer is not None:
        page.locator(".ae-layers button", has_text=layer).click()
    page.locator(".ae-heads button", has_text=head).click()
    wait_drawn(page)


def click_cell(page, row: int, column: int):
    """Click the centre of one cell of the (single-panel) heatmap, at its row's and its column's labels."""
    page.locator(".ae-heat canvas").click(position=cell_centre(page, ".ae-heat", row, column))  # scrolled into view


@pytest.mark.parametrize(
    "kind, label", [("cross", "Cross"), ("decoder_self", "Decoder self"), ("encoder_self", "Encoder self")]
)
def test_clicking_a_cell_explains_its_weight(page, app_url, kind, label):
    """The panel's arithmetic (q·k/√d_k, mask, softmax) ends at the weight the heatmap shows, for every kind."""
    from playwright.sync_api import expect

    show(page, 4, label, "2", layer="1")
    row, column = (3, 1) if kind != "encoder_self" else (2, 4)
    with page.expect_response(lambda r: "/ae/api/ask/explain" in r.url) as asked:  # the answer, as the network has it
        click_cell(page, row, column)
    expect(page.locator(".ae-panel-title")).to_contain_text("L1·H2", timeout=20_000)
    answer = asked.value.json()
    drawn = trace_of(page, app_url).weights(kind, 1, 2, 4)[row][column]
    assert (answer["kind"], answer["row"], answer["column"]) == (kind, row, column)
    assert answer["weight"] == pytest.approx(drawn, abs=2e-5)  # 16-bit wire precision
    scores = [s for s in answer["scores"] if s is not None]
    assert answer["denominator"] == pytest.approx(sum(np.exp(np.array(scores) - answer["max_score"])), rel=1e-4)
    assert answer["dot"] == pytest.approx(float(np.dot(answer["query"], answer["key"])), abs=1e-3)
    if kind == "decoder_self":
        assert answer["scores"][row + 1 :] == [None] * (len(answer["scores"]) - row - 1)  # the look-ahead mask
    expect(page.locator(".ae-explain-row td.ae-on").first).to_be_visible()
    page.locator(".ae-panel").scroll_into_view_if_needed()
    shot(page, f"07-explain-{kind}")


def test_the_mean_and_masked_cells_say_why_they_are_not_explained(page):
    from playwright.sync_api import expect

    show(page, 4, "Decoder self", "1")
    click_cell(page, 0, 3)
    expect(page.locator(".ae-panel .ae-panel-note")).to_contain_text("look-ahead mask")
    page.locator(".ae-heads button", has_text="mean").click()
    wait_drawn(page)
    click_cell(page, 2, 1)
    expect(page.locator(".ae-panel .ae-panel-note")).to_contain_text("Choose one head")


def test_which_heads_matter_and_a_click_switches_one_off(page, app_url, tiny_checkpoint):
    """The estimate's tiles come at once, the exact drops on request beside them on one scale with ρ; each tile is
    the core's number; clicking one traces the sentence without that head."""
    from playwright.sync_api import expect

    from explorer.interpret.handle import load_handle
    from explorer.interpret.head_importance import head_gradients, head_importance, spearman

    show(page, 2, "Cross", "mean")
    page.locator(".ae-tools button", has_text="Heads that matter").click()
    expect(page.locator(".ae-heads-grid[data-method=estimate]")).to_have_count(3, timeout=20_000)
    expect(page.locator(".ae-panel-title")).to_contain_text("estimated in one pass")
    wire = on_screen(page, app_url)
    model = load_handle(tiny_checkpoint).model
    expected = head_importance(model, wire["source_ids"], wire["target_ids"])
    estimated = head_gradients(model, wire["source_ids"], wire["target_ids"])

    def tiles(method: str, kind: str) -> list[float]:
        cells = page.locator(f".ae-heads-grid[data-method={method}][data-kind={kind}] td")
        return [float(x) for x in cells.evaluate_all("(tds) => tds.map((td) => td.firstChild.textContent)")]

    for kind in ("encoder_self", "decoder_self", "cross"):  # shown with 2 decimals
        np.testing.assert_allclose(tiles("estimate", kind), estimated.drops[kind].ravel(), atol=0.006)
    page.locator(".ae-heads-exact").click()
    expect(page.locator(".ae-heads-grid[data-method=exact]")).to_have_count(3, timeout=20_000)
    expect(page.locator(".ae-heads-grid[data-method=estimate]")).to_have_count(3)  # beside it, not replaced
    flat = [
        np.concatenate([d.drops[k].ravel() for k in ("encoder_self", "decoder_self", "cross")])
        for d in (expected, estimated)
    ]
    expect(page.locator(".ae-panel-title")).to_contain_text(f"Spearman ρ = {spearman(*flat):.2f}")
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(tiles("exact", kind), expected.drops[kind].ravel(), atol=0.006)
    page.locator(".ae-panel").scroll_into_view_if_needed()
    shot(page, "08-heads-that-matter")
    page.locator(".ae-heads-grid[data-method=exact][data-kind=cross] td[data-layer='1'][data-head='3']").click()
    expect(page.locator(".ae-notes")).to_contain_text("1 head(s) switched off", timeout=20_000)
    assert on_screen(page, app_url)["request"]["ablation"] == [["cross", 1, 3]]
    # one source of truth: the Head ablation tab ticks the head the viewer switched off
    page.get_by_role("tab", name="Head ablation").click()
    expect(page.locator("#ablate-cross label", has_text="L1·H3").locator("input")).to_be_checked()
    assert page.locator("#ablate-cross input:checked").count() == 1
    page.get_by_role("tab", name="Translate & step").click()
    assert [shown(page)[name] for name in ("kind", "layer", "head")] == ["cross", 1, 3]
    # issue 36 #8: the head on screen says it is off; another head does not; the mean names the heads off
    heat = page.locator(".ae-heat canvas")
    expect(heat).to_have_attribute("aria-label", re.compile(r"L1·H3 · step \d+ · switched off\. Rows"))
    page.locator(".ae-heads button", has_text="2").click()
    expect(heat).to_have_attribute("aria-label", re.compile(r"L1·H2 · step \d+\. Rows"))
    page.locator(".ae-heads button", has_text="mean").click()
    expect(heat).to_have_attribute("aria-label", re.compile(r"mean of heads · step \d+ · H3 off\. Rows"))
    page.locator(".ae-heads button", has_text="3").click()
    page.locator(".ae-tools button", has_text="Heads that matter").click()  # asked again: of the ablated translation
    expect(page.locator(".ae-heads-grid")).to_have_count(3, timeout=20_000)


def test_attention_against_attribution_for_the_current_step(page, app_url, tiny_checkpoint):
    """The panel's rows are the drawn attention row and the core's attributions, with their rank correlations."""
    from playwright.sync_api import expect

    from explorer.interpret.attribution import attribute, rank_correlation
    from explorer.interpret.handle import load_handle

    page.locator(".ae-kinds button", has_text="Cross").click()  # a fresh sentence: the last test switched a head off
    page.locator("#sentence textarea").fill("The dog sees the cat.")
    page.locator("#start-btn").click()
    wait_sentence(page, "The dog sees the cat.")
    show(page, 3, "Cross", "2", layer="1")
    with page.expect_response(lambda r: "/ae/api/ask/attribution" in r.url, timeout=30_000) as asked:
        page.locator(".ae-tools button", has_text="Attention vs attribution").click()
    expect(page.locator(".ae-attr")).to_be_visible(timeout=30_000)
    answer = asked.value.json()
    trace = trace_of(page, app_url)
    drawn = trace.weights("cross", 1, 2, 3)[2]
    np.testing.assert_allclose(answer["attention"]["weights"], drawn, atol=1e-4)
    wire = trace.wire
    model = load_handle(tiny_checkpoint).model
    for method, said in answer["methods"].items():
        mine = attribute(model, wire["source_ids"], wire["target_ids"], 2, method)
        np.testing.assert_allclose(said["scores"], mine.scores, atol=1e-4)
        assert said["rank_correlation"] == pytest.approx(rank_correlation(mine.scores, drawn), abs=2e-3)
    ig = answer["methods"]["integrated_gradients"]
    change = ig["log_prob"] - ig["baseline_log_prob"]
    assert abs(sum(ig["scores"]) - change) <= max(ig["completeness_gap"], 1e-4) * abs(change) + 1e-4
    expect(page.locator(".ae-panel .ae-caption")).to_contain_text(f"in {ig['steps']} steps")
    page.locator(".ae-panel").scroll_into_view_if_needed()
    shot(page, "09-attention-vs-attribution")


def strongest(trace: Traced, heads, query=None) -> str:
    """What the head view's text alternative says of the heads' strongest lines, computed from the trace's weights
    (cross, layer 1, step 3; of one query's lines when `query` is given): the line a user sees darkest."""
    wire = trace.wire
    queries = [f"{a} → {b}" for a, b in zip(wire["decoder_input_tokens"][:3], wire["target_tokens"])]
    said = []
    for h in heads:
        lines = [(w, i, j) for i, row in enumerate(trace.weights("cross", 1, h, 3)) for j, w in enumerate(row)]
        w, i, j = max((line for line in lines if line[0] >= 0.01 and query in (None, line[1])), key=lambda x: x[0])
        said.append(f"L1·H{h}: “{queries[i]}” → “{wire['source_tokens'][j]}” {w:.2f}")
    return "Strongest: " + "; ".join(said) + "."


def test_the_head_view_draws_each_heads_weights_and_follows_hover_and_toggles(page, app_url):
    """BertViz's head view: a line per (query, key) with opacity = weight and a colour per head."""
    from playwright.sync_api import expect

    show(page, 3, "Cross", "mean", layer="1")
    page.locator(".ae-view-tabs button", has_text="Head view").click()
    wait_drawn(page)
    expect(page.locator(".ae-headview canvas")).to_have_attribute("aria-label", re.compile("head view"))
    trace = trace_of(page, app_url)
    H = trace.H
    label = page.locator(".ae-headview canvas").get_attribute("aria-label")
    assert f"heads {', '.join(map(str, range(H)))}" in label and strongest(trace, range(H)) in label, label
    shot(page, "11-head-view")
    # a toggle and a hover redraw the head view alone: the viewer's state and its other views are not touched
    page.evaluate("window.aeStatus = document.querySelector('.ae-status-line')")  # a render draws it anew
    page.locator(".ae-hv-chip[data-head='0']").click()  # head 0 off
    wait_drawn(page)
    label = page.locator(".ae-headview canvas").get_attribute("aria-label")
    assert "L1·H0:" not in label and strongest(trace, range(1, H)) in label, label
    canvas = page.locator(".ae-headview canvas")
    box = canvas.bounding_box()
    for y in range(2, int(box["height"]), 3):  # down the queries' side until the second query is the hovered one
        canvas.hover(position={"x": box["width"] * 0.2, "y": y})
        label = canvas.get_attribute("aria-label")
        if "(query 1)" in label:
            break
    assert "(query 1): its lines only." in label and strongest(trace, range(1, H), query=1) in label, label
    assert page.evaluate("window.aeStatus === document.querySelector('.ae-status-line')")  # the viewer not redrawn
    page.keyboard.press("End")
    assert page.evaluate("window.aeStatus !== document.querySelector('.ae-status-line')")  # a step: drawn everywhere
    page.locator(".ae-hv-chip[data-head='0']").click()
    page.locator(".ae-view-tabs button", has_text="Heatmap").click()


def test_an_explained_cell_stays_open_over_a_hovered_head_view_and_the_steps_go_on(browser, app_url):
    """A review of session 31: the head view kept its hovered token under the name the viewer calls to keep an
    explained cell in view, so with a cell's panel open, a hover over the head view and then a step threw, and the
    store's other subscribers (the address, the room, the lesson) missed the step."""
    from playwright.sync_api import expect

    page = open_page(browser, app_url + "?sentence=The+cat+sat+on+the+mat.&step=3")
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        settle(page)
        page.locator(".ae-heat canvas").click(position=cell_centre(page, ".ae-heat", 1, 1))
        expect(page.locator(".ae-panel")).to_be_visible()
        page.locator(".ae-view-tabs button", has_text="Head view").click()
        settle(page)
        canvas = page.locator(".ae-headview canvas")
        box = canvas.bounding_box()
        canvas.hover(position={"x": box["width"] * 0.2, "y": box["height"] * 0.3})
        expect(canvas).to_have_attribute("aria-label", re.compile("its lines only"))
        page.keyboard.press("ArrowRight")
        settle(page)
        assert shown(page)["step"] == 4 and not errors, errors
        page.wait_for_function("new URLSearchParams(window.location.search).get('step') === '4'")  # the address too
    finally:
        page.context.close()


def test_the_quiz_hides_the_next_row_until_a_guess_then_scores_it(page, app_url):
    """Predict, then reveal: a click on a source token (or [ ] and Enter) answers; → reveals without a guess."""
    from playwright.sync_api import expect

    page.keyboard.press("Home")
    page.locator(".ae-tools button", has_text="Quiz").click()
    expect(page.locator(".ae-quiz-question")).to_contain_text("which source token will step 1 attend to most")
    quizzed = re.search(r"Quiz · L(\d+)·H(\d+):", page.locator(".ae-quiz-question").inner_text())
    layer, head = int(quizzed.group(1)), int(quizzed.group(2))
    assert [shown(page)[name] for name in ("kind", "head")] == ["cross", head]
    assert heatmap_rows(page) == []  # step 0: the row to guess is not drawn
    page.locator(".ae-source-chips .ae-chip").nth(2).click()
    assert step_of(page) == 1
    trace = trace_of(page, app_url)
    row = trace.weights("cross", layer, head, 1)[0]
    best = int(np.argmax(row))
    tokens = trace.wire["source_tokens"]
    expect(page.locator(".ae-quiz-result")).to_contain_text(f"{row[best]:.2f}, on “{tokens[best]}”")
    expect(page.locator(".ae-quiz-score")).to_contain_text(f"Score: {int(best == 2)} of 1 right")
    shot(page, "12-quiz")
    page.keyboard.press("]")
    page.keyboard.press("]")  # the cursor: source token 2
    page.keyboard.press("Enter")
    assert step_of(page) == 2
    expect(page.locator(".ae-quiz-result")).to_contain_text(f"“{tokens[2]}”")  # the guess, right or not
    page.keyboard.press("ArrowRight")  # reveal without a guess
    assert step_of(page) == 3
    expect(page.locator(".ae-quiz-result")).to_contain_text("Revealed without a guess")
    expect(page.locator(".ae-quiz-score")).to_contain_text("of 2 right")
    page.locator(".ae-quiz button", has_text="End quiz").click()
    expect(page.locator(".ae-quiz")).to_be_hidden()
    page.locator(".ae-tools button", has_text="Quiz").click()  # a lecturer's walk: Esc closed panels, not the quiz
    expect(page.locator(".ae-quiz")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator(".ae-quiz")).to_be_hidden()


def path_of(nodes: list[dict], node: int) -> list[int]:
    """The token ids from the root of a beam tree (the answer's nodes, each with its parent) to `node`."""
    ids = []
    while nodes[node]["parent"] != -1:
        ids.append(nodes[node]["token_id"])
        node = nodes[node]["parent"]
    return ids[::-1]


def test_the_beam_tree_and_a_click_on_a_hypothesis_steps_through_it(page, app_url, tiny_checkpoint):
    """The tree's winner is beam_search's result; clicking a node traces that hypothesis with its tokens forced."""
    import httpx
    from playwright.sync_api import expect

    from explorer.interpret.decoding import beam_search
    from explorer.interpret.handle import load_handle

    page.locator(".ae-tools button", has_text="Beam tree").click()  # answered already: the line under the output asked
    expect(page.locator(".ae-beamtree canvas")).to_be_visible(timeout=20_000)
    wire = on_screen(page, app_url)
    body = {"trace": wire["request"], "question": {"what": "beam_tree"}}
    answer = httpx.post(f"{app_url}ae/api/ask/beam_tree", json=body, timeout=60).raise_for_status().json()
    best = beam_search(load_handle(tiny_checkpoint).model, wire["source_ids"], answer["beam_size"], answer["alpha"])[0]
    winner_path = path_of(answer["nodes"], answer["winner"])
    assert winner_path[: len(best.ids)] == best.ids
    assert {n["status"] for n in answer["nodes"]} >= {"kept", "pruned"}
    page.locator(".ae-panel").scroll_into_view_if_needed()
    shot(page, "13-beam-tree")
    # issue 36 #5: every step is drawn; where they do not fit the panel's width, it says so and scrolls sideways
    steps = max(n["step"] for n in answer["nodes"]) + 1
    nodes = page.locator(".ae-beamtree .ae-beam-node")  # one button per hypothesis, over its box
    assert nodes.count() == len(answer["nodes"]) - 1  # all but the root
    columns = {round(nodes.nth(i).bounding_box()["x"]) for i in range(nodes.count())}
    assert len(columns) == steps
    wide, seen = page.evaluate(
        "(() => { const s = document.querySelector('.ae-beamtree'); return [s.scrollWidth, s.clientWidth]; })()"
    )
    if wide > seen + 1:
        expect(page.locator(".ae-beam-scroll-note")).to_contain_text(f"All {steps} steps: scroll sideways")
    target = next(n for n in answer["nodes"] if n["step"] == 2 and n["status"] == "kept")
    named = f"Step 2: “{target['token']}”, log p {target['log_prob']:.2f}, kept"
    page.get_by_role("button", name=named).first.click()
    path = path_of(answer["nodes"], target["id"])
    page.wait_for_function(
        "(n) => new URLSearchParams(location.search).getAll('forced_ids').length === n", arg=len(path)
    )
    assert on_screen(page, app_url)["request"]["forced_ids"] == path and step_of(page) == len(path)


# Where cell (i, j) of the panel named `name` is on the grid's canvas, found at its row's and its column's labels:
# panels in rows of `cols` (the first strip's names) repeat the row labels per row of panels and have the column
# labels under each column of panels (grid.js). Compare two on a laptop draws A, B and A − B as one grid's panels.
PANEL_CELL = """([selector, name, i, j]) => {
  const div = document.querySelector(selector), box = div.querySelector('canvas').getBoundingClientRect();
  const names = [...div.querySelectorAll('.ae-tick-panel')].map((e) => e.textContent);
  const k = Math.max(0, names.indexOf(name)), P = Math.max(1, names.length);
  const cols = div.querySelector('.ae-grid-strip').querySelectorAll('.ae-tick-panel').length || P;
  const rows = div.querySelectorAll('.ae-tick-row'), columns = div.querySelectorAll('.ae-tick-column');
  const n = rows.length / Math.ceil(P / cols), m = columns.length / Math.min(cols, P);
  const row = rows[Math.floor(k / cols) * n + i].getBoundingClientRect(), label = columns[(k % cols) * m + j];
  const r = label.getBoundingClientRect(), line = parseFloat(getComputedStyle(label).lineHeight);
  const rotated = label.classList.contains('ae-tick-rotated');
  const x = rotated ? r.right - line / 2 * Math.sin(Math.PI / 3) : (r.left + r.right) / 2;
  return { x: x - box.left, y: (row.top + row.bottom) / 2 - box.top };
}"""


def diff_read(page, i: int, j: int) -> float:
    """The A − B value of cell (i, j) as a person reads it: hovering the cell of the A − B map, its tip."""
    at = page.evaluate(PANEL_CELL, [".ae-compare-diff", "A − B", i, j])
    page.locator(".ae-compare-diff canvas").hover(position=at)
    tip = page.locator(".ae-compare-diff .ae-tip").text_content()
    found = re.search(r"A − B = ([+−-]?[0-9.]+)", tip)
    assert found, tip
    return float(found.group(1).replace("−", "-"))


def test_compare_two_sentences_side_by_side_with_their_difference(page, app_url):
    """B follows A's step, kind, layer and head; A − B where the shapes agree, a message where they do not."""
    from playwright.sync_api import expect

    page.locator("#sentence textarea").fill("The man gives the woman the book.")
    page.locator("#start-btn").click()
    wait_sentence(page, "The man gives the woman the book.")
    show(page, 3, "Cross", "1", layer="0")
    page.locator(".ae-view-tabs button", has_text="Compare two").click()
    expect(page.locator(".ae-compare-note")).to_contain_text("Type a second sentence")
    page.locator(".ae-compare-sentence").fill("The woman gives the man the book.")
    with page.expect_response(lambda r: "/ae/api/ask/compare" in r.url, timeout=20_000) as asked:
        page.locator(".ae-compare-bar button", has_text="Compare").click()
    expect(page.locator(".ae-compare-diff canvas")).to_be_visible(timeout=20_000)
    wait_drawn(page)
    second = asked.value.json()["wire"]  # B, as the network brought it
    assert second["request"]["sentence"] == "The woman gives the man the book."
    a = np.array(trace_of(page, app_url).weights("cross", 0, 1, 3))
    b = np.array(Traced(second).weights("cross", 0, 1, 3))
    for i in range(3):  # every cell's A − B, as its tip reads (4 decimals)
        for j in range(a.shape[1]):
            assert diff_read(page, i, j) == pytest.approx(a[i, j] - b[i, j], abs=6e-5), (i, j)
    expect(page.locator(".ae-compare-diff .ae-tip")).to_contain_text(f"A − B = {a[2, -1] - b[2, -1]:+.4f}")
    shot(page, "14-compare-two")
    page.keyboard.press("ArrowRight")  # both follow the step
    wait_drawn(page)
    labels = page.locator(".ae-compare-diff .ae-tick-row").all_text_contents()  # the rows' labels drawn, for each
    assert len(labels) % 4 == 0 and labels[:4] == labels[-4:]  # row of panels (A, B and A − B on a laptop)
    assert diff_read(page, 3, 0) == pytest.approx(
        trace_of(page, app_url).weights("cross", 0, 1, 4)[3][0] - Traced(second).weights("cross", 0, 1, 4)[3][0],
        abs=6e-5,
    )
    page.locator(".ae-compare-sentence").fill("The dog sleeps.")  # another length: no difference map
    page.locator(".ae-compare-bar button", has_text="Compare").click()
    expect(page.locator(".ae-compare-note")).to_contain_text("No difference map", timeout=20_000)
    expect(page.locator(".ae-compare-diff")).to_be_hidden()
    page.locator(".ae-compare-model").select_option("own")  # this session trained no model
    page.locator(".ae-compare-bar button", has_text="Compare").click()
    refusal = page.locator(".ae-compare-note.ae-panel-error")  # said beside B's form
    expect(refusal).to_contain_text("no model trained on this page", timeout=20_000)
    page.locator(".ae-view-tabs button", has_text="Heatmap").click()


def test_clicking_a_candidate_forces_it_and_the_model_continues(page, app_url):
    from playwright.sync_api import expect

    page.locator(".ae-kinds button", has_text="Cross").click()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_drawn(page)
    expect(page.locator(".ae-target-chips .ae-chip-legend")).to_have_count(0)  # nothing forced, nothing to explain
    candidate = page.locator(".ae-topk .ae-cand").nth(2)
    chosen = on_screen(page, app_url)["steps"][1]["top"][2]
    expect(candidate.locator(".ae-cand-token")).to_have_text(chosen["token"])
    candidate.click()
    expect(page.locator(".ae-target-chips .ae-current")).to_have_text(chosen["token"])
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('forced_ids').length === 2")
    forced = on_screen(page, app_url)["request"]["forced_ids"]
    assert forced[1] == chosen["id"] and len(forced) == 2 and step_of(page) == 2
    expect(page.locator(".ae-target-chips .ae-forced")).to_have_count(1)
    # issue 36 #8: the pink chip says what it means
    expect(page.locator(".ae-target-chips .ae-chip-legend")).to_have_text("forced: you chose it, not the model")
    shot(page, "06-forced-candidate")


def test_a_new_sentence_and_markup_is_shown_as_text(page):
    from playwright.sync_api import expect

    text = "<img src=x onerror=alert(1)>"
    page.fill("#sentence textarea", text)
    page.click("#start-btn")
    expect(page.locator(".ae-step")).to_have_text(re.compile(r"Step 0 / "))
    source = page.locator(".ae-source-chips .ae-chip").all_text_contents()
    assert "".join(source).replace("·", "").replace("\u2423", "") == text.replace(" ", "") + "</s>"  # ␣: a space
    page.keyboard.press("ArrowRight")
    wait_drawn(page)
    shown = page.locator(".ae-heat .ae-tick-column").all_text_contents()  # labels are text: no markup runs
    assert shown == source, (len(shown), len(source), shown)
    assert page.locator(".ae-viewer img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == [], page.dialogs


def test_an_error_is_said_in_the_viewer_in_words(page):
    from playwright.sync_api import expect

    page.fill("#sentence textarea", "\x07\x1b")  # not blank to the page; nothing left once the server cleans it
    page.click("#start-btn")
    expect(page.locator(".ae-message")).to_have_text("Type an English sentence first: the box is empty.")
    shot(page, "07-error-message")
    page.fill("#sentence textarea", TEXT)
    page.click("#start-btn")
    expect(page.locator(".ae-message")).to_be_hidden()
    wait_sentence(page, TEXT)


def test_a_first_visit_sends_no_gradio_event_and_loads_plotly_only_for_a_plotly_view(browser, app_url):
    from playwright.sync_api import expect

    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(app_url, wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        page.wait_for_timeout(1500)  # the page's load event, had it one
        assert not [u for u in requests if "/queue/join" in u or "/call/" in u], requests  # no queued event
        assert not [u for u in requests if "plotly" in u or "/file=" in u], requests  # nor plotly, nor a file path
        assert not [u for u in requests if "/ae/api/" in u], requests  # the opening trace came with the page
        scripts = [u for u in requests if "/ae/static/" in u]
        assert len(scripts) == 2, scripts  # the viewer is one script and one stylesheet
        page.locator(".ae-view-tabs button", has_text="All heads").click()
        expect(page.locator(".ae-plot .main-svg").first).to_be_attached()
        assert [u for u in requests if "plotly" in u], "the mosaic loads plotly.js when it opens"
        page.fill("#sentence textarea", TEXT)
        page.press("#sentence textarea", "Enter")
        wait_sentence(page, TEXT)
        assert [u for u in requests if "/ae/api/trace?" in u] and not [u for u in requests if "/queue/join" in u]
        page.keyboard.press("ArrowRight")  # the focus left the sentence box: the key steps
        expect(page.locator(".ae-step")).to_have_text(re.compile(r"Step 1 / \d+"))
    finally:
        context.close()


def test_every_other_tab_shows_its_main_element(page):
    from playwright.sync_api import expect

    for label, selector in [
        ("Positional encoding", "#pe-show"),
        ("Head ablation", "#ablate-btn"),
        ("Train", "#train-btn"),
        ("About the model", "text=parameters"),
        ("Translate & step", ".ae-viewer"),
    ]:
        page.get_by_role("tab", name=label, exact=True).click()
        expect(page.locator(selector).first).to_be_visible()
        if label == "Positional encoding":  # opening the tab asks for the model on screen's figures, by name
            expect(page.locator("#pe-heatmap .main-svg").first).to_be_attached(timeout=30_000)
            expect(page.locator("#pe-said")).to_have_text("")


def test_the_train_tab_uploads_a_file_through_the_api_and_trains_on_it(page, tmp_path):
    """The file picker sends the file to POST /ae/api/uploads; Train posts its id to POST /ae/api/train and draws the
    run's event stream (the loss curve, the snapshot, the checkpoint's link); a refused file is said by name; the
    trained model is then the one "Explore my trained model" traces with."""
    from playwright.sync_api import expect

    page.get_by_role("tab", name="Train", exact=True).click()
    bad = tmp_path / "latin1.tsv"
    bad.write_bytes("Good morning\tGrüß Gott\n".encode("latin-1") * 100)
    good = tmp_path / "pairs.tsv"
    good.write_text("".join(f"I see {n} dogs.\tIch sehe {n} Hunde.\n" for n in range(40, 140)), encoding="utf-8")
    page.get_by_label("my uploaded TSV").check()
    page.get_by_label("tiny (d_model 64, 2+2 layers, 4 heads)").check()
    page.fill("#train-minutes input[type=number]", "0.1")
    page.press("#train-minutes input[type=number]", "Enter")
    posts = []
    page.on("request", lambda r: posts.append((r.url, r.post_data or "")) if r.method == "POST" else None)
    page.set_input_files("#train-file", str(bad))
    expect(page.locator("#train-file-said")).to_contain_text("Uploaded latin1.tsv (2,300 bytes)")
    page.click("#train-btn")
    expect(page.locator("#train-message")).to_contain_text("not UTF-8", timeout=30_000)  # the API's refusal, said
    page.set_input_files("#train-file", str(good))
    expect(page.locator("#train-file-said")).to_contain_text(f"Uploaded pairs.tsv ({good.stat().st_size:,} bytes)")
    page.click("#train-btn")
    expect(page.locator("#train-message")).to_contain_text("Done (", timeout=120_000)
    expect(page.locator("#train-loss .main-svg").first).to_be_attached()  # drawn in the browser from the numbers
    expect(page.locator("#train-snapshot .main-svg").first).to_be_attached()
    expect(page.locator("#train-download")).to_be_visible()
    assert "/checkpoint.zip" in page.get_attribute("#train-download", "href")
    shot(page, "train-upload")
    content_id = hashlib.blake2b(good.read_bytes(), digest_size=16).hexdigest()  # what the server names it by
    trains = [body for url, body in posts if url.endswith("/ae/api/train")]
    assert content_id in trains[-1] and str(tmp_path) not in "".join(b for _, b in posts)  # an id, never a path
    assert not [url for url, _ in posts if "/gradio_api/" in url]  # no Gradio event
    page.get_by_label("Explore my trained model").check()
    expect(page.locator("#title .ae-model-name")).to_contain_text("your model")  # the header names the model shown


def test_a_deep_link_restores_its_view(browser, app_url):
    from playwright.sync_api import expect

    params = {
        "sentence": TEXT,
        "strategy": "sample",
        "seed": "4",
        "step": "5",
        "kind": "decoder_self",
        "layer": "1",
        "head": "2",
    }
    page = open_page(browser, app_url + "?" + urlencode(params))
    try:
        expect(page.locator(".ae-status-line")).to_contain_text("Step 5 of")
        settle(page)
        assert on_screen(page, app_url)["request"]["sentence"] == TEXT
        state = shown(page)
        assert (state["step"], state["kind"], state["layer"], state["head"]) == (5, "decoder_self", 1, 2)
        assert page.input_value("#sentence textarea") == TEXT
        masked = cell_colour(page, 0, 4)  # step 0's query never sees input 4: the future, drawn grey
        assert masked == [0xD0, 0xD0, 0xD0], masked
        assert cell_colour(page, 4, 0) != masked  # a weight, even a small one, is drawn in the scale
        link = copied_link(page)
        for name, value in params.items():
            assert link[name] == [value], (name, link)  # the copied link names the same view
        shot(page, "08-deep-link")
    finally:
        page.context.close()


def test_a_link_made_before_the_api_named_its_fields_still_opens(browser, app_url):
    """Issue 37: links now use the API's names (sentence=, forced_ids=, ablation=); a slide's older link
    (s=, forced=5,9, ablate=cross.0.1,...) opens the same trace, and its copied link uses the new names."""
    from playwright.sync_api import expect

    old = {"s": TEXT, "ablate": "cross.0.1,encoder_self.1.0", "step": "2"}
    page = open_page(browser, app_url + "?" + urlencode(old))
    try:
        expect(page.locator(".ae-status-line")).to_contain_text("Step 2 of")
        request = on_screen(page, app_url)["request"]
        assert request["sentence"] == TEXT and request["ablation"] == [["cross", 0, 1], ["encoder_self", 1, 0]]
        link = copied_link(page)
        assert link["sentence"] == [TEXT] and link["ablation"] == ["cross.0.1", "encoder_self.1.0"] and "s" not in link
    finally:
        page.context.close()


def test_the_exported_html_opens_offline_and_steps(browser, app_url, tmp_path):
    from playwright.sync_api import expect

    page = open_page(browser, app_url, accept_downloads=True)
    try:
        page.keyboard.press("End")
        with page.expect_download() as info:
            page.locator(".ae-tools button", has_text="HTML").click()
        path = tmp_path / "export.html"
        info.value.save_as(path)
        T = shown(page)["T"]
    finally:
        page.context.close()
    assert path.stat().st_size > 1_000_000  # plotly.js is inlined
    context = browser.new_context(viewport=PROJECTOR, offline=True)
    offline = context.new_page()
    blocked = []
    offline.route(
        "**/*",
        lambda route: (
            (blocked.append(route.request.url), route.abort())
            if not route.request.url.startswith("file:")
            else route.continue_()
        ),
    )
    errors = []
    offline.on("pageerror", lambda e: errors.append(str(e)))
    offline.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        offline.goto(path.as_uri(), wait_until="load")
        offline.wait_for_selector(".ae-heat canvas[aria-label]")
        expect(offline.locator(".ae-step")).to_have_text(f"Step {T} / {T}")
        offline.keyboard.press("Home")
        offline.keyboard.press("ArrowRight")
        expect(offline.locator(".ae-step")).to_have_text(f"Step 1 / {T}")
        assert len(heatmap_rows(offline)) == 1
        # only what works offline is offered: no empty quiz bar, no question buttons, no "click to force"
        expect(offline.locator(".ae-quiz")).to_be_hidden()
        assert offline.locator(".ae-tools button", has_text="Heads that matter").count() == 0
        assert "force" not in offline.locator(".ae-topk .ae-label").text_content()
        offline.locator(".ae-view-tabs button", has_text="Compare two").click()
        offline.locator(".ae-compare-bar button", has_text="Compare").click()  # no server behind this page
        expect(offline.locator(".ae-compare-note")).to_contain_text("needs the server")
        # the lesson needs no server: it computes its sentences from the trace in the file
        offline.locator(".ae-tools button", has_text="Lesson").click()
        expect(offline.locator(".ae-lesson-title")).to_contain_text("Lesson 1 / 12")
        offline.keyboard.press("ArrowRight")
        offline.keyboard.press("ArrowRight")
        expect(offline.locator(".ae-lesson-title")).to_contain_text("Lesson 3 / 12 · Encoder self-attention")
        expect(offline.locator(".ae-lesson-text")).to_contain_text("of its weight on")
        assert blocked == [], blocked
        assert errors == [], errors
        shot(offline, "10-exported-offline")
    finally:
        context.close()


def test_the_training_step_control_draws_the_recorded_trace_of_that_step(page, tiny_checkpoint):
    from playwright.sync_api import expect

    from explorer.app import timelapse
    from explorer.app.wire import unpack
    from explorer.interpret.handle import load_handle

    recorded = timelapse.read(tiny_checkpoint, load_handle(tiny_checkpoint))
    assert page.locator(".ae-training-step option").all_inner_texts() == ["10", "20", "final (21)"]
    before = cell_colour(page, 1, 1)
    with page.expect_response(lambda r: "/ae/api/timelapse" in r.url) as sent:
        page.select_option(".ae-training-step", "0")
    expect(page.locator(".ae-training-note")).to_have_text("The model after 10 of 21 training steps.")
    settle(page)
    state = shown(page)
    assert (state["step"], state["kind"], state["layer"], state["head"]) == (3, "cross", 1, 2)  # the same view
    wire = recorded["points"][0]["traces"][0]
    got = sent.value.json()["traces"][0]  # what the page drew, as the network brought it
    assert got["model"]["fingerprint"] == wire["model"]["fingerprint"]
    drawn = np.array(Traced(got).weights("cross", 1, 2, 3))
    np.testing.assert_allclose(drawn, unpack(wire["attention"]["cross"])[1, 2, :3], atol=1e-4)
    assert cell_colour(page, 1, 1) != before  # another model's weights, painted
    shot(page, "15-training-step")
    page.select_option(".ae-training-step", "2")  # the final model again
    expect(page.locator(".ae-training-note")).to_be_hidden()
    page.fill("#sentence textarea", TEXT)  # not recorded: the control says so
    page.press("#sentence textarea", "Enter")
    wait_sentence(page, TEXT)
    expect(page.locator(".ae-training-step")).to_be_disabled()
    expect(page.locator(".ae-training-note")).to_contain_text("Only the Translate tab's examples")


def test_play_shows_each_recorded_training_step_then_the_final_model(page):
    """The time-lapse's Play: every recorded point in turn, each drawn (the note names it), then the final model; the
    button says Pause while it plays."""
    from playwright.sync_api import expect

    play, note = page.locator(".ae-training-play"), page.locator(".ae-training-note")
    expect(play).to_have_text("▶ Play training")
    play.click()
    expect(play).to_have_text("⏸ Pause training")
    expect(note).to_have_text("The model after 10 of 21 training steps.")
    expect(page.locator(".ae-training-step")).to_have_value("0")
    expect(note).to_have_text("The model after 20 of 21 training steps.")
    expect(note).to_be_hidden()  # the final model: no note
    expect(page.locator(".ae-training-step")).to_have_value("2")
    expect(play).to_have_text("▶ Play training")


def test_a_mosaic_tile_opens_its_head_the_first_time_the_view_opens(page, app_url):
    """Issue 36 #3: the click handler was bound before plotly.js had drawn (`div.on is not a function`), never again."""
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.locator(".ae-view-tabs button", has_text="All heads").click()
    page.wait_for_selector(".ae-mosaic .nsewdrag")
    wait_drawn(page)
    state, wire = shown(page), on_screen(page, app_url)
    assert state["kind"] == "cross"
    queries, keys = wire["target_tokens"][: state["step"]], wire["source_tokens"]
    layers, heads = wire["model"]["n_layers"]["cross"], wire["model"]["n_heads"]
    rows, cols = layers * (len(queries) + 1) - 1, heads * (len(keys) + 1) - 1
    layer, head = layers - 1, 1  # not the head on screen before
    x = head * (len(keys) + 1) + (len(keys) - 1) / 2  # the tile's centre in the heatmap's cells
    y = layer * (len(queries) + 1) + (len(queries) - 1) / 2
    box = page.locator(".ae-mosaic .nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + (x + 0.5) / cols * box["width"], box["y"] + (y + 0.5) / rows * box["height"])
    page.wait_for_selector(".ae-view-tabs button[data-value=heatmap][aria-pressed=true]")
    state = shown(page)
    assert (state["layer"], state["head"]) == (layer, head)
    assert errors == [], errors


def test_an_empty_sentence_box_asks_for_a_sentence_not_for_a_link(page):
    """Issue 36 #8: Enter on an empty box answered "Name a sentence: add ?s=... to the address" (the API's words)."""
    from playwright.sync_api import expect

    traces = []
    page.on("request", lambda r: traces.append(r.url) if "/trace" in r.url else None)
    for empty in ("", "   "):
        page.fill("#sentence textarea", empty)
        page.press("#sentence textarea", "Enter")
        expect(page.locator(".ae-message")).to_have_text(
            "Type a sentence in English in the box first, then press Enter or “Translate & step”."
        )
    assert traces == []  # nothing asked of the server


def test_the_examples_box_names_the_example_only_while_the_sentence_box_holds_it(page):
    """Issue 50 #5: the Examples box kept showing the last example picked after the text changed."""
    from playwright.sync_api import expect

    from explorer.app.examples import EXAMPLES

    sentence, label = EXAMPLES[1]
    page.locator("#example input").click()
    page.get_by_role("option", name=label).click()
    wait_sentence(page, sentence)
    expect(page.locator("#example input")).to_have_value(f"{label}: {sentence}")
    page.locator("#sentence textarea").click()
    page.keyboard.press("End")
    page.keyboard.type(" Now")
    expect(page.locator("#example input")).to_have_value("")
    expect(page.locator("#sentence textarea")).to_have_value(sentence + " Now")


def test_each_view_button_says_what_its_view_shows(page):
    """Issue 50 #3: every view button's tooltip was "V cycles the views"; now each says what the view shows."""
    buttons = page.locator(".ae-root button", has_text="Heatmap").locator("xpath=..").locator("button")
    titles = {b.text_content().strip(): b.get_attribute("title") for b in buttons.all()}
    views = page.evaluate("document.querySelectorAll('.ae-view-tabs button').length")
    assert len(titles) == views >= 10 and len(set(titles.values())) == views  # one description each
    assert "each row a query token, each column a key token" in titles["Heatmap"]
    assert "q·k/√d_k" in titles["Look-ahead mask"] and "BertViz" in titles["Head view"]
    assert all(t.endswith("(V cycles the views)") and len(t) > 60 for t in titles.values())


def test_the_address_holds_the_place_and_back_and_reload_return_to_it(browser, app_url):
    """Issue 50 #4: Back left the app and a reload reopened the opening example; now the address follows the place (a
    new sentence a new history entry, a step a replaced one)."""
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        page.wait_for_function("window.location.search.includes('step=')")  # the opening place, in the address
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("new URLSearchParams(window.location.search).get('step') === '5'")
        entries = page.evaluate("history.length")
        page.locator("#sentence textarea").fill("The dog sees the cat.")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "new URLSearchParams(window.location.search).get('sentence') === 'The dog sees the cat.'"
        )
        assert page.evaluate("history.length") == entries + 1  # one entry for the new sentence, none per step
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        choose(page, kind="encoder_self", layer=0, head=3)
        page.wait_for_function("new URLSearchParams(window.location.search).get('kind') === 'encoder_self'")
        assert page.evaluate("history.length") == entries + 1
        page.reload(wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        settle(page)
        assert page.input_value("#sentence textarea") == "The dog sees the cat."
        state = shown(page)
        assert (state["step"], state["kind"], state["layer"], state["head"]) == (2, "encoder_self", 0, 3)
        page.go_back()
        page.wait_for_function("new URLSearchParams(location.search).get('sentence') !== 'The dog sees the cat.'")
        settle(page)
        expect(page.locator(".ae-step")).to_have_text(
            re.compile(r"Step 5 / ")
        )  # the sentence before, where it was left
    finally:
        page.context.close()


def test_no_positions_offers_a_sentence_whose_point_is_its_word_order(page):
    """Issue 66 #7: on the opening example No positions shows three identical translations; the view now offers the
    sentence its point needs, and one click shows it in the same view."""
    from playwright.sync_api import expect

    choose(page, view="nopos")
    offer = page.locator(".ae-offer")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text("word order")
    offer.locator("button").click()
    expect(page.locator("#sentence textarea")).to_have_value("The dog bites the man.")
    expect(offer).to_be_hidden()  # the sentence on screen is the offered one
    settle(page)
    assert shown(page)["view"] == "nopos"
    expect(page.locator(".ae-nopos-text")).to_contain_text("Without positions:")
    choose(page, view="heatmap")  # a view that needs no particular sentence offers none
    expect(offer).to_be_hidden()


def test_back_restores_the_view_of_its_entry_not_the_one_on_screen(browser, app_url):
    """Issue 66 #6: an address leaves out the default view and no lesson, so Back to an entry left on the heatmap
    kept the view on screen (the mosaic of the next sentence) and its lesson stop."""
    page = open_page(browser, app_url)
    try:
        page.wait_for_function("window.location.search.includes('step=')")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("new URLSearchParams(window.location.search).get('step') === '4'")
        before = shown(page)
        assert before["view"] == "heatmap" and before["lesson"] is None
        page.locator("#sentence textarea").fill("The dog sees the cat.")
        page.keyboard.press("Enter")
        page.wait_for_function("new URLSearchParams(location.search).get('sentence') === 'The dog sees the cat.'")
        settle(page)
        choose(page, view="mosaic")
        page.wait_for_function("new URLSearchParams(location.search).get('view') === 'mosaic'")
        page.go_back()
        page.wait_for_function("new URLSearchParams(location.search).get('sentence') !== 'The dog sees the cat.'")
        settle(page)
        after = shown(page)
        assert {k: after[k] for k in ("step", "kind", "layer", "head", "view", "lesson")} == {
            k: before[k] for k in ("step", "kind", "layer", "head", "view", "lesson")
        }
    finally:
        page.context.close()


def test_a_link_value_that_cannot_be_used_is_named_and_the_rest_of_the_link_applies(browser, app_url):
    """Issue 50 #4: kind=bogus&layer=-3&view=nonexistent were ignored without a word."""
    from playwright.sync_api import expect

    query = urlencode(
        {"sentence": "The dog sees the cat.", "step": 2, "kind": "bogus", "layer": -3, "view": "nonexistent"}
    )
    page = open_page(browser, app_url + "?" + query)
    try:
        settle(page)
        message = page.locator(".ae-message")
        expect(message).to_contain_text("layer=-3 (not a number)")
        expect(message).to_contain_text("kind=bogus")
        expect(message).to_contain_text("view=nonexistent")
        state = shown(page)
        assert state["step"] == 2 and state["view"] == "heatmap"  # the step applies; the rest as it was
    finally:
        page.context.close()


def test_a_link_to_the_opening_sentence_with_other_options_opens_that_decode_at_its_step(browser, app_url):
    """The page's own opening trace (greedy) must not take the place of a link to the same sentence decoded another
    way: the link's decode opens, at the link's step, with no word about values it could not use."""
    from explorer.app.examples import OPENING_EXAMPLE

    query = urlencode({"sentence": OPENING_EXAMPLE, "strategy": "beam", "beam_size": 2, "step": 4})
    page = open_page(browser, app_url + "?" + query)
    try:
        settle(page)
        assert on_screen(page, app_url)["request"]["strategy"] == "beam"
        assert shown(page)["step"] == 4
        assert page.locator(".ae-message").is_hidden()
        page.wait_for_function("new URLSearchParams(window.location.search).get('strategy') === 'beam'")
    finally:
        page.context.close()


def test_a_link_to_the_opening_example_opens_at_its_own_step(browser, app_url):
    """The page's own opening trace and the link's request for the same decode: the second no longer reset the step."""
    from explorer.app.examples import OPENING_EXAMPLE

    page = open_page(
        browser,
        app_url + "?" + urlencode({"sentence": OPENING_EXAMPLE, "step": 6, "kind": "cross", "layer": 1, "head": 0}),
    )
    try:
        # the page's own trace, then the link's request for the same decode has come back and been loaded
        page.wait_for_function("performance.getEntriesByType('resource').some((e) => e.name.includes('/ae/api/trace'))")
        settle(page)
        state = shown(page)
        assert (state["step"], state["kind"], state["layer"], state["head"]) == (6, "cross", 1, 0)
    finally:
        page.context.close()


def test_a_first_visit_points_to_the_lesson_once(browser, app_url):
    """Issue 50 #3: nothing on the Translate tab said where a student alone should start."""
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        pointer = page.locator(".ae-first-visit")
        expect(pointer).to_be_visible()
        expect(pointer).to_contain_text("New to Transformers?")
        pointer.get_by_role("button", name="Start here").click()
        expect(page.locator(".ae-lesson-title")).to_contain_text("Lesson 1 /")
        expect(pointer).to_be_hidden()
        page.reload(wait_until="load")
        page.wait_for_selector(".ae-heat canvas")
        expect(page.locator(".ae-first-visit")).to_be_hidden()  # once per browser
    finally:
        page.context.close()
    following = open_page(browser, app_url + "?room=ABCD")  # a student following the lecturer is not pointed away
    try:
        expect(following.locator(".ae-first-visit")).to_be_hidden()
    finally:
        following.context.close()


def test_the_viewer_mounts_even_when_its_script_arrives_after_gradios_app(browser, app_url):
    """Gradio adds the page's head, the viewer's script with it, as its own app starts: a first visit to a fresh
    server, whose files were not yet kept, ran the viewer's mount before the script had defined it ("mount is not a
    function") and showed no viewer. Every browser-drawn part now waits for the script (`AttentionExplorer.ready`)."""
    import time

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.route("**/ae/static/viewer.*.js", lambda route: (time.sleep(2.5), route.continue_()))
        page.goto(app_url + "?sentence=The+dog+sees+the+cat.&step=2", wait_until="load")
        page.wait_for_selector(".ae-viewer .ae-heat canvas[aria-label]")
        settle(page)
        assert shown(page)["step"] == 2  # the deep link, read after the script came
        page.get_by_role("tab", name="Train", exact=True).click()
        page.wait_for_selector("#train-message")  # the tabs' browser-drawn parts mounted too
        assert not [e for e in errors if "is not a function" in e], errors
    finally:
        context.close()
