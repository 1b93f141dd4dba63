"""Training throughput: target tokens/s of explorer.model.Transformer vs torch.nn.Transformer.

Both models have the same size and math: embedding * sqrt(D) + sinusoidal positions, dropout,
pre-LN (or post-LN) layers with the same dropout sites, final LayerNorms, the output projection tied
to the embedding. The reference is `nn.Transformer(batch_first=True, norm_first=...)` called with
src/tgt/memory key-padding masks and a boolean causal tgt_mask (tgt_is_causal=True). Before timing,
our weights are copied into the reference and the two logits are compared in eval mode, which proves
that sizes, wiring and masks are equivalent, not just parameter counts.

One training step mirrors `explorer.train.Trainer.train_step`: `collate`, forward, `sequence_loss`
with label smoothing, zero_grad, backward, gradient clipping at 1.0, AdamW(betas=(0.9, 0.98),
eps=1e-9, weight_decay=0.01) step and the inverse-sqrt schedule. Batches come from
`explorer.data.token_batches` (max 4096 padded tokens): by default synthetic sentence pairs (source
5-20 tokens, target about as long, Zipf-distributed ids, fixed seed); with `--data SPEC
--checkpoint DIR`, real pairs tokenized with the checkpoint's tokenizer. Each round runs the same
batch through both models, alternating which goes first; tokens/s counts non-pad target tokens.

    python bench/train_throughput.py [--threads N] [--repeat R] [--data FILE.tsv --checkpoint DIR] [--json OUT]
    python bench/train_throughput.py --quick --profile   # smoke test + where the time goes
"""

from __future__ import annotations

import math
import random

import torch
from torch import nn

import common
from explorer.config import ModelConfig
from explorer.data import Example, clean, collate, encode_pairs, read_corpus, token_batches
from explorer.model import PositionalEncoding, Transformer
from explorer.tokenizer import BOS_ID, EOS_ID, PAD_ID
from explorer.train import TrainConfig, inverse_sqrt_schedule, sequence_loss

NOTE = """\
What limits the ratio (torch.profiler on the shipped size, CPU): the two models run the same
GEMMs, and both spend most of a step in the output projection onto 8,000 pieces (forward and
backward of `(B*T, 256) @ (256, 8000)`), the feed-forward GEMMs and the cross-entropy; these are
identical by construction. The differences are in attention: we project q, k and v with three
Linear calls where nn.MultiheadAttention does one packed in_proj GEMM for self-attention (and a
packed k/v one for cross-attention), and we pass a boolean (B, 1, T, K) mask to
scaled_dot_product_attention where nn.MultiheadAttention merges key padding and causal masks into a
float (B, H, T, K) mask first. With short sequences (T <= 22) attention itself is a small share
of the step, so the ratio stays close to 1."""


