"""Evaluation: multi-reference grouping, sacreBLEU scores and signatures, and the command line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import tiny_config

from explorer.model.checkpoint import save_checkpoint
from explorer.model.transformer import Transformer
from explorer.training.evaluate import (
    evaluate,
    group_references,
    main,
    read_references,
    score_translations,
    scores_by_length,
)

pytestmark = pytest.mark.slow  # a second or more each: CI runs them, `tests/run.py --fast` leaves them out

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "explorer.training.evaluate", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def checkpoint(tmp_path, mini_tokenizer):
    """A tiny checkpoint with random weights: its translations are nonsense, but they are scored."""
    torch.manual_seed(0)
    model = Transformer(tiny_config(vocab_size=mini_tokenizer.vocab_size, max_len=32)).eval()
    return save_checkpoint(tmp_path / "ckpt", model, mini_tokenizer)


@pytest.fixture
def test_set(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(
        "I am tired.\tIch bin müde.\n"
        "The dog is big.\tDer Hund ist groß.\tDer Hund ist riesig.\n"
        "I am tired.\tIch bin erschöpft.\n"
        "no reference here\n",
        encoding="utf-8",
    )
    return path


def test_group_references_merges_sources_and_keeps_reference_columns():
    rows = [
        ("a", "A1"),
        ("b", "B1", "B2"),  # two reference columns
        (" a ", "A2"),  # same source once normalized
        ("a", "A1"),  # a repeated reference is kept once
        ("", "orphan"),  # no source
        ("c", "", " "),  # no reference
        ("Mu\u0308ller", "Mu\u0308ller"),
    ]
    assert group_references(rows) == [("a", ["A1", "A2"]), ("b", ["B1", "B2"]), ("Müller", ["Müller"])]


def test_read_references(test_set):
    assert read_references(test_set) == [
        ("I am tired.", ["Ich bin müde.", "Ich bin erschöpft."]),
        ("The dog is big.", ["Der Hund ist groß.", "Der Hund ist riesig."]),
    ]


def test_hypotheses_equal_to_any_reference_score_100():
    references = [
        ["Ich bin müde.", "Ich bin erschöpft."],
        ["Der Hund ist groß."],
        ["Wo ist der Bahnhof?", "Wo ist der Zug?"],
    ]
    perfect = score_translations(["Ich bin erschöpft.", "Der Hund ist groß.", "Wo ist der Bahnhof?"], references)
    assert perfect["bleu"] == 100.0 and perfect["chrf"] == 100.0
    worse = score_translations(["Ich bin krank.", "Der Hund ist klein.", "Wo ist die Katze?"], references)
    assert 0 <= worse["bleu"] < 100.0 and 0 < worse["chrf"] < 100.0
    assert score_translations(["Katze Katze.", "Haus.", "Brot?"], references)["bleu"] < worse["bleu"]


def test_signatures_name_the_number_of_references():
    varying = score_translations(["a b c d"], [["a b c d", "a b c e"]])
    assert "nrefs:2" in varying["bleu_signature"] and "nrefs:2" in varying["chrf_signature"]
    mixed = score_translations(["a b c d", "e f g h"], [["a b c d", "a b c e"], ["e f g h"]])
    assert "nrefs:var" in mixed["bleu_signature"] and "nrefs:var" in mixed["chrf_signature"]
    single = score_translations(["a b c d"], [["a b c d"]])
    assert single["bleu_signature"].startswith("nrefs:1|") and "tok:13a" in single["bleu_signature"]


def test_scores_by_length_buckets_source_words():
    sources = ["Go.", "I am very tired today.", "The dog that lives next door is big.", " ".join(["word"] * 20)]
    references = [["Geh."], ["Ich bin heute sehr müde."], ["Der Hund von nebenan ist groß."], ["Wort " * 20]]
    hypotheses = ["Geh.", "Ich bin heute sehr müde.", "Der Hund ist klein.", "Katze"]
    rows = scores_by_length(sources, hypotheses, references)
    assert [(r["words"], r["segments"]) for r in rows] == [("1-5", 2), ("6-10", 1), ("16+", 1)]  # no empty 11-15 row
    assert rows[0]["bleu"] == 100.0 and rows[0]["chrf"] == 100.0
    assert rows[1]["bleu"] < 100.0 and rows[2]["bleu"] < rows[1]["bleu"]


def test_evaluate_in_process(checkpoint, test_set):
    result = evaluate(checkpoint, test_set, limit=1)
    assert result["sentences"] == 1 and result["references"] == 2 and result["beam"] == 1
    assert result["examples"][0]["source"] == "I am tired."
    assert result["by_length"] == [{"words": "1-5", "segments": 1, "bleu": result["bleu"], "chrf": result["chrf"]}]
    beam = evaluate(checkpoint, test_set, beam=2)
    assert beam["sentences"] == 2 and beam["beam"] == 2 and 0 <= beam["bleu"] <= 100


def test_cli_prints_one_json_object(checkpoint, test_set):
    proc = run_cli("--checkpoint", str(checkpoint), "--data", str(test_set), "--json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert {"bleu", "chrf", "bleu_signature", "chrf_signature", "sentences", "tokens_per_s"} <= set(result)
    assert result["sentences"] == 2 and result["tokens_per_s"] > 0
    assert 0 <= result["bleu"] <= 100 and "nrefs:2" in result["bleu_signature"]


def test_cli_missing_checkpoint_is_a_one_line_error(tmp_path, test_set):
    proc = run_cli("--checkpoint", str(tmp_path / "absent"), "--data", str(test_set), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"error: checkpoint {tmp_path / 'absent'} is not a directory"]


def test_main_reports_unusable_data_without_a_traceback(checkpoint, tmp_path, capsys):
    empty = tmp_path / "empty.tsv"
    empty.write_text("no tabs at all\n", encoding="utf-8")
    assert main(["--checkpoint", str(checkpoint), "--data", str(empty)]) == 2
    assert capsys.readouterr().err.strip() == f"error: {empty} has no `source TAB reference` lines"
    assert main(["--checkpoint", str(checkpoint), "--data", str(tmp_path / "absent.tsv")]) == 2
    assert "absent.tsv" in capsys.readouterr().err


def test_main_prints_a_human_summary(checkpoint, test_set, capsys):
    assert main(["--checkpoint", str(checkpoint), "--data", str(test_set)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("BLEU ") and "nrefs:2" in out[0]
    assert out[1].startswith("chrF ")
    assert out[2].startswith("2 segments (4 references), beam 1")
