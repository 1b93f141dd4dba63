"""Training steps with glibc malloc's defaults vs `explorer.training.allocator.retain_freed_memory()`.

The setting is process-wide, so each round starts two fresh child processes, one per variant (order
alternating between rounds), that each build the shipped-size model with the same seed, warm up,
then time the same training steps (`train_throughput.Run`: the trainer's forward, label-smoothed
loss, backward, clipping, AdamW) on the same synthetic 4,096-token batches, and report seconds per
step, minor page faults and system CPU time from getrusage. The ratio is default time / retained
time, the speed-up the training CLI gets from calling it.

    python -m bench.allocator [--threads N] [--repeat R] [--steps S] [--bf16] [--json OUT]
    python -m bench.allocator --quick   # smoke test
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import torch

from bench import common
from bench.train_throughput import Run, synthetic_examples
from explorer.model.transformer import Transformer
from explorer.training.allocator import retain_freed_memory
from explorer.training.data import token_batches
from explorer.training.trainer import TrainConfig

ROOT = Path(__file__).resolve().parents[1]  # the children run as `python -m bench.allocator` from here
VARIANTS = ("glibc defaults", "retain_freed_memory()")


def child(args) -> None:
    """One variant in this process: time `args.steps` steps after `args.warmup_steps`; print JSON."""
    retained = args.child == VARIANTS[1] and retain_freed_memory()
    torch.set_num_threads(args.threads)
    common.seed_everything(args.seed)
    config = common.shipped_config()
    examples = synthetic_examples(args.examples, config.vocab_size, args.seed)
    batches = [[examples[i] for i in idx] for idx in token_batches(examples, args.max_tokens, seed=args.seed)]
    run = Run(Transformer(config), TrainConfig(), bf16=args.bf16)
    for b in range(args.warmup_steps):
        run.step(batches[b % len(batches)])
    usage, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    tokens = 0
    for b in range(args.warmup_steps, args.warmup_steps + args.steps):
        batch = batches[b % len(batches)]
        run.step(batch)
        tokens += sum(len(t) - 1 for _, t in batch)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "retained": retained,
                "s_per_step": elapsed / args.steps,
                "tokens_per_s": tokens / elapsed,
                "minor_faults_per_step": (after.ru_minflt - usage.ru_minflt) / args.steps,
                "system_s_per_step": (after.ru_stime - usage.ru_stime) / args.steps,
                "max_rss_mb": after.ru_maxrss / 1024,
            }
        )
    )


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--steps", type=int, default=None, help="timed training steps per process (20; 3 with --quick)")
    p.add_argument("--warmup-steps", type=int, default=None, help="untimed steps first (5; 1 with --quick)")
    p.add_argument("--max-tokens", type=int, default=4096, help="padded tokens per batch")
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    p.add_argument("--bf16", action="store_true", help="train under bf16 autocast (the trainer's default here)")
    p.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = p.parse_args()
    common.setup(args, warmup=0, repeat=3, quick_warmup=0, quick_repeat=1)
    args.steps = args.steps or (3 if args.quick else 20)
    args.warmup_steps = args.warmup_steps if args.warmup_steps is not None else (1 if args.quick else 5)
    if args.child:
        return child(args)

    results: dict[str, list[dict]] = {name: [] for name in VARIANTS}
    for r in range(args.repeat):
        for name in VARIANTS if r % 2 == 0 else reversed(VARIANTS):
            command = [
                sys.executable,
                "-m",
                "bench.allocator",
                "--child",
                name,
                "--threads",
                str(args.threads),
                "--seed",
                str(args.seed),
                "--steps",
                str(args.steps),
                "--warmup-steps",
                str(args.warmup_steps),
                "--max-tokens",
                str(args.max_tokens),
                "--examples",
                str(args.examples),
            ]
            out = subprocess.run(
                command + (["--bf16"] if args.bf16 else []), cwd=ROOT, capture_output=True, text=True, check=True
            )
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    assert results[VARIANTS[1]][0]["retained"], "retain_freed_memory() is not available here (not glibc)"

    def med(name: str, key: str) -> float:
        return common.median([r[key] for r in results[name]])

    ratio = med(VARIANTS[0], "s_per_step") / med(VARIANTS[1], "s_per_step")
    print(
        common.header(
            "Training steps: glibc malloc defaults vs retain_freed_memory()",
            args,
            f"shipped-size model, synthetic batches of <= {args.max_tokens} padded tokens"
            f"{', bf16 autocast' if args.bf16 else ''}, {args.warmup_steps} + {args.steps} steps per process",
        )
    )
    rows = [
        [
            name,
            med(name, "s_per_step") * 1000,
            med(name, "tokens_per_s"),
            med(name, "minor_faults_per_step"),
            med(name, "system_s_per_step") * 1000,
            med(name, "max_rss_mb"),
        ]
        for name in VARIANTS
    ]
    headers = ["malloc", "median ms/step", "tokens/s", "minor faults/step", "system ms/step", "peak RSS MB"]
    print(common.table(headers, rows))
    print(f"\nSpeed-up from retain_freed_memory(): **{ratio:.2f}x** (median step time, {args.repeat} process pairs)")
    common.write_json(args, "allocator", {"runs": results, "speedup": ratio})


if __name__ == "__main__":
    main()
