"""Checkpoint averaging: one model whose weights are the mean of a run's final weights and some of its snapshots
(Vaswani et al. 2017, section 6.1: "a single model obtained by averaging the last 5 checkpoints").

    python -m explorer.training.average --checkpoint DIR --snapshots WORK_DIR/snapshots --steps 4500 5000 --out OUT

The snapshots are the ones the training CLI kept at `snapshot_steps` (`step_NNNNNN.safetensors`). Every named step
must be there and come before the final weights' step, and every snapshot must hold exactly the final model's
weights, name by name and shape by shape, all finite. The mean is taken in float32. OUT is a new checkpoint (never
DIR itself): DIR's tokenizer, loss curve and training metadata with `averaged_steps` added, which its model card
states, saved in DIR's weight dtype. What was measured on DIR's weights (evaluation, alignment, head roles, the last
validation) is left out, and the name says "averaged": `model_report --checkpoint OUT` measures it again. A time-lapse
needs no averaged model: built from DIR and its snapshots, its last point is DIR's final weights.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file

from ..model.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from ..model.metadata import MAX_NAME_CHARS
from .card import render_card

MEASURED = ("evaluation", "alignment", "head_roles", "lecture", "last_validation", "report_command")  # of DIR's weights
EXTRA_FILES = ("loss_curve.png",)  # the run's, so the averaged model's card shows it too


def snapshot_path(snapshots: Path, step: int) -> Path:
    return snapshots / f"step_{step:06d}.safetensors"


def mean_weights(final: dict[str, torch.Tensor], others: dict[str, dict[str, torch.Tensor]]) -> dict:
    """The float32 mean of `final` and each of `others` (name -> weights), refused with the name of the first
    snapshot whose weights are not the final model's (name by name, shape by shape) or not finite."""
    total = {k: v.detach().float().clone() for k, v in final.items()}
    for name, weights in others.items():
        if weights.keys() != total.keys():
            missing, extra = sorted(total.keys() - weights.keys()), sorted(weights.keys() - total.keys())
            said = [f"{what} {names[:3]}" for what, names in (("missing", missing), ("extra", extra)) if names]
            raise CheckpointError(f"{name}: not the final model's weights ({', '.join(said)})")
        for k, v in weights.items():
            if v.shape != total[k].shape:
                shapes = f"{tuple(v.shape)}, the final model {tuple(total[k].shape)}"
                raise CheckpointError(f"{name}: {k} has shape {shapes}")
            if not torch.isfinite(v).all():
                raise CheckpointError(f"{name}: {k} holds values that are not finite (a run that diverged?)")
            total[k] += v.float()
    return {k: v / (1 + len(others)) for k, v in total.items()}


def read_snapshot(path: Path) -> dict[str, torch.Tensor]:
    try:
        return load_file(str(path))
    except Exception as exc:  # safetensors raises its own error for a cut or foreign file
        raise CheckpointError(f"{path}: not a readable safetensors file ({exc})") from None


def average(checkpoint: str | Path, snapshots: str | Path, steps: list[int], out: str | Path) -> Path:
    """Write OUT: DIR's model with the mean of its final weights and the snapshots at `steps`."""
    checkpoint, snapshots, out = Path(checkpoint), Path(snapshots), Path(out)
    if not steps:
        raise CheckpointError("name at least one snapshot step to average with the final weights")
    if len(set(steps)) != len(steps):
        raise CheckpointError(f"steps={steps} names a snapshot twice")
    if out.resolve() == checkpoint.resolve():
        raise CheckpointError(f"--out {out} is the checkpoint itself: write the average to a new folder")
    paths = {step: snapshot_path(snapshots, step) for step in steps}
    absent = [str(p) for p in paths.values() if not p.is_file()]
    if absent:
        raise CheckpointError(f"no snapshot {absent[0]}")
    loaded = load_checkpoint(checkpoint)
    final_step = loaded.metadata.get("steps")
    late = [step for step in steps if isinstance(final_step, int) and step >= final_step]
    if late:
        raise CheckpointError(f"snapshot step {late[0]} is not before the final weights' step {final_step}")
    model = loaded.model
    with safe_open(str(checkpoint / "model.safetensors"), "pt") as f:
        dtype = f.get_tensor(next(iter(f.keys()))).dtype
    others = {str(p): read_snapshot(p) for p in paths.values()}
    model.load_state_dict(mean_weights(model.state_dict(), others))
    metadata = {k: v for k, v in loaded.metadata.items() if k not in MEASURED} | {"averaged_steps": sorted(steps)}
    metadata["name"] = f"{loaded.metadata.get('name') or checkpoint.name}"[: MAX_NAME_CHARS - 11] + " (averaged)"
    extra = {name: (checkpoint / name).read_bytes() for name in EXTRA_FILES if (checkpoint / name).is_file()}
    card = render_card(metadata)
    return save_checkpoint(out, model, loaded.tokenizer, metadata, card, dtype, extra, loaded.languages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True, help="the run's final checkpoint directory")
    parser.add_argument("--snapshots", required=True, help="its work folder's snapshots/ directory")
    parser.add_argument("--steps", type=int, nargs="+", required=True, help="the snapshot steps to average with it")
    parser.add_argument("--out", required=True, help="a new folder for the averaged checkpoint")
    args = parser.parse_args(argv)
    try:
        path = average(args.checkpoint, args.snapshots, args.steps, args.out)
    except (CheckpointError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
