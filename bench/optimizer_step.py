"""AdamW on the shipped-size model: torch's per-tensor loop, its foreach and its fused kernel.

The trainer builds AdamW with `fused=True` on CPU and CUDA (`explorer.training.train.FUSED_ADAMW_DEVICES`).
This measures what that buys, twice:

1. the optimizer step alone (`optimizer.step()` plus the trainer's `clip_grad_norm_`), on copies of
   the same randomly initialised 7.6M-parameter model holding the same random gradients;
2. whole training steps (`train_throughput.Run`: forward, label-smoothed loss, backward, clipping,
   AdamW, schedule) on the same synthetic 4,096-token batches, loop against fused.

Variants run interleaved in one process (common.interleaved), so drift hits them alike; ratios are
loop time / other time. The updates themselves are compared before timing (max |difference|).

    python -m bench.optimizer_step [--threads N] [--repeat R] [--bf16] [--json OUT]
    python -m bench.optimizer_step --quick   # smoke test
"""

from __future__ import annotations

import copy

import torch

from bench import common
from bench.train_throughput import Run, interleaved_steps
from explorer.model.transformer import Transformer
from explorer.training.trainer import TrainConfig

KINDS = {"loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}


def optimizer_only(args) -> tuple[dict, float]:
    model = Transformer(common.shipped_config())
    copies = {kind: copy.deepcopy(model) for kind in KINDS}
    generator = torch.Generator().manual_seed(args.seed)
    grads = [torch.randn(p.shape, generator=generator) * 1e-2 for p in model.parameters()]
    optimizers = {}
    for kind, m in copies.items():
        for p, g in zip(m.parameters(), grads):
            p.grad = g.clone()
        optimizers[kind] = torch.optim.AdamW(
            m.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01, **KINDS[kind]
        )

    def step(kind):
        params = copies[kind].parameters()
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=kind != "loop")
        optimizers[kind].step()

    for kind in KINDS:  # equal updates before timing
        step(kind)
    worst = max(
        (a - b).abs().max().item()
        for kind in ("foreach", "fused")
        for a, b in zip(copies["loop"].parameters(), copies[kind].parameters())
    )
    times = common.interleaved({kind: (lambda k=kind: step(k)) for kind in KINDS}, args.warmup, args.repeat * 10)
    return times, worst


def training_steps(args) -> dict:
    train = TrainConfig()
    model = Transformer(common.shipped_config())
    runs = {
        "loop": Run(copy.deepcopy(model), train, bf16=args.bf16, fused=False),
        "fused": Run(copy.deepcopy(model), train, bf16=args.bf16, fused=True),
    }
    return interleaved_steps(runs, args)


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--bf16", action="store_true", help="training steps under bf16 autocast (the trainer on this CPU)")
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    args = p.parse_args()
    common.setup(args, warmup=3, repeat=12, quick_warmup=1, quick_repeat=2)
    print(common.header("AdamW: per-tensor loop, foreach, fused", args, "shipped-size model, 7.6M parameters"))

    opt_times, worst = optimizer_only(args)
    rows = [
        [kind, common.median(t) * 1e3, common.p90(t) * 1e3, common.median(opt_times["loop"]) / common.median(t)]
        for kind, t in opt_times.items()
    ]
    print(f"### clip_grad_norm_ + optimizer.step() ({args.repeat * 10} rounds; max |update difference| {worst:.1e})\n")
    print(common.table(["AdamW", "median ms", "p90 ms", "loop / this"], rows) + "\n")

    step_times = training_steps(args)
    rows = [
        [kind, common.median(t) * 1e3, common.p90(t) * 1e3, common.median(step_times["loop"]) / common.median(t)]
        for kind, t in step_times.items()
    ]
    print(f"### Whole training steps{' (bf16 autocast)' if args.bf16 else ''}, 4,096-token synthetic batches\n")
    print(common.table(["AdamW", "median ms/step", "p90 ms", "loop / this"], rows))
    common.write_json(
        args,
        "optimizer_step",
        {
            "optimizer_ms": {k: common.median(v) * 1e3 for k, v in opt_times.items()},
            "max_update_difference": worst,
            "train_step_ms": {k: common.median(v) * 1e3 for k, v in step_times.items()},
        },
    )


if __name__ == "__main__":
    main()
