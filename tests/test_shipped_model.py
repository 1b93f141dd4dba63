"""Regression tests of the shipped checkpoints (the lecture model the app opens on, and the Tatoeba model it was
continued from): each loads, translates known sentences, and carries its findings and its recipe."""

from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from explorer.app import SHIPPED_CHECKPOINT, SHIPPED_MODELS
from explorer.interpret.alignment import read_gold, score_heads
from explorer.interpret.handle import load_handle
from explorer.model.checkpoint import load_checkpoint
from explorer.training.evaluate import translate
from explorer.training.recipe import load_recipe
from explorer.training.trainer import TrainConfig

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = SHIPPED_CHECKPOINT  # the lecture model: the default
TATOEBA = SHIPPED_MODELS[1]
GOLDS = Path(__file__).parents[1] / "explorer" / "app" / "alignments"
# the hand alignments each card's AER table was measured on (its report_command's --gold)
GOLD = {SHIPPED: [GOLDS / "everyday.tsv", GOLDS / "lecture.tsv"], TATOEBA: [GOLDS / "everyday.tsv"]}
RECIPES = {SHIPPED: "lecture_en_de", TATOEBA: "tatoeba_en_de"}
NAMES = {SHIPPED: "English→German for lectures", TATOEBA: "Tatoeba English→German"}

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
    "The little girl likes her new teacher.": "Das kleine Mädchen mag ihren neuen Lehrer.",
    "This layer has four heads.": "Diese Schicht hat vier Köpfe.",
    "The model predicts the next word.": "Das Modell sagt das nächste Wort vorher.",
    "The student asks the teacher a question.": "Der Student stellt dem Lehrer eine Frage.",
    "When I came home yesterday evening, my mother was sitting in the kitchen and reading a book.": (
        "Als ich gestern Abend nach Hause kam, saß meine Mutter gerade in der Küche und las ein Buch."
    ),
}

pytestmark = pytest.mark.skipif(
    not (SHIPPED / "model.safetensors").is_file(), reason="no shipped checkpoint in this checkout"
)


@pytest.fixture(scope="module", params=SHIPPED_MODELS, ids=lambda p: p.name)
def each(request):
    return request.param, load_checkpoint(request.param)


@pytest.fixture(scope="module")
def shipped():
    return load_checkpoint(SHIPPED)


def test_each_shipped_checkpoint_is_small_and_credited(each):
    path, ckpt = each
    size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    assert size <= 25_000_000
    card = (path / "README.md").read_text(encoding="utf-8")
    assert "Tatoeba Project (tatoeba.org) and manythings.org/anki" in card and "CC-BY 2.0 France" in card
    assert (path / "loss_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ckpt.model.num_parameters() == ckpt.metadata["parameters"]


def test_the_lecture_model_credits_only_what_it_trained_on():
    card = (SHIPPED / "README.md").read_text(encoding="utf-8")
    assert "Ding" in card and "lecture corpus" in card
    for never in ("WMT", "LibreOffice", "VLC"):  # the heavier mix's sources: not this model's
        assert never not in card.split("## Notes on this run")[0], never


def test_each_shipped_model_translates_gold_sentences_as_expected(each):
    _, ckpt = each
    assert len(EXPECTED) >= 5
    hyps, _, _ = translate(ckpt.model, ckpt.tokenizer, list(EXPECTED))
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


def test_recorded_evaluation_covers_the_whole_valid_set_and_is_what_the_card_says(each):
    path, ckpt = each
    card = (path / "README.md").read_text(encoding="utf-8")
    evaluation = ckpt.metadata["evaluation"]
    assert {"valid.tsv, greedy", "valid.tsv, beam 4"} <= set(evaluation)
    for name, ev in evaluation.items():
        if name.startswith("valid.tsv"):
            assert ev["sentences"] == 2690 and ev["references"] == 3366  # every valid.tsv line, grouped by source
        references = "nrefs:var" if name.startswith(("valid.tsv", "TED")) else "nrefs:1"  # one reference a source
        assert ev["bleu_signature"].startswith(references) and ev["chrf_signature"].startswith(references), name
        assert f"BLEU **{ev['bleu']}**" in card and f"chrF **{ev['chrf']}**" in card


def test_the_lecture_model_keeps_tatoeba_and_gains_the_field():
    """The figures the lecture model ships on (issue 49): valid.tsv kept, FLORES gained, every set in its card."""
    evaluation = load_checkpoint(SHIPPED).metadata["evaluation"]
    assert evaluation["valid.tsv, greedy"]["bleu"] >= 47.8
    flores = next(ev for name, ev in evaluation.items() if name.startswith("FLORES"))
    assert flores["chrf"] >= 29 and flores["sentences"] == 1012
    assert {name.split(",")[0] for name in evaluation} >= {"valid.tsv", "FLORES", "NTREX", "TED", "lecture dev"}
    assert load_checkpoint(SHIPPED).metadata["lecture"]["sentences"] == 88  # every translation listed in the card


@pytest.mark.slow
def test_recorded_alignment_finding_reproduces_and_sets_the_default_view(each):
    path, ckpt = each
    alignment = ckpt.metadata["alignment"]
    pairs = [pair for gold in GOLD[path] for pair in read_gold(gold)]
    assert alignment["pairs"] == len(pairs)
    # the card's command names these files where they are, so it reproduces the table (a moved file broke it once)
    named = ckpt.metadata["report_command"].split("--gold ")[1].split(" --")[0].split()
    assert [ROOT / name for name in named] == GOLD[path] and alignment["gold"] == " + ".join(p.name for p in GOLD[path])
    with torch.no_grad():
        heads = score_heads(ckpt.model, ckpt.tokenizer, pairs)
    best = next(r for r in heads if isinstance(r["head"], int))
    assert (best["layer"], best["head"]) == (alignment["best"]["layer"], alignment["best"]["head"])
    assert best["aer"] == pytest.approx(alignment["best"]["aer"], abs=1e-4)
    assert load_handle(path).default_view == ("cross", best["layer"], str(best["head"]))


@pytest.mark.parametrize("path", SHIPPED_MODELS, ids=lambda p: p.name)
def test_each_shipped_model_is_named_in_its_metadata(path):
    assert load_handle(path).name == NAMES[path]


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


def test_the_recipe_file_is_how_each_shipped_model_was_trained(each):
    """One source of truth: the recipe reproduces the stored train_config, and the card quotes the file as it is."""
    path, shipped = each
    recipe = RECIPES[path]
    loaded = load_recipe(recipe)
    stored = shipped.metadata["train_config"]
    recorded = asdict(TrainConfig()) | stored  # fields added since it was trained: their defaults, which it used
    recorded["model"] = asdict(TrainConfig().model) | stored["model"]  # the model's own (lookahead_mask) likewise
    assert asdict(loaded.recipe.config) | {"out": stored["out"], "work_dir": stored["work_dir"]} == recorded
    assert shipped.metadata["recipe"]["text"] == loaded.text
    assert shipped.metadata["command"] == f"python -m explorer.training.train --recipe {recipe} --out OUT"
    assert (
        shipped.metadata["name"] == loaded.recipe.name and shipped.metadata["data_credit"] == loaded.recipe.data_credit
    )
    card = (path / "README.md").read_text(encoding="utf-8")
    assert loaded.text.rstrip() in card and "../shared" not in card.split("The recipe")[0].split("## Training\n")[1]
    assert "## Known limits" in card and all(f"- {limit}" in card for limit in loaded.recipe.known_limits)
    assert len(shipped.metadata["alignment"]["methods"]) == 5 and "| integrated gradients |" in card
