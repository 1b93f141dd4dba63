"""Checkpoint averaging (explorer/training/average.py): the averaged checkpoint holds the float32 mean of the final
weights and the named snapshots, loads and translates like any checkpoint, says what it averaged, and a snapshot
that is missing or not the model's is refused with its name."""

from pathlib import Path

import pytest
import torch
from conftest import tiny_config
from safetensors.torch import save_file

from explorer.model.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from explorer.model.transformer import Transformer
from explorer.training.average import average, main


def random_weights(config, seed: int) -> dict[str, torch.Tensor]:
    torch.manual_seed(seed)
    return {k: v.detach().clone() for k, v in Transformer(config).state_dict().items()}


@pytest.fixture
def run(tmp_path: Path, mini_tokenizer):
    """A final checkpoint (metadata `steps` 300) and snapshots at steps 100 and 200, each of different weights."""
    config = tiny_config(vocab_size=mini_tokenizer.vocab_size)
    model = Transformer(config).eval()
    model.load_state_dict(random_weights(config, 3))
    final = save_checkpoint(tmp_path / "final", model, mini_tokenizer, {"steps": 300}, "# a tiny model\n")
    snapshots = tmp_path / "final.work" / "snapshots"
    snapshots.mkdir(parents=True)
    for step, seed in ((100, 1), (200, 2)):
        save_file(random_weights(config, seed), str(snapshots / f"step_{step:06d}.safetensors"))
    return final, snapshots, config


def test_the_averaged_checkpoint_holds_the_mean_of_the_final_weights_and_the_snapshots(run, tmp_path):
    final, snapshots, config = run
    out = average(final, snapshots, [200, 100], tmp_path / "averaged")
    got = load_checkpoint(out)
    weights = [random_weights(config, seed) for seed in (1, 2, 3)]
    for name, value in got.model.state_dict().items():
        torch.testing.assert_close(value, sum(w[name] for w in weights) / 3, atol=1e-6, rtol=0)
    assert got.metadata["averaged_steps"] == [100, 200] and got.metadata["steps"] == 300
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("# a tiny model")
    assert "mean of the final weights (step 300) and the snapshots of steps 100, 200" in card
    assert got.tokenizer.encode("the cat") == load_checkpoint(final).tokenizer.encode("the cat")


def test_one_snapshot_averaged_with_itself_changes_nothing(run, tmp_path):
    final, snapshots, config = run
    model = load_checkpoint(final).model
    save_file(model.state_dict(), str(snapshots / "step_000250.safetensors"))
    out = average(final, snapshots, [250], tmp_path / "same")
    for name, value in load_checkpoint(out).model.state_dict().items():
        torch.testing.assert_close(value, model.state_dict()[name], atol=0, rtol=0)


def test_a_missing_or_foreign_snapshot_is_refused_with_its_name(run, tmp_path, capsys):
    final, snapshots, config = run
    with pytest.raises(CheckpointError, match="step_000150.safetensors"):
        average(final, snapshots, [100, 150], tmp_path / "out")
    wider = random_weights(tiny_config(vocab_size=config.vocab_size, d_model=32, d_ff=64), 4)
    save_file(wider, str(snapshots / "step_000400.safetensors"))
    with pytest.raises(CheckpointError, match=r"step_000400.safetensors: .* has shape"):
        average(final, snapshots, [400], tmp_path / "out")
    deeper = random_weights(tiny_config(vocab_size=config.vocab_size, n_encoder_layers=3), 5)
    save_file(deeper, str(snapshots / "step_000500.safetensors"))
    with pytest.raises(CheckpointError, match=r"step_000500.safetensors: not the final model's weights \(extra \["):
        average(final, snapshots, [500], tmp_path / "out")
    with pytest.raises(CheckpointError, match="names a snapshot twice"):
        average(final, snapshots, [100, 100], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert main(["--checkpoint", str(final), "--snapshots", str(snapshots), "--steps", "150", "--out", "x"]) == 2
    assert "error: no snapshot" in capsys.readouterr().err
