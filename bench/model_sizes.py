"""Training speed of candidate model sizes: what a bigger model costs in steps within a time budget.

The issue's budget is training wall time (3 hours on this CPU), so a size is only worth it if it
learns more per second, not per step. This measures the seconds per bf16 training step
(`train_throughput.Run`: forward, chunked label-smoothed loss, backward, clipping, fused AdamW, the
trainer's `--bf16 true` path) of each size in SIZES on the same 4,096-token batches, interleaved in one
process (common.interleaved), and reports each as a ratio to the shipped size: 1.25x means 80% as many
steps fit in the same time. Batches are real pairs with `--data FILE.tsv --checkpoint DIR` (the
checkpoint's tokenizer; all sizes share its vocabulary) or synthetic pairs by default.

    python -m bench.model_sizes --threads 2 --data ../shared/data/tatoeba-en-de/train.tsv \\
        --checkpoint checkpoints/tatoeba-en-de
    python -m bench.model_sizes --quick   # smoke test
"""

from __future__ import annotations

from dataclasses import replace

from bench import common
from bench.train_throughput import Run, interleaved_steps, real_examples, synthetic_examples
from explorer.model.transformer import Transformer
from explorer.training.data import token_batches
from explorer.training.trainer import TrainConfig

# name -> changes to the shipped ModelConfig (3+3 layers, d_model 256, 4 heads, d_ff 1024)
SIZES = {
    "3+3, d256 (shipped)": {},
    "4+4, d256": {"n_encoder_layers": 4, "n_decoder_layers": 4},
    "6+2, d256": {"n_encoder_layers": 6, "n_decoder_layers": 2},
    "3+3, d384, 6 heads, ff 1536": {"d_model": 384, "n_heads": 6, "d_ff": 1536},
}


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--data", default=None, help="corpus spec (FILE.tsv, ...); needs --checkpoint for the tokenizer")
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    args = p.parse_args()
    common.setup(args, warmup=3, repeat=20, quick_warmup=1, quick_repeat=2)
    if args.data and not args.checkpoint:
        p.error("--data needs --checkpoint DIR for the tokenizer")
    train = TrainConfig()
    max_tokens = 1024 if args.quick else train.max_tokens
    if args.data:
        examples, base = real_examples(args.data, args.checkpoint, train.model.max_len)
        base = replace(train.model, vocab_size=base.vocab_size)  # the shipped size with the checkpoint's vocabulary
        source = f"{args.data} tokenized by {args.checkpoint}"
    else:
        base = common.shipped_config()
        examples = synthetic_examples(args.examples, base.vocab_size, args.seed)
        source = f"{len(examples)} synthetic pairs (source 5-20 tokens)"
    batches = [[examples[i] for i in idx] for idx in token_batches(examples, max_tokens, seed=args.seed)]

    runs, params = {}, {}
    for name, changes in SIZES.items():
        common.seed_everything(args.seed)
        model = Transformer(replace(base, **changes))
        params[name] = model.num_parameters()
        runs[name] = Run(model, train, bf16=True)
    times = interleaved_steps(runs, args, batches=batches)

    names = list(SIZES)
    med = {name: common.median(times[name]) for name in names}
    paired = {name: common.median([a / b for a, b in zip(times[name], times[names[0]])]) for name in names}
    print(common.header("Training step time by model size (bf16 autocast, lower is better)", args, source))
    print(f"Batches of <= {max_tokens} padded tokens; vocabulary {base.vocab_size}; fused AdamW; chunked loss.\n")
    rows = [
        [
            name,
            f"{params[name]:,}",
            med[name] * 1000,
            common.p90(times[name]) * 1000,
            f"{paired[name]:.2f}x",
            f"{1 / paired[name]:.0%}",
        ]
        for name in names
    ]
    headers = [
        "size",
        "parameters",
        "median ms/step",
        "p90 ms/step",
        "time vs shipped (paired median)",
        "steps in the same time",
    ]
    print(common.table(headers, rows) + "\n")
    common.write_json(
        args,
        "model_sizes",
        {"data": source, "sizes": SIZES, "parameters": params, "seconds": times, "paired_ratio_median": paired},
    )


if __name__ == "__main__":
    main()
