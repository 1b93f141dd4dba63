"""What one training step of the GPU recipe costs, by batch size: where the time of a short lease goes.

`lecture_scratch_en_de`'s model (20.4M weights, a 10,000-piece vocabulary) trained by the trainer's own step
(`Trainer.train_step`: the copy to the device, bf16 autocast on CUDA, the loss, backward, clipping, fused AdamW) on
synthetic batches whose lengths follow the training mix (source and target 3-40 pieces, most short), for several
`max_tokens`. Per size: collating one batch on this machine's CPU (what `loader_workers` take off the loop), a step
waited for (synchronized: the device's time plus the launch overhead), and steps in a row as the trainer runs them
(the loss read every `log_every` steps only, so the CPU can queue the next step while the GPU works). Tokens/s counts
non-pad target tokens. On a CPU it runs too (slowly): `--quick` checks that it works.

    python -m bench.gpu_step [--sizes 32768 65536 131072] [--steps 20] [--device auto] [--json OUT]
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

import torch

from bench import common
from explorer.model.config import BOS_ID, PAD_ID
from explorer.model.tokenizer import Tokenizer
from explorer.model.transformer import Transformer
from explorer.training.data import MINI_CORPUS, collate, read_tsv, token_batches
from explorer.training.recipes.lecture_scratch_en_de import RECIPE
from explorer.training.trainer import Trainer


def lengths(rng: random.Random) -> int:
    """A sentence's length in pieces, skewed short like the mix (Tatoeba, terms) with a long tail (news)."""
    return min(40, 3 + int(rng.expovariate(1 / 9)))


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def main() -> int:
    p = common.parser(__doc__.split("\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[32768, 65536, 131072], help="max_tokens per step")
    p.add_argument("--steps", type=int, default=20, help="timed steps per size (after 3 warm-up steps)")
    p.add_argument("--device", default="auto")
    args = p.parse_args()
    if args.quick:
        args.sizes, args.steps = [2048, 4096], 2
    common.setup(args, warmup=0, repeat=1)
    rng = random.Random(args.seed)
    vocab = RECIPE.config.model.vocab_size
    examples = []
    for _ in range(60000):
        source = [rng.randrange(4, vocab) for _ in range(lengths(rng))]
        examples.append((source, [BOS_ID] + [rng.randrange(4, vocab) for _ in range(lengths(rng))]))
    pairs = read_tsv(MINI_CORPUS)  # the trainer needs a tokenizer; the step never reads it
    tokenizer = Tokenizer.train([x for pair in pairs for x in pair], 300)
    rows, results = [], {}
    for size in args.sizes:
        config = replace(
            RECIPE.config,
            max_tokens=size,
            device=args.device,
            loader_workers=0,
            warmup=10,
            data_weights=[],
            max_minutes=0,
            cooldown_minutes=0,
        )
        torch.manual_seed(args.seed)
        trainer = Trainer(config, Transformer(config.model), tokenizer, examples, [], log=lambda _: None)
        device = trainer.device
        batches = token_batches(examples, size, seed=args.seed)[: args.steps + 3]
        started = time.perf_counter()
        collated = [collate([examples[i] for i in b]) for b in batches]
        collate_ms = (time.perf_counter() - started) / len(batches) * 1e3
        tokens = [int((c[2] != PAD_ID).sum()) for c in collated]
        for batch in collated[:3]:  # warm-up: the allocator, cuBLAS handles, autocast caches
            trainer.train_step(*batch)
        synchronize(device)
        waited = []
        for batch in collated[3 : 3 + args.steps // 2]:
            started = time.perf_counter()
            loss, _ = trainer.train_step(*batch)
            loss.item()
            waited.append(time.perf_counter() - started)
        in_a_row = collated[3 + args.steps // 2 :]
        synchronize(device)
        started = time.perf_counter()
        total = torch.zeros((), device=device)
        for batch in in_a_row:
            loss, _ = trainer.train_step(*batch)
            total += loss
        total.item()
        row_s = (time.perf_counter() - started) / max(1, len(in_a_row))
        per_step = sum(tokens[3 + args.steps // 2 :]) / max(1, len(in_a_row))
        results[size] = {
            "collate_ms": round(collate_ms, 1),
            "step_waited_ms": round(common.median(waited) * 1e3, 1),
            "step_in_a_row_ms": round(row_s * 1e3, 1),
            "target_tokens_per_step": round(per_step),
            "tokens_per_s": round(per_step / row_s),
        }
        rows.append([size, collate_ms, common.median(waited) * 1e3, row_s * 1e3, per_step, per_step / row_s])
        del trainer
        if device.type == "cuda":
            torch.cuda.empty_cache()
    print(common.header("Training step of lecture_scratch_en_de by batch size", args, f"{device}"))
    print(common.table(["max_tokens", "collate ms", "step waited ms", "step in a row ms", "tokens", "tokens/s"], rows))
    common.write_json(args, "gpu_step", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