class ReferenceTransformer(nn.Module):
    """The same model built on torch.nn.Transformer (same embedding, positions, tied output, norms)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_id)
        self.pos_encoding = PositionalEncoding(config.d_model, config.max_len)
        self.dropout = nn.Dropout(config.dropout)
        self.transformer = nn.Transformer(
            d_model=config.d_model,
            nhead=config.n_heads,
            num_encoder_layers=config.n_encoder_layers,
            num_decoder_layers=config.n_decoder_layers,
            dim_feedforward=config.d_ff,
            dropout=config.dropout,
            activation="relu",
            batch_first=True,
            norm_first=config.norm_first,
        )
        self.transformer.encoder.enable_nested_tensor = False  # fast path only; avoids its warning
        if not config.norm_first:  # nn.Transformer always adds final norms; ours only under pre-LN
            self.transformer.encoder.norm = self.transformer.decoder.norm = None

    def _embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.pos_encoding(self.embed(ids) * math.sqrt(self.config.d_model)))

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        src_pad = src == self.config.pad_id  # (B, S), True = ignore
        tgt_pad = tgt_in == self.config.pad_id  # (B, T)
        T = tgt_in.size(1)
        causal = torch.ones(T, T, dtype=torch.bool, device=tgt_in.device).triu(1)  # (T, T), True = ignore
        y = self.transformer(
            self._embed(src),
            self._embed(tgt_in),
            tgt_mask=causal,
            src_key_padding_mask=src_pad,
            tgt_key_padding_mask=tgt_pad,
            memory_key_padding_mask=src_pad,
            tgt_is_causal=True,
        )  # (B, T, D)
        return y @ self.embed.weight.T  # (B, T, V)


@torch.no_grad()
def copy_weights(ours: Transformer, ref: ReferenceTransformer) -> None:
    """Load our parameters into the reference (q/k/v stacked into in_proj)."""

    def attention(dst: nn.MultiheadAttention, src) -> None:
        dst.in_proj_weight.copy_(torch.cat([src.q_proj.weight, src.k_proj.weight, src.v_proj.weight]))
        dst.in_proj_bias.copy_(torch.cat([src.q_proj.bias, src.k_proj.bias, src.v_proj.bias]))
        dst.out_proj.load_state_dict(src.out_proj.state_dict())

    def tail(dst, src, norms) -> None:
        dst.linear1.load_state_dict(src.feed_forward.fc1.state_dict())
        dst.linear2.load_state_dict(src.feed_forward.fc2.state_dict())
        for norm, sub in zip(norms, src.sublayers):
            norm.load_state_dict(sub.norm.state_dict())

    ref.embed.load_state_dict(ours.embed.state_dict())
    for dst, src in zip(ref.transformer.encoder.layers, ours.encoder.layers):
        attention(dst.self_attn, src.self_attn)
        tail(dst, src, [dst.norm1, dst.norm2])
    for dst, src in zip(ref.transformer.decoder.layers, ours.decoder.layers):
        attention(dst.self_attn, src.self_attn)
        attention(dst.multihead_attn, src.cross_attn)
        tail(dst, src, [dst.norm1, dst.norm2, dst.norm3])
    if ours.config.norm_first:
        ref.transformer.encoder.norm.load_state_dict(ours.encoder.norm.state_dict())
        ref.transformer.decoder.norm.load_state_dict(ours.decoder.norm.state_dict())


@torch.no_grad()
def parity(ours: Transformer, ref: ReferenceTransformer, batch: list[Example]) -> float:
    """Max |logit difference| over non-pad target positions, eval mode (no dropout)."""
    src, tgt_in, _ = collate(batch)
    ours.eval(), ref.eval()
    diff = (ours(src, tgt_in) - ref(src, tgt_in)).abs()  # (B, T, V)
    return float(diff[tgt_in != PAD_ID].max())


def synthetic_examples(n: int, vocab_size: int, seed: int) -> list[Example]:
    """Sentence-like pairs: source 5-20 tokens, target 0.8-1.3x as long; Zipf-distributed ids."""
    rng = random.Random(seed)
    g = torch.Generator().manual_seed(seed)
    ranks = torch.arange(1, vocab_size - 4 + 1, dtype=torch.float64)
    weights = 1.0 / ranks  # Zipf: a few frequent pieces, a long tail
    examples = []
    for _ in range(n):
        s_len = rng.randint(5, 20)
        t_len = max(3, min(24, round(s_len * rng.uniform(0.8, 1.3))))
        ids = (torch.multinomial(weights, s_len + t_len, replacement=True, generator=g) + 4).tolist()
        examples.append((ids[:s_len] + [EOS_ID], [BOS_ID] + ids[s_len:] + [EOS_ID]))
    return examples


def real_examples(spec: str, checkpoint: str, max_len: int) -> tuple[list[Example], ModelConfig]:
    from explorer.checkpoint import load_checkpoint

    ckpt = load_checkpoint(checkpoint)
    pairs = clean(read_corpus(spec))
    return encode_pairs(ckpt.tokenizer, pairs, max_len), ckpt.model.config


class Run:
    """A model with its AdamW optimizer and schedule; `step(batch)` is Trainer.train_step's work."""

    def __init__(self, model: nn.Module, train: TrainConfig):
        self.model, self.train = model, train
        self.optimizer = torch.optim.AdamW(
            model.parameters(), lr=train.lr, betas=(0.9, 0.98), eps=1e-9, weight_decay=train.weight_decay
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, inverse_sqrt_schedule(train.warmup))

    def step(self, batch: list[Example]) -> None:
        self.model.train()
        src, tgt_in, tgt_out = collate(batch)
        loss = sequence_loss(self.model(src, tgt_in), tgt_out, self.train.label_smoothing)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.train.clip)
        self.optimizer.step()
        self.scheduler.step()


def profile(runs: dict[str, Run], batch: list[Example], top: int) -> None:
    """One profiled step per model; prints the ops that take the most self CPU time."""
    from torch.profiler import ProfilerActivity, profile as torch_profile

    for name, run in runs.items():
        run.step(batch)  # warm
        with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
            run.step(batch)
        print(f"\n### profile: {name}\n")
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=top, max_name_column_width=48))


