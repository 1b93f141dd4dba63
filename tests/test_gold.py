"""Attention against gold alignment (issue 38, part 6): the hand-aligned sentences, their links at the piece level
on a trace, each cross-attention head's AER on the sentence (against the teacher-forced reference of the model report),
the wire through the API, and the outlines drawn on the cross-attention heatmap in Chromium."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from browser_fixtures import choose, on_screen, open_page, outlined_cells, settle, shot, shown

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import EXAMPLES
from explorer.app.gold import FOLDER, gold_of, gold_pairs
from explorer.app.schemas import trace_request
from explorer.interpret.alignment import alignment_scores, cross_attention_words, on_trace, read_gold, words
from explorer.interpret.handle import load_handle
from explorer.interpret.trace import build_traces, plan_trace
from explorer.model.tokenizer import WORD_START

SHIPPED = SHIPPED_CHECKPOINT
DATIVE = "The man gives a book to the woman."


def trace(handle, sentence: str, **options):
    (found,) = build_traces(handle, [plan_trace(handle, trace_request(sentence, **options))])
    return found


def test_every_translate_tab_example_the_everyday_set_and_lecture_sentences_are_aligned_by_hand_once():
    pairs = gold_pairs()
    assert {sentence for sentence, _ in EXAMPLES} <= set(pairs)  # every example, by hand
    lecture = {pair.source for pair in read_gold(FOLDER / "lecture.tsv")}
    assert len(lecture) >= 20 and lecture <= set(pairs)  # a lecture happens on lecture sentences
    examples = {pair.source for pair in read_gold(FOLDER / "examples.tsv")}
    assert len(pairs) == 31 + len(examples) + len(lecture)  # the everyday set, the examples, the lecture sentences
    for path in FOLDER.glob("*.tsv"):
        assert path.read_text(encoding="utf-8").startswith("source\ttarget\talignment\n"), path
    for pair in pairs.values():  # every link joins two words that exist; every source word but a few is linked
        n_source, n_target = len(words(pair.source)), len(words(pair.target))
        assert all(0 <= s < n_source and 0 <= t < n_target for s, t in pair.links), pair


def test_on_a_trace_that_wrote_the_gold_translation_the_heads_aer_is_the_model_reports(mini_handle):
    """Each head's AER on the sentence equals the report's, whose maps come from a separate teacher-forced pass."""
    pair = gold_pairs()[DATIVE]
    gold_ids = mini_handle.tokenizer.encode(pair.target)
    written = trace(mini_handle, DATIVE, forced_ids=gold_ids)  # the random model writes the gold German when forced
    found = on_trace(mini_handle.tokenizer, pair, written.source_ids, written.target_ids, written.cross)
    assert found is not None
    reference = cross_attention_words(mini_handle.model, mini_handle.tokenizer, pair)  # (L, H, target, source words)
    L, H = reference.shape[:2]
    assert [[alignment_scores([pair], [reference[i, h]])["aer"] for h in range(H)] for i in range(L)] == found.aer
    assert [alignment_scores([pair], [reference[i].mean(0)])["aer"] for i in range(L)] == found.aer_mean
    assert len({a for row in found.aer for a in row}) > 1  # the heads differ: a constant would not pass

    other = trace(mini_handle, DATIVE)  # the random model's own translation is not the gold one
    assert other.target_ids[: len(gold_ids)] != gold_ids
    assert on_trace(mini_handle.tokenizer, pair, other.source_ids, other.target_ids, other.cross) is None
    wire = gold_of(other, mini_handle)
    assert wire["matches"] is False and wire["cells"] == wire["aer"] == [] and wire["target_ids"] == gold_ids
    assert gold_of(trace(mini_handle, "The dog sees the cat."), mini_handle) is None  # no hand alignment


@pytest.mark.skipif(not SHIPPED.is_dir(), reason="the shipped checkpoint is not here")
def test_the_links_are_outlined_on_the_pieces_of_each_linked_word_pair():
    handle = load_handle(SHIPPED)
    written = trace(handle, DATIVE)  # the shipped model writes the gold German itself
    gold = gold_of(written, handle)
    assert gold["matches"] and written.outputs[-1] == gold["target"] == "Der Mann gibt der Frau ein Buch."

    def text(token: str) -> str:
        return token.replace(WORD_START, "")

    linked = {(text(written.target_tokens[j]), text(written.source_tokens[i])) for j, i in gold["cells"]}
    assert linked == {
        ("Der", "The"), ("Mann", "man"), ("gibt", "gives"), ("der", "to"), ("der", "the"), ("Frau", "woman"),
        ("ein", "a"), ("Buch", "book"), (".", "."),
    }  # fmt: skip
    assert len(gold["cells"]) == gold["links"] == 9  # one piece a word here: one cell a link


@pytest.mark.slow
def test_the_api_trace_carries_the_gold_alignment(api, tiny_tokenizer):
    wire = api.get("/trace", sentence=DATIVE)
    gold = wire["gold"]
    assert gold["target"] == "Der Mann gibt der Frau ein Buch." and gold["links"] == 9
    assert gold["target_ids"] == tiny_tokenizer.encode(gold["target"])
    forced = api.get("/trace", sentence=DATIVE, forced_ids=gold["target_ids"])["gold"]
    assert forced["matches"] and forced["cells"] and len(forced["aer"]) == wire["model"]["n_layers"]["cross"]
    assert api.get("/trace", sentence="The dog sees the cat.")["gold"] is None


@pytest.mark.browser
def test_g_decodes_the_gold_translation_and_the_heatmap_outlines_its_links(browser, app_url, tmp_path):
    from playwright.sync_api import expect

    page = open_page(browser, app_url + "?" + urlencode({"sentence": DATIVE}), accept_downloads=True)
    try:
        settle(page)  # the link's own trace
        assert on_screen(page, app_url)["request"]["sentence"] == DATIVE
        choose(page, view="heatmap", kind="cross", head=1)
        caption = page.locator(".ae-caption")
        expect(caption).to_contain_text("Press G to decode the gold translation")
        assert outlined_cells(page) == []  # the model wrote another translation: nothing to outline

        page.keyboard.press("g")
        expect(caption).to_contain_text("Outlined: the 9 word links")
        settle(page)
        state, wire = shown(page), on_screen(page, app_url)
        gold = wire["gold"]
        assert wire["request"]["forced_ids"] == gold["target_ids"]
        assert (state["view"], state["kind"], state["step"]) == ("heatmap", "cross", len(gold["target_ids"]))
        layer, head = state["layer"], state["head"]
        aer = gold["aer"][layer][head]
        expect(caption).to_contain_text(f"L{layer}·H{head} on this sentence: {aer:.2f}")
        expect(page.locator(".ae-heat .ae-grid-title, .ae-heat [class*=title]").first).to_contain_text(f"AER {aer:.2f}")
        # the pixels: exactly the gold cells of the rows shown have a white edge around their weight's colour
        expected = [c for c in gold["cells"] if c[0] < state["step"]]
        assert outlined_cells(page) == expected and len(expected) >= 9
        shot(page, "gold-alignment-outlined")
        with page.expect_download() as info:  # the offline HTML carries the trace, its gold alignment with it
            page.locator(".ae-tools button", has_text="HTML").click()
        exported = tmp_path / "export.html"
        info.value.save_as(exported)
    finally:
        page.context.close()
    offline = browser.new_context(offline=True).new_page()
    try:
        offline.goto(exported.as_uri(), wait_until="load")
        offline.wait_for_selector(".ae-heat canvas[aria-label]")
        choose(offline, view="heatmap", kind="cross", head=1)
        step = shown(offline)["step"]
        assert outlined_cells(offline) == [c for c in gold["cells"] if c[0] < step] != []
        expect(offline.locator(".ae-caption")).to_contain_text("Outlined: the 9 word links")
    finally:
        offline.context.close()


@pytest.mark.browser
def test_g_on_a_sentence_nobody_aligned_says_so_and_how_to_get_one(browser, app_url):
    """Issue 50 #5: G did nothing, and said nothing, on every sentence a lecturer types."""
    from playwright.sync_api import expect

    sentence = "The dog sees the cat."
    page = open_page(browser, app_url + "?" + urlencode({"sentence": sentence}))
    try:
        settle(page)  # the link's own trace
        page.keyboard.press("g")
        message = page.locator(".ae-message")
        expect(message).to_be_visible()
        expect(message).to_contain_text(f"no one has aligned “{sentence}” by hand")
        expect(message).to_contain_text("Pick an example from the Examples menu")
        assert "explorer/" not in message.inner_text()  # a student is never sent to the repository (issue 66 #8)
    finally:
        page.context.close()


