"""The lecture corpus written for this project: its form, its held-out dev set, and the recipes that keep it out."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from bench import lecture_dev
from explorer.training.data import LECTURE_CORPUS, fold, read_corpus, read_rows
from explorer.training.recipe import load_recipe
from explorer.training.train import read_data
from explorer.training.trainer import TrainConfig

ROOT = Path(__file__).resolve().parent.parent
LECTURE_SET = "bench/data/lecture_en_de.tsv"
EVAL_SETS = ("flores200-devtest.tsv", "ntrex128.tsv", "ted-talks.tsv")


def test_every_file_holds_pairs_of_whole_sentences_of_3_to_35_words():
    files = sorted(LECTURE_CORPUS.glob("*.tsv"))
    assert len(files) == 8
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


def test_the_dev_set_is_the_recorded_random_tenth():
    pairs = read_corpus(str(LECTURE_CORPUS))
    committed = [tuple(row[:2]) for row in read_rows(lecture_dev.DEV)]
    assert committed == lecture_dev.draw(pairs)  # `python -m bench.lecture_dev` wrote it; nobody picked them
    distinct = {fold(en) for en, _ in pairs}
    assert len(committed) == round(0.1 * len(distinct))


@pytest.mark.parametrize("name", ["lecture_en_de", "lecture_scratch_en_de"])
def test_the_lecture_recipes_train_on_the_corpus_and_keep_every_test_set_out(name):
    config = load_recipe(name).recipe.config
    assert str(LECTURE_CORPUS.relative_to(ROOT)) in config.data
    held_out = set(config.exclude)
    assert {LECTURE_SET, "bench/data/lecture_dev_en_de.tsv"} <= held_out
    assert {f"../shared/data/en-de-extra/eval/{f}" for f in EVAL_SETS} <= held_out


def test_no_dev_or_lecture_set_sentence_reaches_training():
    config = TrainConfig(
        data=[str(LECTURE_CORPUS)], valid_fraction=0.0, exclude=[str(lecture_dev.DEV), str(ROOT / LECTURE_SET)]
    )
    train, _, _ = read_data(config, log=lambda *_: None)
    trained = {fold(en) for en, _ in train}
    dev = {fold(row[0]) for row in read_rows(lecture_dev.DEV)}
    assert not trained & dev
    assert not trained & {fold(row[0]) for row in read_rows(ROOT / LECTURE_SET)}
    assert "do you have any questions about the decoder" not in trained  # contains "Do you have any questions?"
    assert len(train) > 8000
