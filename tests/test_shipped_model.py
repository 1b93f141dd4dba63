"""Regression tests of the shipped checkpoint: it loads, translates known sentences, and carries its findings."""

from pathlib import Path

import pytest
import torch

from explorer.alignment import read_gold, score_heads
from explorer.checkpoint import load_checkpoint
from explorer.evaluate import translate
from explorer.session import load_handle

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "tatoeba-en-de"
GOLD = Path(__file__).parent / "data" / "gold_alignments.tsv"

# Sentences from the hand-aligned gold set and what the shipped model translates them to (greedy).
EXPECTED = {}

pytestmark = pytest.mark.skipif(not (SHIPPED / "model.safetensors").is_file(), reason="no shipped checkpoint in this checkout")


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
    hyps, _, _ = translate(shipped.model, shipped.tokenizer, list(EXPECTED))
    assert dict(zip(EXPECTED, hyps)) == EXPECTED


def test_shipped_model_beats_the_bar_it_claims(shipped):
    evaluation = shipped.metadata["evaluation"]
    greedy = next(v for k, v in evaluation.items() if k.endswith("greedy"))
    assert greedy["bleu"] >= 50 and greedy["chrf"] >= 68
    assert greedy["bleu_signature"].startswith("nrefs:")


def test_recorded_alignment_finding_reproduces_and_sets_the_default_view(shipped):
    alignment = shipped.metadata["alignment"]
    with torch.no_grad():
        heads = score_heads(shipped.model, shipped.tokenizer, read_gold(GOLD))
    best = next(r for r in heads if isinstance(r["head"], int))
    assert (best["layer"], best["head"]) == (alignment["best"]["layer"], alignment["best"]["head"])
    assert best["aer"] == pytest.approx(alignment["best"]["aer"], abs=1e-4)
    assert load_handle(SHIPPED).default_view == ("cross", best["layer"], str(best["head"]))
