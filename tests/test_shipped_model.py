"""Regression tests of the shipped checkpoint: it loads, translates known sentences, and carries its findings."""

from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from explorer.app import SHIPPED_CHECKPOINT
from explorer.interpret.alignment import read_gold, score_heads
from explorer.interpret.handle import load_handle
from explorer.model.checkpoint import load_checkpoint
from explorer.training.evaluate import translate
from explorer.training.recipe import load_recipe
from explorer.training.trainer import TrainConfig

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = SHIPPED_CHECKPOINT
GOLD = Path(__file__).parents[1] / "explorer" / "app" / "alignments" / "everyday.tsv"

# Sentences from the hand-aligned gold set that the shipped model translates exactly as the gold German
# (greedy): plain SVO, case, negation, and the word-order phenomena the app is used to show.
EXPECTED = {
    "My brother is reading a book.": "Mein Bruder liest ein Buch.",
    "The girl has a small dog.": "Das Mädchen hat einen kleinen Hund.",
    "I do not like coffee.": "Ich mag keinen Kaffee.",
    "She goes to work by bus.": "Sie fährt mit dem Bus zur Arbeit.",  # "goes" by bus is fährt, not geht
    "You must read this book.": "Du musst dieses Buch lesen.",  # modal + infinitive at the end
    "He says that his father is a doctor.": "Er sagt, dass sein Vater Arzt ist.",  # verb-final subordinate clause
    "I stay at home because it is raining.": "Ich bleibe zu Hause, weil es regnet.",
    "My mother buys bread every day.": "Meine Mutter kauft jeden Tag Brot.",  # time before object
    "My mother gets up early.": "Meine Mutter steht früh auf.",  # separable verb
}

# Every example of the Translate tab, as the shipped model translates it in the app (greedy): each one correct,
# so no example meant to teach a construction shows it wrong.
EXAMPLE_TRANSLATIONS = {
    "I know that he reads a book every day.": "Ich weiß, dass er jeden Tag ein Buch liest.",
    "The train arrives at eight o'clock.": "Der Zug kommt um acht Uhr an.",
    "She calls her mother every evening.": "Sie ruft ihre Mutter jeden Abend an.",
    "I have seen the big dog in the garden.": "Ich habe den großen Hund im Garten gesehen.",
    "We want to buy a new car tomorrow.": "Wir wollen morgen ein neues Auto kaufen.",
    "The man gives a book to the woman.": "Der Mann gibt der Frau ein Buch.",
    "The little girl likes her new teacher.": "Das kleine Mädchen mag ihre neue Lehrerin.",
    "When I came home yesterday evening, my mother was sitting in the kitchen and reading a book.": (
        "Als ich gestern Abend nach Hause kam, saß meine Mutter gerade in der Küche und las ein Buch."
    ),
}

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.safetensors").is_file(), reason="no shipped checkpoint in this checkout"
)


@pytest.fixture(scope="module")
def shipped():
    return load_checkpoint(SHIPPED)