@pytest.mark.slow
@pytest.mark.skipif(not SHIPPED.is_dir(), reason="the shipped checkpoint is not here")
def test_the_lecture_model_writes_every_lecture_sentence_as_aligned_and_its_links_are_outlined():
    """A lecture happens on lecture sentences: the default model writes the gold German of all 26, so the heatmap
    outlines their links and names each head's AER on them (issue 49); the head the page opens on aligns them."""
    handle = load_handle(SHIPPED)
    L, H = handle.config.n_decoder_layers, handle.config.n_heads
    best_layer, best_head = handle.best_head[1:]
    at_best = []
    for pair in read_gold(FOLDER / "lecture.tsv"):
        written = trace(handle, pair.source)
        gold = gold_of(written, handle)
        assert gold["matches"] and written.outputs[-1] == gold["target"], pair.source
        assert len(gold["cells"]) >= gold["links"]  # every link outlined on the pieces of its words
        assert len(gold["aer"]) == L and all(len(row) == H and all(0 <= a <= 1 for a in row) for row in gold["aer"])
        at_best.append(gold["aer"][best_layer][best_head])
    assert len(at_best) >= 20 and sum(at_best) / len(at_best) <= 0.2  # measured: 0.123 (one sentence 0.47)


@pytest.mark.browser
def test_the_aer_in_a_title_is_explained_where_it_appears(browser, app_url):
    """Issue 50 #3: "AER 0.14" in the opening title was explained only below the fold."""
    page = open_page(browser, app_url + "?" + urlencode({"sentence": DATIVE}))
    try:
        settle(page)  # the link's own trace
        page.keyboard.press("g")  # the gold translation: the title names the head's AER
        page.wait_for_function("() => new URLSearchParams(location.search).getAll('forced_ids').length > 0")
        choose(page, view="heatmap", kind="cross", layer=1, head=1)
        title = page.locator(".ae-heat .ae-grid-title").first
        assert " · AER " in title.text_content()
        assert "alignment error rate" in title.get_attribute("title")
        choose(page, kind="encoder_self")  # no AER here: nothing to explain
        assert "alignment error rate" not in (title.get_attribute("title") or "")
    finally:
        page.context.close()
