"""The training loss: `F.cross_entropy` on a float copy of the logits against the chunked version
(`explorer.training.loss`).

Until session 5 `explorer.training.trainer.sequence_loss` was `F.cross_entropy(logits.float(), target,
ignore_index=PAD, label_smoothing=0.1)`; it now calls `explorer.training.loss.label_smoothed_cross_entropy`,
which computes the same loss and gradient in row chunks without float copies of the logits. Measured:

1. the loss alone, forward + backward, on bf16 logits of a 4,096-token batch (3,600 target tokens x
   8,000 pieces, 10% padding rows), after checking that both give the same loss and gradient;
2. whole bf16 training steps (`train_throughput.Run`: forward, loss, backward, clipping, fused AdamW)
   of the shipped-size model on the same synthetic 4,096-token batches, one model copy per loss.

Variants are interleaved in one process (common.interleaved); ratios are old time / new time.

    python -m bench.loss_step [--threads N] [--repeat R] [--json OUT]
    python -m bench.loss_step --quick   # smoke test
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

from bench import common
from bench.train_throughput import Run, interleaved_steps
from explorer.model.config import PAD_ID
from explorer.model.transformer import Transformer
from explorer.training.trainer import TrainConfig, sequence_loss


def float_copy_loss(logits: torch.Tensor, target: torch.Tensor, label_smoothing: float) -> torch.Tensor:
    """The previous sequence_loss."""
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)).float(),
        target.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=label_smoothing,
    )


LOSSES = {"F.cross_entropy(logits.float())": float_copy_loss, "explorer.training.loss (chunked)": sequence_loss}


def loss_only(args) -> tuple[dict, float, float]:
    g = torch.Generator().manual_seed(args.seed)
    logits = (torch.randn(1, 3600, 8000, generator=g) * 3).bfloat16()
    target = torch.randint(4, 8000, (1, 3600), generator=g)
    target[:, ::10] = PAD_ID
    inputs = {name: logits.clone().requires_grad_() for name in LOSSES}

    def run(name):
        inputs[name].grad = None
        LOSSES[name](inputs[name], target, 0.1).backward()

    values = {name: LOSSES[name](inputs[name], target, 0.1) for name in LOSSES}
    for name in LOSSES:
        run(name)
    old, new = (inputs[name].grad.float() for name in LOSSES)
    loss_diff = abs(values[list(LOSSES)[0]].item() - values[list(LOSSES)[1]].item())
    grad_diff = (old - new).abs().max().item() / old.abs().max().item()
    times = common.interleaved({name: (lambda n=name: run(n)) for name in LOSSES}, args.warmup, args.repeat * 3)
    return times, loss_diff, grad_diff


def training_steps(args) -> dict:
    model = Transformer(common.shipped_config())
    runs = {name: Run(copy.deepcopy(model), TrainConfig(), bf16=True, loss=fn) for name, fn in LOSSES.items()}
    return interleaved_steps(runs, args)


def table(times: dict) -> str:
    first = common.median(next(iter(times.values())))
    rows = [[name, common.median(t) * 1e3, common.p90(t) * 1e3, first / common.median(t)] for name, t in times.items()]
    return common.table(["loss", "median ms", "p90 ms", "old / this"], rows)


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    args = p.parse_args()
    common.setup(args, warmup=3, repeat=12, quick_warmup=1, quick_repeat=2)
    print(common.header("Training loss: float copy + F.cross_entropy vs chunked", args, "shipped-size model, bf16"))
    loss_times, loss_diff, grad_diff = loss_only(args)
    print(f"### Loss forward + backward, (3,600 x 8,000) bf16 logits ({args.repeat * 3} rounds)\n")
    print(f"|loss difference| {loss_diff:.1e}; max |gradient difference| / max |gradient| {grad_diff:.1e}\n")
    print(table(loss_times) + "\n")
    step_times = training_steps(args)
    print("### Whole bf16 training steps, 4,096-token synthetic batches\n")
    print(table(step_times))
    common.write_json(
        args,
        "loss_step",
        {
            "loss_ms": {k: common.median(v) * 1e3 for k, v in loss_times.items()},
            "loss_difference": loss_diff,
            "relative_gradient_difference": grad_diff,
            "train_step_ms": {k: common.median(v) * 1e3 for k, v in step_times.items()},
        },
    )


if __name__ == "__main__":
    main()
