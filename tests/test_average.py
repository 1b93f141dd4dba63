"""Checkpoint averaging (explorer/training/average.py): the averaged checkpoint holds the float32 mean of the final
weights and the named snapshots, in the run's float16, loads and translates like any checkpoint, says what it
averaged and drops what was measured on the final weights; a snapshot that is missing, late, unreadable, not finite
or not the model's is refused with its name, and the run's own folder is never overwritten."""

from pathlib import Path

import pytest
import torch
from conftest import tiny_config
from safetensors.torch import save_file

from explorer.model.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from explorer.model.transformer import Transformer
from explorer.training.average import average, main

MEASURED = {"lecture": {"bleu": 1.0}, "last_validation": {"step": 300, "bleu": 1.0}}


def random_weights(config, seed: int) -> dict[str, torch.Tensor]:
    """Random weights as the trainer keeps them: float16."""
    torch.manual_seed(seed)
    return {k: v.detach().to(torch.float16) for k, v in Transformer(config).state_dict().items()}


@pytest.fixture
def run(tmp_path: Path, mini_tokenizer):
    """A final float16 checkpoint (step 300, with a measurement and a loss curve) and float16 snapshots at steps 100
    and 200, each of different weights."""
    config = tiny_config(vocab_size=mini_tokenizer.vocab_size)
    model = Transformer(config).eval()
    model.load_state_dict({k: v.float() for k, v in random_weights(config, 3).items()})
    meta = {"steps": 300, "name": "A tiny run"} | MEASURED
    curve = {"loss_curve.png": b"\x89PNG a curve"}
    final = save_checkpoint(tmp_path / "final", model, mini_tokenizer, meta, "# card\n", torch.float16, curve)
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
        mean = (sum(w[name].float() for w in weights) / 3).to(torch.float16).float()  # the mean, kept as float16
        torch.testing.assert_close(value, mean, atol=0, rtol=0)
    with torch.no_grad():  # it translates: finite scores on a sentence
        src = torch.tensor([got.tokenizer.encode("the cat")])
        assert torch.isfinite(got.model(src, torch.tensor([[1]]))).all()
    assert got.metadata["averaged_steps"] == [100, 200] and got.metadata["steps"] == 300
    assert got.metadata["name"] == "A tiny run (averaged)"
    assert not MEASURED.keys() & got.metadata.keys()  # measured on the final weights, not on these
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "- weights: the mean of the final weights and the snapshots of steps 100, 200" in card
    assert "![loss curve](loss_curve.png)" in card and (out / "loss_curve.png").read_bytes() == b"\x89PNG a curve"
    assert load_checkpoint(final).metadata["lecture"]  # the run itself is untouched


def test_one_snapshot_averaged_with_itself_changes_nothing(run, tmp_path):
    final, snapshots, config = run
    model = load_checkpoint(final).model
    save_file({k: v.half() for k, v in model.state_dict().items()}, str(snapshots / "step_000250.safetensors"))
    out = average(final, snapshots, [250], tmp_path / "same")
    for name, value in load_checkpoint(out).model.state_dict().items():
        torch.testing.assert_close(value, model.state_dict()[name], atol=0, rtol=0)


def test_a_snapshot_that_cannot_be_averaged_is_refused_with_its_name(run, tmp_path, capsys):
    final, snapshots, config = run
    with pytest.raises(CheckpointError, match="step_000150.safetensors"):
        average(final, snapshots, [100, 150], tmp_path / "out")
    save_file(random_weights(config, 4), str(snapshots / "step_000300.safetensors"))
    with pytest.raises(CheckpointError, match="snapshot step 300 is not before the final weights' step 300"):
        average(final, snapshots, [100, 300], tmp_path / "out")
    wider = random_weights(tiny_config(vocab_size=config.vocab_size, d_model=32, d_ff=64), 4)
    save_file(wider, str(snapshots / "step_000040.safetensors"))
    with pytest.raises(CheckpointError, match=r"step_000040.safetensors: .* has shape"):
        average(final, snapshots, [40], tmp_path / "out")
    deeper = random_weights(tiny_config(vocab_size=config.vocab_size, n_encoder_layers=3), 5)
    save_file(deeper, str(snapshots / "step_000050.safetensors"))
    with pytest.raises(CheckpointError, match=r"step_000050.safetensors: not the final model's weights \(extra \["):
        average(final, snapshots, [50], tmp_path / "out")
    diverged = random_weights(config, 6)
    next(iter(diverged.values()))[0] = float("inf")
    save_file(diverged, str(snapshots / "step_000060.safetensors"))
    with pytest.raises(CheckpointError, match=r"step_000060.safetensors: .* not finite"):
        average(final, snapshots, [60], tmp_path / "out")
    (snapshots / "step_000070.safetensors").write_bytes(b"cut short")
    with pytest.raises(CheckpointError, match=r"step_000070.safetensors: not a readable safetensors file"):
        average(final, snapshots, [70], tmp_path / "out")
    with pytest.raises(CheckpointError, match="names a snapshot twice"):
        average(final, snapshots, [100, 100], tmp_path / "out")
    with pytest.raises(CheckpointError, match="is the checkpoint itself"):
        average(final, snapshots, [100], final / ".." / "final")
    assert not (tmp_path / "out").exists() and load_checkpoint(final).metadata["steps"] == 300
    assert main(["--checkpoint", str(final), "--snapshots", str(snapshots), "--steps", "150", "--out", "x"]) == 2
    assert "error: no snapshot" in capsys.readouterr().err
