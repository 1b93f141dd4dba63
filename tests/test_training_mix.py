"""Training over several corpora: weights per epoch, test sets kept out, a recipe's sources in the card; and the
training time-lapse file, read and checked like the rest of a checkpoint."""

from __future__ import annotations

import gzip
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from app_fixtures import TIMELAPSE_SENTENCES, build_tiny_checkpoint

from explorer.app import timelapse
from explorer.interpret.handle import load_handle
from explorer.model.checkpoint import CheckpointError
from explorer.training.card import render_card
from explorer.training.data import held_out_filter, weighted_epoch
from explorer.training.recipe import DataSource, Recipe, load_recipe
from explorer.training.train import read_data
from explorer.training.trainer import TrainConfig


def test_each_epoch_takes_every_corpus_by_its_weight_and_a_new_fraction():
    sizes, weights = [4, 10], [2.0, 0.5]
    first = weighted_epoch(sizes, weights, seed=1)
    counts = Counter(first)
    assert all(counts[i] == 2 for i in range(4))  # weight 2: every example twice
    second_corpus = [i for i in first if i >= 4]
    assert len(second_corpus) == 5 and len(set(second_corpus)) == 5 and all(4 <= i < 14 for i in second_corpus)
    seen = set()
    for seed in range(20):  # a fraction drawn anew each epoch reaches every example over the epochs
        seen |= {i for i in weighted_epoch(sizes, weights, seed) if i >= 4}
    assert seen == set(range(4, 14))
    assert weighted_epoch(sizes, weights, 1) == first  # the same epoch is the same sample (resumable)
    with pytest.raises(ValueError, match="1 weights for 2 corpora"):
        weighted_epoch(sizes, [1.0], 0)
    with pytest.raises(ValueError, match="data_weights has 1 values for 2 corpora"):
        TrainConfig(data=["a.tsv", "b.tsv"], data_weights=[1.0])
    with pytest.raises(ValueError, match="finite and >= 0"):
        TrainConfig(data=["a.tsv"], data_weights=[-1.0])


def test_test_sentences_and_their_near_copies_are_held_out():
    held_out = held_out_filter(["Attention is all you need.", "I love you.", "The cat sat on the mat."])
    assert held_out("attention IS all you need")  # case and punctuation folded
    assert held_out("I think the cat sat on the mat, again.")  # a near-copy: it contains a held-out sentence
    assert held_out("I love you!") and not held_out("I love your dog.")  # short ones: exact matches only
    assert not held_out("The cat sat on the sofa.")


