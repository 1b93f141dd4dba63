"""`python -m explorer.training.model_report`: measurements stored in config.json, the card rendered from them,
and --card-only."""

import json
from pathlib import Path

import pytest
import torch
from conftest import tiny_config

from explorer.model.checkpoint import load_checkpoint, save_checkpoint
from explorer.model.transformer import Transformer
from explorer.training.model_report import main

pytestmark = pytest.mark.slow  # a second or more each: CI runs them, `tests/run.py --fast` leaves them out

GOLD = Path(__file__).parents[1] / "explorer" / "app" / "alignments" / "everyday.tsv"


@pytest.fixture
def checkpoint(tmp_path, mini_tokenizer):
    torch.manual_seed(0)
    model = Transformer(tiny_config(vocab_size=mini_tokenizer.vocab_size, max_len=48)).eval()
    return save_checkpoint(tmp_path / "ckpt", model, mini_tokenizer, metadata={"parameters": model.num_parameters()})


@pytest.fixture
def test_set(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(
        "I am tired.\tIch bin müde.\nThe dog is big.\tDer Hund ist groß.\nI am tired.\tIch bin erschöpft.\n",
        encoding="utf-8",
    )
    return path


def stored(checkpoint) -> tuple[dict, str]:
    config = json.loads((Path(checkpoint) / "config.json").read_text(encoding="utf-8"))
    return config["training"], (Path(checkpoint) / "README.md").read_text(encoding="utf-8")


def test_report_stores_measurements_and_renders_them_into_the_card(checkpoint, test_set, capsys):
    args = ["--checkpoint", str(checkpoint), "--data", str(test_set), "--gold", str(GOLD), "--beam", "2"]
    assert main(args + ["--note", "First note."]) == 0
    meta, card = stored(checkpoint)
    assert set(meta["evaluation"]) == {"test.tsv, greedy", "test.tsv, beam 2"}
    greedy = meta["evaluation"]["test.tsv, greedy"]
    assert greedy["sentences"] == 2 and greedy["references"] == 3 and greedy["by_length"][0]["words"] == "1-5"
    assert meta["alignment"]["pairs"] == 31 and isinstance(meta["alignment"]["best"]["head"], int)
    assert meta["report_command"] == "python -m explorer.training.model_report " + " ".join(
        args
    )  # the note is not an option
    assert meta["card_note"] == "First note."
    assert f"BLEU **{greedy['bleu']}**" in card and "First note." in card and "| source words |" in card
    best = meta["alignment"]["best"]
    assert f"Best single head: **layer {best['layer']}, head {best['head']}**" in card
    assert "## Known limits" not in card  # a recipe names a model's limits; this one was trained without one
    assert load_checkpoint(checkpoint).metadata["alignment"] == meta["alignment"]  # what the app reads


def test_card_only_rewrites_the_note_without_measuring_again(checkpoint, test_set, capsys):
    main(
        ["--checkpoint", str(checkpoint), "--data", str(test_set), "--gold", str(GOLD), "--beam", "1", "--note", "Old."]
    )
    before, _ = stored(checkpoint)
    assert main(["--checkpoint", str(checkpoint), "--card-only", "--note", "New note."]) == 0
    after, card = stored(checkpoint)
    assert after["evaluation"] == before["evaluation"] and after["report_command"] == before["report_command"]
    assert "New note." in card and "Old." not in card
    assert main(["--checkpoint", str(checkpoint), "--card-only"]) == 0  # no --note: the stored one stays
    assert "New note." in stored(checkpoint)[1]


def test_card_only_needs_stored_measurements_and_a_report_needs_data(checkpoint, capsys):
    assert main(["--checkpoint", str(checkpoint), "--card-only"]) == 2
    assert "no stored evaluation" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["--checkpoint", str(checkpoint), "--gold", str(GOLD)])
    assert exit_info.value.code == 2 and "--data and --gold are required" in capsys.readouterr().err


def test_a_malformed_checkpoint_ends_in_one_error_line(checkpoint, test_set, capsys):
    config = json.loads((checkpoint / "config.json").read_text(encoding="utf-8"))
    config["training"]["alignment"] = {"pairs": 3, "best": {"layer": 0, "head": "x", "aer": 0.1}}
    (checkpoint / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert main(["--checkpoint", str(checkpoint), "--card-only"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "alignment.best.head='x'" in err
    assert main(["--checkpoint", str(checkpoint), "--data", str(test_set), "--gold", str(GOLD)]) == 2
    assert "alignment.best.head='x'" in capsys.readouterr().err


def test_alignment_only_scores_the_viewers_explanations_without_decoding_the_test_set(checkpoint, test_set):
    main(["--checkpoint", str(checkpoint), "--data", str(test_set), "--gold", str(GOLD), "--beam", "1"])
    before, _ = stored(checkpoint)
    assert main(["--checkpoint", str(checkpoint), "--gold", str(GOLD), "--alignment-only"]) == 0
    meta, card = stored(checkpoint)
    methods = {r["method"].split(" (")[0]: r for r in meta["alignment"]["methods"]}
    assert set(methods) == {
        "attention, best head", "attention, mean of all heads", "attention rollout", "gradient × input",
        "integrated gradients",
    }  # fmt: skip
    assert all(0 <= r["aer"] <= 1 and 0 <= r["accuracy"] <= 1 for r in methods.values())
    assert meta["evaluation"] == before["evaluation"]  # nothing decoded again
    assert "## Attention, rollout and gradients against the gold alignments" in card
    assert "| integrated gradients |" in card


def test_compare_keeps_two_checkpoints_of_the_same_folder_name_apart(checkpoint, test_set, tmp_path, capsys):
    """Two runs are often both called `lecture-en-de`: each keeps its own column and its own alignment entry."""
    twin = tmp_path / "other" / "ckpt"
    twin.parent.mkdir()
    torch.manual_seed(1)
    model = Transformer(load_checkpoint(checkpoint).model.config).eval()
    save_checkpoint(twin, model, load_checkpoint(checkpoint).tokenizer, metadata={})
    out = tmp_path / "compare.json"
    argv = ["--compare", str(checkpoint), str(twin), "--data", str(test_set), "--gold", str(GOLD), "--json", str(out)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"| {checkpoint} BLEU |" in lines[0] and f"| {twin} BLEU |" in lines[0]
    aligned = next(line for line in lines if line.startswith("| best alignment head"))
    assert aligned.count("|") == lines[0].count("|")  # each checkpoint's head and AER under its own columns
    assert sorted(json.loads(out.read_text())["alignment"]) == sorted([str(checkpoint), str(twin)])
    assert main(["--compare", str(checkpoint), str(checkpoint), "--data", str(test_set)]) == 2
    assert "names one checkpoint twice" in capsys.readouterr().err