def main() -> None:
    p = common.parser(__doc__.split("\n")[0])
    p.add_argument("--data", default=None, help="corpus spec (FILE.tsv, mini, ...); needs --checkpoint for its tokenizer")
    p.add_argument("--max-tokens", type=int, default=TrainConfig().max_tokens, help="padded tokens per batch")
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    p.add_argument("--profile", action="store_true", help="profile one step of each model (torch.profiler)")
    args = p.parse_args()
    common.setup(args, warmup=2, repeat=20, quick_warmup=1, quick_repeat=2)
    if args.data and not args.checkpoint:
        p.error("--data needs --checkpoint DIR for the tokenizer (and the model size)")

    train = TrainConfig()
    if args.data:
        examples, config = real_examples(args.data, args.checkpoint, train.max_len)
        source = f"{args.data} tokenized by {args.checkpoint}"
    else:
        config = common.shipped_config()
        examples = synthetic_examples(args.examples, config.vocab_size, args.seed)
        source = f"{len(examples)} synthetic pairs (source 5-20 tokens)"
    batches = [[examples[i] for i in idx] for idx in token_batches(examples, args.max_tokens, seed=args.seed)]

    common.seed_everything(args.seed)
    ours = Transformer(config)
    ref = ReferenceTransformer(config)
    copy_weights(ours, ref)
    max_diff = parity(ours, ref, batches[0])
    assert max_diff < 1e-3, f"reference and our logits differ by {max_diff:.2e}: the models are not equivalent"
    n_ours, n_ref = ours.num_parameters(), sum(p.numel() for p in ref.parameters())
    assert n_ours == n_ref, f"parameter counts differ: ours {n_ours:,}, reference {n_ref:,}"

    runs = {"explorer.model.Transformer": Run(ours, train), "torch.nn.Transformer": Run(ref, train)}
    if args.profile:
        profile(runs, batches[0], top=15 if args.quick else 25)

    # round r feeds batch r to both models, so their times pair up by round
    rounds = [batches[r % len(batches)] for r in range(args.warmup + args.repeat)]
    current: list[list[Example]] = []
    variants = {name: (lambda run=run: run.step(current[-1])) for name, run in runs.items()}
    times = common.interleaved(variants, args.warmup, args.repeat, before_round=lambda r: current.append(rounds[r]))
    tokens = [sum(len(t) - 1 for _, t in batch) for batch in rounds[args.warmup :]]  # non-pad targets
    names = list(runs)

    tps = {name: [n / t for n, t in zip(tokens, times[name])] for name in names}
    paired = [a / b for a, b in zip(tps[names[0]], tps[names[1]])]
    med = {name: common.median(tps[name]) for name in names}
    ratio = med[names[0]] / med[names[1]]

    print(common.header("Training throughput (target tokens/s, higher is better)", args, source))
    print(
        f"Config: vocab {config.vocab_size}, d_model {config.d_model}, {config.n_heads} heads, "
        f"{config.n_encoder_layers}+{config.n_decoder_layers} layers, d_ff {config.d_ff}, dropout {config.dropout}, "
        f"{'pre' if config.norm_first else 'post'}-LN; batches of <= {args.max_tokens} padded tokens, "
        f"median {common.median(tokens):.0f} target tokens per batch. Parity: max |logit diff| {max_diff:.1e} (eval).\n"
    )
    rows = [
        [name, f"{n:,}", med[name], min(tps[name]), max(tps[name]), common.median(times[name]) * 1000]
        for name, n in zip(names, (n_ours, n_ref))
    ]
    print(common.table(["model", "parameters", "median tokens/s", "min tokens/s", "max tokens/s", "median ms/step"], rows))
    print(f"\nRatio ours/reference: **{ratio:.3f}x** (median of per-round paired ratios {common.median(paired):.3f}x; target >= 0.9x)\n")
    print(NOTE)
    common.write_json(
        args,
        "train_throughput",
        {
            "config": config.to_dict(),
            "data": source,
            "parameters": {names[0]: n_ours, names[1]: n_ref},
            "parity_max_abs_logit_diff": max_diff,
            "target_tokens_per_round": tokens,
            "seconds": times,
            "tokens_per_s_median": med,
            "ratio_ours_over_reference": ratio,
            "paired_ratio_median": common.median(paired),
        },
    )


if __name__ == "__main__":
    main()