def write_tsv(path: Path, rows: list[tuple[str, str]]) -> str:
    path.write_text("".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8")
    return str(path)


def test_reading_several_corpora_keeps_them_apart_and_keeps_test_data_out(tmp_path):
    a = write_tsv(tmp_path / "a.tsv", [("One dog.", "Ein Hund."), ("Two dogs.", "Zwei Hunde."), ("Hi.", "Hallo.")])
    b = write_tsv(tmp_path / "b.tsv", [("One dog.", "Ein Hund."), ("The model predicts the next word!", "x")])
    b2 = write_tsv(tmp_path / "c.tsv", [("A cat.", "Eine Katze."), ("Hi.", "Hallo.")])
    valid = write_tsv(tmp_path / "valid.tsv", [("Hi.", "Hallo.")])
    test = write_tsv(tmp_path / "test.tsv", [("The model predicts the next word.", "Das Modell ...")])
    config = TrainConfig(data=[a, b, b2], data_weights=[1, 2, 0.5], valid=valid, exclude=[test])
    train, held, sizes = read_data(config, log=lambda *_: None)
    assert train == [("One dog.", "Ein Hund."), ("Two dogs.", "Zwei Hunde."), ("A cat.", "Eine Katze.")]
    assert sizes == [2, 0, 1]  # the duplicate, the test sentence and the validation source are gone
    assert held == [("Hi.", "Hallo.")]


def test_a_recipes_sources_set_its_corpora_and_the_card_lists_each_with_its_licence():
    recipe = Recipe(
        config=TrainConfig(),
        sources=(DataSource("a.tsv", 1.0, "corpus A", "CC-BY 4.0"), DataSource("b.tsv", 0.2, "terms", "GPL-2.0")),
    )
    assert recipe.config.data == ["a.tsv", "b.tsv"] and recipe.config.data_weights == [1.0, 0.2]
    shipped = load_recipe("lecture_en_de")
    facts = shipped.facts()
    assert [s["weight"] for s in facts["data_sources"]] == shipped.recipe.config.data_weights
    assert "bench/data/lecture_en_de.tsv" in shipped.recipe.config.exclude  # the lecture set is never trained on
    card = render_card({"data_sources": facts["data_sources"], "train_config": {"data": shipped.recipe.config.data}})
    for source in facts["data_sources"]:
        assert f"`{source['spec']}` | {source['weight']:g} | {source['name']} | {source['licence']} |" in card


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return build_tiny_checkpoint(tmp_path_factory.mktemp("timelapse") / "tiny")


@pytest.mark.slow
def test_the_time_lapse_reads_back_every_example_at_every_step(checkpoint):
    handle = load_handle(checkpoint)
    recorded = timelapse.read(checkpoint, handle)
    assert recorded["sentences"] == TIMELAPSE_SENTENCES and [p["step"] for p in recorded["points"]] == [10, 20, 21]
    final = recorded["points"][-1]["traces"][0]
    assert final["model"]["fingerprint"] == handle.fingerprint  # the last point is the model itself
    assert recorded["points"][0]["traces"][0]["model"]["fingerprint"] != handle.fingerprint
    for point in recorded["points"]:  # each point carries its own model's logit lens (the server's is the final's)
        for trace in point["traces"]:
            last = trace["lens"]["top_probs"][-1]  # the last layer's lens is that model's own distribution
            assert len(last) == len(trace["steps"])
            assert all(abs(row[0] - step["top"][0]["prob"]) <= 1e-4 for row, step in zip(last, trace["steps"]))
    first, final_lens = recorded["points"][0]["traces"][0]["lens"], final["lens"]
    assert first["top_probs"] != final_lens["top_probs"]
    lapse = timelapse.TimeLapse(recorded)
    assert lapse.settings() == {"sentences": TIMELAPSE_SENTENCES, "steps": [10, 20, 21]}
    assert json.loads(lapse.encoded[TIMELAPSE_SENTENCES[1]].bodies[b"identity"])["steps"] == [10, 20, 21]


def rewrite(checkpoint: Path, change) -> None:
    path = checkpoint / timelapse.FILE
    data = json.loads(gzip.decompress(path.read_bytes()))
    change(data)
    path.write_bytes(gzip.compress(json.dumps(data).encode()))


@pytest.mark.slow
@pytest.mark.parametrize(
    "craft, needle",
    [
        (lambda p: p.write_bytes(b"not gzip"), "not a gzip file"),
        (lambda p: p.write_bytes(gzip.compress(b"{")), "not JSON"),
        (lambda p: p.write_bytes(gzip.compress(b"[]")), "not a version-1 time-lapse"),
        (lambda p: rewrite(p.parent, lambda d: d.update(fingerprint="0" * 16)), "recorded for other weights"),
        (lambda p: rewrite(p.parent, lambda d: d["points"].reverse()), "larger than the one before"),
        (lambda p: rewrite(p.parent, lambda d: d["points"][0]["traces"].pop()), "one trace per sentence"),
        (lambda p: rewrite(p.parent, lambda d: d.update(sentences=["x"] * 99)), "sentences must be a list of 1 to"),
        (lambda p: rewrite(p.parent, lambda d: d["points"][1].update(traces=[1, 2])), "is not a trace"),
    ],
)
def test_a_crafted_time_lapse_is_refused_with_one_line(checkpoint, tmp_path, craft, needle):
    checkpoint = Path(shutil.copytree(checkpoint, tmp_path / "tiny"))
    craft(checkpoint / timelapse.FILE)
    with pytest.raises(CheckpointError, match=needle) as info:
        timelapse.read(checkpoint, load_handle(checkpoint))
    assert "\n" not in str(info.value)


@pytest.mark.slow
def test_an_oversized_time_lapse_is_refused_before_it_is_read(checkpoint, monkeypatch, capsys):
    monkeypatch.setattr(timelapse, "MAX_FILE_BYTES", 1000)
    with pytest.raises(CheckpointError, match="more than a time-lapse may have"):
        timelapse.read(checkpoint, load_handle(checkpoint))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import app  # the app refuses to start on it, with one line

    assert app.main(["--checkpoint", str(checkpoint)]) == 2
    assert "more than a time-lapse may have" in capsys.readouterr().err


def test_an_epoch_that_holds_no_example_is_refused_instead_of_looping(mini_pairs):
    from explorer.training.trainer import Trainer

    config = TrainConfig(data=["a", "b"], data_weights=[0.0, 0.0], max_steps=5)
    trainer = Trainer.from_pairs(config, mini_pairs[:20], mini_pairs[20:25], corpus_sizes=[10, 10])
    with pytest.raises(ValueError, match="holds no training example"):
        next(trainer.run())
