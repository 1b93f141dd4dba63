"""The guided lesson in headless Chromium at 1366x768: every stop, stepped with the keys, quotes the numbers of the
trace on screen (recomputed here from the same trace, fetched through the API), sets its view, and a deep link opens
a given stop."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import numpy as np
import pytest
from browser_fixtures import open_page, shot

from explorer.app.wire import unpack

pytestmark = pytest.mark.browser

N_STOPS = 12


def q(token: str) -> str:
    return f"“{token}”"


def pct(p: float) -> str:
    return f"{100 * p:.1f}%"


class Expected:
    """What each stop must say, computed from the wire trace with numpy (the browser computes it in JavaScript)."""

    def __init__(self, wire: dict, lens: dict, path: dict | None = None):
        self.w, self.lens, self.path = wire, lens, path
        self.src, self.tgt = wire["source_tokens"], wire["target_tokens"]
        self.att = {kind: unpack(a) for kind, a in wire["attention"].items()}
        self.scores = unpack(wire["scores"]["decoder_self"])
        best = wire["model"]["best_head"]
        n_cross = wire["model"]["n_layers"]["cross"]
        self.layer, self.head = (best["layer"], best["head"]) if best and best["kind"] == "cross" else (n_cross - 1, 0)

    def strongest_encoder_link(self):
        a = self.att["encoder_self"]  # (L, H, S, S)
        best = (-1.0, None)
        for index in np.ndindex(a.shape):
            layer, head, i, j = index
            if i != j and "</s>" not in (self.src[i], self.src[j]) and a[index] > best[0]:
                best = (float(a[index]), (layer, head, i, j))
        return best

    def clearest_step(self):
        best = (-1.0, 1, 0)
        for t in range(1, len(self.tgt) + 1):
            row = self.att["cross"][self.layer, self.head, t - 1]
            j = int(row.argmax())
            if self.tgt[t - 1] != "</s>" and self.src[j] != "</s>" and row[j] > best[0]:
                best = (float(row[j]), t, j)
        return best

    def sentences(self, stop: int) -> list[str]:
        w = self.w
        if stop == 1:
            split = [p for p in self.src if p.startswith("·")]  # pieces that continue a word, as the page shows them
            cut = f"cut into pieces: {', '.join(map(q, split))} continue" if split else "none had to be cut"
            return [
                f"Your sentence is {len(self.src) - 1} word pieces",
                f"{q(self.src[0])} is id {w['source_ids'][0]}.",
                cut,
            ]
        if stop == 3:
            weight, (layer, head, i, j) = self.strongest_encoder_link()
            return [f"In L{layer}·H{head}, {q(self.src[i])} puts {weight:.2f} of its weight on {q(self.src[j])}"]
        if stop == 4:
            first = w["steps"][0]
            return [
                f"it writes {q(first['token'])} with probability {pct(first['prob'])}",
                f"took {len(self.tgt)} steps",
            ]
        if stop == 5:
            future = self.scores[0, 0, 0, 1]  # layer 0, head 0: the first row's score of the next input, masked
            own = self.att["decoder_self"][0, 0, 0, 0]
            return [f"at {future:.2f} (L0·H0)", f"gets weight {own:.2f}."]
        if stop == 6:
            weight, t, j = self.clearest_step()
            gold = w["gold"]  # the opening example is aligned by hand
            if gold["matches"]:
                aer = gold["aer"][self.layer][self.head]
                against = f"L{self.layer}·H{self.head}'s alignment error rate (AER) on this sentence is {aer:.2f}"
            else:
                against = "This sentence is aligned by hand: press G to decode its gold translation"
            return [
                f"At step {t} the decoder writes {q(self.tgt[t - 1])}; L{self.layer}·H{self.head} puts {weight:.2f} "
                f"of its weight on {q(self.src[j])}.",
                against,
            ]
        if stop in (7, 8):
            _, t, _ = self.clearest_step()
            p = self.path  # the value path of the lesson head's query at that step, as the server answers it
            if stop == 7:
                scores = np.array(p["keys"]) @ np.array(p["query"]) / np.sqrt(p["d_head"])
                top = np.argsort(-scores)[:2]
                return [
                    f"each is d_k = {p['d_head']} numbers",
                    f"At step {t} the query that writes {q(self.tgt[t - 1])} meets the key of every English piece: "
                    "q·k/√d_k = " + ", ".join(f"{scores[j]:.2f} for {q(p['key_tokens'][j])}" for j in top),
                    f"{p['weights'][top[0]]:.2f} on {q(p['key_tokens'][top[0]])}",
                ]
            j = int(np.argmax(p["weights"]))
            z, v = np.array(p["z"]), np.array(p["values"][j])
            cos = z @ v / (np.linalg.norm(z) * np.linalg.norm(v))
            return [
                f"{q(p['key_tokens'][j])} has weight {p['weights'][j]:.2f}",
                f"|z| = {np.linalg.norm(z):.2f} against |v| = {np.linalg.norm(v):.2f}, cosine {cos:.2f}",
            ]
        if stop == 9:
            _, t, _ = self.clearest_step()
            top = w["steps"][t - 1]["top"][:3]
            return [f"At step {t} the best were " + ", ".join(f"{q(c['token'])} {pct(c['prob'])}" for c in top)]
        if stop == 10:
            _, t, _ = self.clearest_step()
            last = w["model"]["n_layers"]["cross"] - 1
            rows = self.att["cross"][last, :, t - 1]
            return ["; ".join(f"H{h} → {q(self.src[int(r.argmax())])} {r.max():.2f}" for h, r in enumerate(rows))]
        if stop == 11:
            _, t, _ = self.clearest_step()
            means = self.att["cross"][:, :, t - 1].astype(np.float64).mean(axis=1)  # (layers, S)
            chosen = w["steps"][t - 1]["id"]
            leads = [layer for layer, ids in enumerate(self.lens["top_ids"]) if ids[t - 1][0] == chosen]
            decided = f"layer {leads[0]}" if leads else "no layer"
            return [
                ", ".join(
                    f"layer {layer}: {q(self.src[int(m.argmax())])} {m.max():.2f}" for layer, m in enumerate(means)
                ),
                f"the layer from which {q(self.tgt[t - 1])} leads is {decided}",
            ]
        if stop == 12:
            return [q(w["outputs"][-1])]
        return []


def lesson_text(page) -> str:
    return " ".join(page.locator(".ae-lesson-text p").all_text_contents())


def test_every_stop_quotes_this_traces_numbers_and_sets_its_view(browser, app_url):
    from playwright.sync_api import expect

    page = open_page(browser, app_url)
    try:
        sentence = page.input_value("#sentence textarea")
        wire = httpx.get(f"{app_url}ae/api/trace", params={"sentence": sentence}, timeout=60).json()
        asked = {"trace": {"sentence": sentence}, "question": {"what": "lens"}}
        lens = httpx.post(f"{app_url}ae/api/ask/lens", json=asked, timeout=60).json()
        expected = Expected(wire, lens)
        _, step, _ = expected.clearest_step()
        question = {
            "what": "value_path",
            "kind": "cross",
            "layer": expected.layer,
            "head": expected.head,
            "row": step - 1,
        }
        asked = {"trace": {"sentence": sentence}, "question": question}
        expected.path = httpx.post(f"{app_url}ae/api/ask/value_path", json=asked, timeout=60).json()
        page.get_by_role("button", name="Lesson", exact=True).click()
        views = []
        for stop in range(1, N_STOPS + 1):
            if stop > 1:
                page.keyboard.press("ArrowRight")  # → moves through the stops while the lesson is open
            expect(page.locator(".ae-lesson-title")).to_contain_text(f"Lesson {stop} / {N_STOPS}")
            for needle in expected.sentences(stop):  # a stop that asks the server says it again when answered
                expect(page.locator(".ae-lesson-text")).to_contain_text(needle)
            text = lesson_text(page)
            assert len(page.locator(".ae-lesson-text p").all()) >= 1 and "undefined" not in text and "NaN" not in text
            views.append(page.locator(".ae-view-tabs .ae-on").text_content())
            box = page.locator(".ae-lesson").bounding_box()
            assert box["y"] + box["height"] <= 768 and box["width"] <= 1366, (stop, box)  # on the projector's screen
            if stop in (1, 5, 6):
                shot(page, f"lesson-{stop:02d}")
        assert views[4] == "Look-ahead mask" and views[5] == "Heatmap", views  # the mask's stop shows its three stages
        assert views[6] == views[7] == "Heatmap", views  # q·k and Σ w·v beside the weights they explain
        _, clearest, _ = expected.clearest_step()
        assert f"Step {clearest} of" in page.locator(".ae-status-line").text_content()  # the stops set the step too
        page.locator(".ae-tools button", has_text="Copy link").click()  # the link: copied, and in the address bar
        link = parse_qs(urlsplit(page.url).query)
        assert link["lesson"] == [str(N_STOPS)]
        page.keyboard.press("ArrowLeft")
        expect(page.locator(".ae-lesson-title")).to_contain_text(f"Lesson {N_STOPS - 1} / ")
        page.keyboard.press("Escape")
        expect(page.locator(".ae-lesson")).to_be_hidden()
        page.keyboard.press("ArrowRight")  # with the lesson closed, → steps the decode again
        expect(page.locator(".ae-step")).to_have_text(re.compile(rf"Step {clearest + 1} / "))
    finally:
        page.context.close()


def test_a_deep_link_opens_a_given_stop(browser, app_url):
    from playwright.sync_api import expect

    page = open_page(browser, app_url + "?" + urlencode({"sentence": "The dog sees the cat.", "lesson": 6}))
    try:
        expect(page.locator(".ae-lesson-title")).to_contain_text("Lesson 6 / 12 · Cross-attention as alignment")
        assert "At step " in lesson_text(page)
    finally:
        page.context.close()
