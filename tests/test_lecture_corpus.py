"""The lecture corpus written for this project: its form, its held-out dev set, and the recipes that keep it out."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from bench import lecture_dev
from explorer.training.data import LECTURE_CORPUS, fold, held_out_filter, read_corpus, read_rows
from explorer.training.recipe import load_recipe
from explorer.training.train import read_data
from explorer.training.trainer import TrainConfig

ROOT = Path(__file__).resolve().parent.parent
LECTURE_SET = "bench/data/lecture_en_de.tsv"
EVAL_SETS = ("flores200-devtest.tsv", "ntrex128.tsv", "ted-talks.tsv")
DEV_DRAWN = {  # each file's tenth, drawn by bench/lecture_dev.py before any training on it
    "01-08, together (9,170 distinct sentences)": 917,
    "09_objects.tsv (294 reviewed pairs)": 29,
    "10_people.tsv (167 reviewed pairs)": 17,
    "11_cases.tsv (220 pairs written)": 22,
    "12_agreement.tsv (220 pairs written)": 22,
}


def test_every_file_holds_pairs_of_whole_sentences_of_3_to_35_words():
    files = sorted(LECTURE_CORPUS.glob("*.tsv"))
    assert len(files) == 12
    total = 0
    for file in files:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{file.name}:{n}"
            cols = line.split("\t")
            assert len(cols) == 2 and all(c.strip() == c and c for c in cols), where
            assert unicodedata.normalize("NFC", line) == line, where
            assert 3 <= len(cols[0].split()) <= 35, where
            assert cols[0][-1] in ".?!:\"'" and cols[1][-1] in ".?!:“\"'", where  # whole sentences on both sides
            total += 1
    assert total >= 8000


def held_out_sentences(*paths) -> list[str]:
    return [row[0] for path in paths for row in read_rows(path)]


def test_the_corpus_holds_no_dev_lecture_set_or_evaluation_sentence():
    """The corpus folder is training data only: no pair's English is, or contains, a held-out sentence."""
    pairs = read_corpus(str(LECTURE_CORPUS))
    held = held_out_filter(held_out_sentences(lecture_dev.DEV, ROOT / LECTURE_SET))
    assert [en for en, _ in pairs if held(en)] == []
    distinct = {fold(en) for en, _ in pairs} | {fold(en) for en in held_out_sentences(lecture_dev.DEV)}
    assert len(read_rows(lecture_dev.DEV)) == sum(DEV_DRAWN.values())
    assert len(distinct) >= 9000
    extra = ROOT.parent / "shared" / "data" / "en-de-extra" / "eval"
    if not extra.is_dir():
        pytest.skip(f"{extra} is not here")
    evaluation = held_out_filter(held_out_sentences(*(extra / f for f in EVAL_SETS)))
    assert [en for en, _ in pairs if evaluation(en)] == []


def test_a_new_file_gives_a_tenth_to_the_dev_set_and_keeps_no_held_out_pair(tmp_path, monkeypatch):
    dev, lecture_set = tmp_path / "dev.tsv", tmp_path / "lecture.tsv"
    dev.write_text("The mask hides the future words.\tDie Maske verdeckt die zukünftigen Wörter.\n", encoding="utf-8")
    lecture_set.write_text("Do you have any questions?\tHabt ihr Fragen?\n", encoding="utf-8")
    monkeypatch.setattr(lecture_dev, "DEV", dev)
    monkeypatch.setattr(lecture_dev, "LECTURE_SET", lecture_set)
    new = tmp_path / "09_new.tsv"
    pairs = [(f"Layer {n} has four heads.", f"Schicht {n} hat vier Köpfe.") for n in range(30)]
    pairs += [("Do you have any questions about the loss?", "Habt ihr Fragen zum Verlust?")]
    new.write_text("".join(f"{en}\t{de}\n" for en, de in pairs), encoding="utf-8")
    assert lecture_dev.split(new) == (3, 4)  # a tenth of 31 moved; those and the near-copy of the lecture set gone
    drawn = read_rows(dev)[1:]
    assert len(drawn) == 3 and all(tuple(row) in pairs for row in drawn)
    left = read_rows(new)
    assert len(left) == 27 and not {tuple(r) for r in left} & {tuple(r) for r in drawn}
    assert all("questions" not in row[0] for row in left)


@pytest.mark.parametrize("name", ["lecture_en_de", "lecture_scratch_en_de"])
def test_the_lecture_recipes_train_on_the_corpus_and_keep_the_lecture_sets_out(name):
    config = load_recipe(name).recipe.config
    assert str(LECTURE_CORPUS.relative_to(ROOT)) in config.data
    assert {LECTURE_SET, "bench/data/lecture_dev_en_de.tsv"} <= set(config.exclude)
    assert not any("/eval/" in spec for spec in config.data + config.exclude)  # evaluation sets: never named


def test_no_dev_or_lecture_set_sentence_reaches_training():
    config = TrainConfig(
        data=[str(LECTURE_CORPUS)], valid_fraction=0.0, exclude=[str(lecture_dev.DEV), str(ROOT / LECTURE_SET)]
    )
    train, _, _ = read_data(config, log=lambda *_: None)
    trained = {fold(en) for en, _ in train}
    assert not trained & {fold(s) for s in held_out_sentences(lecture_dev.DEV, ROOT / LECTURE_SET)}
    assert len(train) > 8000
