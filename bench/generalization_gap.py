"""How far a checkpoint has overfit: its loss on training pairs against its loss on validation pairs.

For each checkpoint, the per-piece negative log-likelihood (no label smoothing, dropout off, fp32)
of `--train-sample` training pairs drawn at random (seeded) and of every validation pair, each
encoded with that checkpoint's own tokenizer and scored by `explorer.training.trainer.mean_loss` (the trainer's
validation loss). A training loss far below the validation loss means the model memorizes its
training pairs, so more regularization (dropout) may buy more than more steps.

    python -m bench.generalization_gap --threads 2 --data ../shared/data/tatoeba-en-de/train.tsv \
        --valid ../shared/data/tatoeba-en-de/valid.tsv --checkpoint checkpoints/tatoeba-en-de [DIR ...]
    python -m bench.generalization_gap --quick   # smoke test: the shipped model on the gold-alignment pairs
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import torch

from bench import common  # noqa: F401  (the shared flags and timing)
from explorer.app import SHIPPED_CHECKPOINT
from explorer.model.checkpoint import load_checkpoint
from explorer.training.data import clean, encode_pairs, read_tsv
from explorer.training.trainer import mean_loss

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0, help="which training pairs are sampled")
    p.add_argument("--quick", action="store_true", help="smoke test on the shipped model and the gold-alignment pairs")
    p.add_argument("--data", help="training TSV (source TAB target)")
    p.add_argument("--valid", help="validation TSV")
    p.add_argument("--checkpoint", nargs="+", default=[])
    p.add_argument("--train-sample", type=int, default=4000, help="random training pairs to score")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.quick:
        args.data = args.valid = str(ROOT / "explorer" / "app" / "alignments" / "everyday.tsv")
        args.checkpoint = args.checkpoint or [str(SHIPPED_CHECKPOINT)]
    if not (args.data and args.valid and args.checkpoint):
        p.error("--data, --valid and --checkpoint are required (or --quick)")
    train = clean(read_tsv(args.data))
    random.Random(args.seed).shuffle(train)
    train, valid = train[: args.train_sample], clean(read_tsv(args.valid))
    print(
        f"{len(train)} training pairs (random, seed {args.seed}), {len(valid)} validation pairs, {args.threads} threads"
    )
    print("| checkpoint | steps | train NLL | valid NLL | gap |\n|---|---|---|---|---|")
    for path in args.checkpoint:
        ckpt = load_checkpoint(path)
        model = ckpt.model.float().eval()
        t, v = (
            mean_loss(model, encode_pairs(ckpt.tokenizer, pairs, model.config.max_len), 4096)
            for pairs in (train, valid)
        )
        print(f"| {path} | {ckpt.metadata.get('steps', '?')} | {t:.3f} | {v:.3f} | {v - t:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