def test_shipped_checkpoint_is_small_and_credited(shipped):
    size = sum(f.stat().st_size for f in SHIPPED.iterdir() if f.is_file())
    assert size <= 25_000_000
    card = (SHIPPED / "README.md").read_text(encoding="utf-8")
    assert "Tatoeba Project (tatoeba.org) and manythings.org/anki" in card and "CC-BY 2.0 France" in card
    assert (SHIPPED / "loss_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shipped.model.num_parameters() == shipped.metadata["parameters"]


def test_shipped_model_translates_gold_sentences_as_expected(shipped):
    assert len(EXPECTED) >= 5
    hyps, _, _ = translate(shipped.model, shipped.tokenizer, list(EXPECTED))
    assert dict(zip(EXPECTED, hyps)) == EXPECTED


def test_every_translate_tab_example_translates_correctly_in_the_app():
    from explorer.app.examples import EXAMPLES
    from explorer.app.schemas import trace_request
    from explorer.interpret.trace import build_trace

    assert [s for s, _ in EXAMPLES] == list(EXAMPLE_TRANSLATIONS)  # a new example is checked here too
    handle = load_handle(SHIPPED)
    for sentence, german in EXAMPLE_TRANSLATIONS.items():
        trace = build_trace(handle, trace_request(sentence, "greedy"))
        assert (trace.outputs[-1], trace.finished) == (german, "eos"), sentence


def test_recorded_evaluation_covers_the_whole_valid_set_and_is_what_the_card_says(shipped):
    card = (SHIPPED / "README.md").read_text(encoding="utf-8")
    evaluation = shipped.metadata["evaluation"]
    assert any(name.endswith("greedy") for name in evaluation)
    for ev in evaluation.values():
        assert ev["sentences"] == 2690 and ev["references"] == 3366  # every valid.tsv line, grouped by source
        assert ev["bleu_signature"].startswith("nrefs:var") and ev["chrf_signature"].startswith("nrefs:var")
        assert f"BLEU **{ev['bleu']}**" in card and f"chrF **{ev['chrf']}**" in card


def test_recorded_alignment_finding_reproduces_and_sets_the_default_view(shipped):
    alignment = shipped.metadata["alignment"]
    with torch.no_grad():
        heads = score_heads(shipped.model, shipped.tokenizer, read_gold(GOLD))
    best = next(r for r in heads if isinstance(r["head"], int))
    assert (best["layer"], best["head"]) == (alignment["best"]["layer"], alignment["best"]["head"])
    assert best["aer"] == pytest.approx(alignment["best"]["aer"], abs=1e-4)
    assert load_handle(SHIPPED).default_view == ("cross", best["layer"], str(best["head"]))


def test_the_shipped_model_is_named_in_its_metadata():
    assert load_handle(SHIPPED).name == "Tatoeba English→German"


def test_the_long_example_trace_fits_its_wire_budget():
    """The Translate tab's long example travels in at most 150 KB (the browser gets the whole decode at once)."""
    import json

    from explorer.app.schemas import trace_request
    from explorer.app.wire import to_wire
    from explorer.interpret.trace import build_trace
    from explorer.ui.translate_tab import EXAMPLES

    handle = load_handle(SHIPPED)
    long_example = max((s for s, _ in EXAMPLES), key=len)
    for strategy in ("greedy", "beam"):
        wire = to_wire(build_trace(handle, trace_request(long_example, strategy)), handle)
        size = len(json.dumps(wire, ensure_ascii=False).encode())
        assert size <= 150_000, (strategy, size)


def test_the_recipe_file_is_how_the_shipped_model_was_trained(shipped):
    """One source of truth: the recipe reproduces the stored train_config, and the card quotes the file as it is."""
    loaded = load_recipe("tatoeba_en_de")
    stored = shipped.metadata["train_config"]
    recorded = asdict(TrainConfig()) | stored  # fields added since it was trained: their defaults, which it used
    recorded["model"] = asdict(TrainConfig().model) | stored["model"]  # the model's own (lookahead_mask) likewise
    assert asdict(loaded.recipe.config) | {"out": stored["out"], "work_dir": stored["work_dir"]} == recorded
    assert shipped.metadata["recipe"]["text"] == loaded.text
    assert shipped.metadata["command"] == "python -m explorer.training.train --recipe tatoeba_en_de --out OUT"
    assert (
        shipped.metadata["name"] == loaded.recipe.name and shipped.metadata["data_credit"] == loaded.recipe.data_credit
    )
    card = (SHIPPED / "README.md").read_text(encoding="utf-8")
    assert loaded.text.rstrip() in card and "../shared" not in card.split("The recipe")[0].split("## Training\n")[1]
    assert "## Known limits" in card and all(f"- {limit}" in card for limit in loaded.recipe.known_limits)
    assert len(shipped.metadata["alignment"]["methods"]) == 5 and "| integrated gradients |" in card
