"""Training throughput: target tokens/s of explorer.model.transformer.Transformer vs torch.nn.Transformer.

Both models have the same size and math: embedding * sqrt(D) + sinusoidal positions, dropout,
pre-LN (or post-LN) layers with the same dropout sites, final LayerNorms, the output projection tied
to the embedding. The reference is `nn.Transformer(batch_first=True, norm_first=...)` called with
src/tgt/memory key-padding masks and a boolean causal tgt_mask (tgt_is_causal=True). Before timing,
our weights are copied into the reference and the two logits are compared in eval mode, which proves
that sizes, wiring and masks are equivalent, not just parameter counts.

One training step mirrors `explorer.training.trainer.Trainer.train_step`: `collate`, forward, `sequence_loss`
with label smoothing, zero_grad, backward, gradient clipping at 1.0, AdamW(betas=(0.9, 0.98),
eps=1e-9, weight_decay=0.01) step and the inverse-sqrt schedule. Batches come from
`explorer.training.data.token_batches` (max 4096 padded tokens): by default synthetic sentence pairs (source
5-20 tokens, target about as long, Zipf-distributed ids, fixed seed); with `--data SPEC
--checkpoint DIR`, real pairs tokenized with the checkpoint's tokenizer. Each round runs the same
batch through both models, alternating which goes first; tokens/s counts non-pad target tokens.

    python -m bench.train_throughput [--threads N] [--repeat R] [--data FILE.tsv --checkpoint DIR] [--bf16] [--json OUT]

With `--bf16`, a third variant trains a copy of our model (same initial weights) under bf16 autocast
(`explorer.training.train --bf16 true`) in the same rounds, and its speed is reported as a ratio to our fp32 run:
this is what the trainer's `--bf16 auto` buys on a CPU with native bf16 instructions (AVX512-BF16, AMX).
    python -m bench.train_throughput --quick --profile   # smoke test + where the time goes
"""

from __future__ import annotations

import math
import random
import warnings

import torch
from torch import nn

from bench import common
from explorer.model.config import BOS_ID, EOS_ID, PAD_ID, ModelConfig
from explorer.model.transformer import PositionalEncoding, Transformer
from explorer.training.data import Example, clean, collate, encode_pairs, read_corpus, token_batches
from explorer.training.trainer import TrainConfig, inverse_sqrt_schedule, sequence_loss

NOTE = """\
What limits the ratio (torch.profiler, shipped size, CPU; `--profile` prints the op table):
- Both models run the same math and the same big kernels: GEMMs (aten::mm/addmm: the linear layers
  and the tied (B*T, 256) @ (256, 8000) output projection, forward and backward) and the loss over
  the 8,000-piece vocabulary (explorer.training.loss since session 5; before, log_softmax on a float copy).
- Dropout: 32 masks per step. The reference draws them with aten::bernoulli_ (one random number per
  element, about a fifth of a bf16 step); ours with explorer.model.dropout (one 31-bit random_() integer
  per two elements), which is most of the difference in ours' favour.
- Ours projects q, k and v with three Linear calls (48 addmm per forward vs 21): same FLOPs, more
  and smaller GEMMs. nn.MultiheadAttention packs them into one in_proj GEMM for self-attention.
- Ours has 131 parameter tensors vs 95 (separate q/k/v weights and biases). Measured in session 1,
  when AdamW ran its per-tensor loop on CPU, that cost ours a few ms per step; both now use AdamW's
  fused kernel, as the trainer does (bench/optimizer_step.py).
- Attention: in CPU training ours computes scores -> mask -> softmax -> dropout explicitly, the
  reference reaches SDPA's math backend (the same ops, with its merged key-padding + causal float
  mask). At T <= 25 attention is a small share of the step.
On a busy machine, run-to-run noise is larger than any of these differences."""


class ReferenceTransformer(nn.Module):
    """The same model built on torch.nn.Transformer (same embedding, positions, tied output, norms)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=PAD_ID)
        self.pos_encoding = PositionalEncoding(config.d_model, config.max_len)
        self.dropout = nn.Dropout(config.dropout)
        with warnings.catch_warnings():  # nested tensors are an inference fast path, off under pre-LN anyway
            warnings.filterwarnings("ignore", message="enable_nested_tensor is True")
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
        if not config.norm_first:  # nn.Transformer always adds final norms; ours only under pre-LN
            self.transformer.encoder.norm = self.transformer.decoder.norm = None

    def _embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.pos_encoding(self.embed(ids) * math.sqrt(self.config.d_model)))

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        src_pad = src == PAD_ID  # (B, S), True = ignore
        tgt_pad = tgt_in == PAD_ID  # (B, T)
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
    lengths = []
    for _ in range(n):
        s_len = rng.randint(5, 20)
        lengths.append((s_len, max(3, min(24, round(s_len * rng.uniform(0.8, 1.3))))))
    weights = 1.0 / torch.arange(1, vocab_size - 4 + 1, dtype=torch.float64)  # Zipf over ordinary pieces
    g = torch.Generator().manual_seed(seed)
    ids = (torch.multinomial(weights, sum(s + t for s, t in lengths), replacement=True, generator=g) + 4).tolist()
    examples, pos = [], 0
    for s_len, t_len in lengths:
        src, tgt = ids[pos : pos + s_len], ids[pos + s_len : pos + s_len + t_len]
        examples.append((src + [EOS_ID], [BOS_ID] + tgt + [EOS_ID]))
        pos += s_len + t_len
    return examples


def real_examples(spec: str, checkpoint: str, max_len: int) -> tuple[list[Example], ModelConfig]:
    from explorer.model.checkpoint import load_checkpoint

    ckpt = load_checkpoint(checkpoint)
    pairs = clean(read_corpus(spec))
    return encode_pairs(ckpt.tokenizer, pairs, max_len), ckpt.model.config


BF16 = "explorer.model.transformer.Transformer, bf16 autocast"


class Run:
    """A model with its AdamW optimizer and schedule; `step(batch)` is Trainer.train_step's work."""

    def __init__(
        self, model: nn.Module, train: TrainConfig, bf16: bool = False, fused: bool = True, loss=sequence_loss
    ):
        self.model, self.train, self.bf16, self.loss = model, train, bf16, loss
        self.optimizer = (
            torch.optim.AdamW(  # fused=True as in the trainer on CPU (explorer.training.train.FUSED_ADAMW_DEVICES)
                model.parameters(),
                lr=train.lr,
                betas=(0.9, 0.98),
                eps=1e-9,
                weight_decay=train.weight_decay,
                fused=fused or None,
            )
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, inverse_sqrt_schedule(train.warmup))

    def step(self, batch: list[Example]) -> None:
        self.model.train()
        src, tgt_in, tgt_out = collate(batch)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
            logits = self.model(src, tgt_in)
        loss = self.loss(logits, tgt_out, self.train.label_smoothing)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.train.clip)
        self.optimizer.step()
        self.scheduler.step()


def interleaved_steps(
    runs: dict[str, Run], args, max_tokens: int = 4096, batches: list[list[Example]] | None = None
) -> dict[str, list[float]]:
    """Seconds per training step of each run, interleaved, on the same batches (round r: batch r);
    synthetic batches unless `batches` are given."""
    if batches is None:
        examples = synthetic_examples(args.examples, common.shipped_config().vocab_size, args.seed)
        batches = [[examples[i] for i in b] for b in token_batches(examples, max_tokens, seed=args.seed)]
    batch = [None]

    def before_round(r):
        batch[0] = batches[r % len(batches)]

    return common.interleaved(
        {name: (lambda r=run: r.step(batch[0])) for name, run in runs.items()}, args.warmup, args.repeat, before_round
    )


def profile(runs: dict[str, Run], batches: list[list[Example]], steps: int, top: int) -> None:
    """Profile `steps` interleaved steps per model; print per-step self CPU ms of the top ops side by side."""
    from torch.profiler import ProfilerActivity, record_function
    from torch.profiler import profile as torch_profile

    totals: dict[str, dict[str, list[float]]] = {name: {} for name in runs}  # op -> [ms, calls]
    for run in runs.values():
        run.step(batches[0])  # warm: optimizer state, allocator
    for i in range(steps):
        for name, run in runs.items() if i % 2 == 0 else reversed(runs.items()):
            with torch_profile(activities=[ProfilerActivity.CPU]) as prof, record_function("step"):
                run.step(batches[i % len(batches)])
            for event in prof.key_averages():
                ms, calls = totals[name].setdefault(event.key, [0.0, 0])
                ms += event.self_cpu_time_total / 1e3 / steps
                totals[name][event.key] = [ms, calls + event.count / steps]
    names = list(runs)
    ops = sorted(set().union(*totals.values()), key=lambda op: -max(totals[n].get(op, [0, 0])[0] for n in names))
    rows = []
    for op in ops[:top]:
        cells = [totals[n].get(op, [0.0, 0]) for n in names]
        rows.append([op[:48]] + [c[0] for c in cells] + [f"{c[1]:.0f}" for c in cells])
    rows.append(["total"] + [sum(v[0] for v in totals[n].values()) for n in names] + ["", ""])
    print(f"### Profile: self CPU ms per step (mean of {steps} profiled steps each)\n")
    print(common.table(["op"] + [f"{n} ms" for n in names] + [f"{n} calls" for n in names], rows) + "\n")


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--data", default=None, help="corpus spec (FILE.tsv, mini, ...); needs --checkpoint")
    p.add_argument("--max-tokens", type=int, default=None, help="padded tokens per batch (4096; 1024 with --quick)")
    p.add_argument("--examples", type=int, default=20000, help="synthetic pairs to draw batches from")
    p.add_argument("--profile", action="store_true", help="profile a few steps of each model (torch.profiler)")
    p.add_argument("--bf16", action="store_true", help="also time our model under bf16 autocast")
    args = p.parse_args()
    common.setup(args, warmup=2, repeat=20, quick_warmup=1, quick_repeat=2)
    if args.max_tokens is None:
        args.max_tokens = 1024 if args.quick else TrainConfig().max_tokens
    if args.data and not args.checkpoint:
        p.error("--data needs --checkpoint DIR for the tokenizer (and the model size)")

    train = TrainConfig()
    if args.data:
        examples, config = real_examples(args.data, args.checkpoint, train.model.max_len)
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

    runs = {"explorer.model.transformer.Transformer": Run(ours, train), "torch.nn.Transformer": Run(ref, train)}
    if args.bf16:
        ours_bf16 = Transformer(config)
        ours_bf16.load_state_dict(ours.state_dict())
        runs[BF16] = Run(ours_bf16, train, bf16=True)
    if args.profile:
        profile(runs, batches, steps=2 if args.quick else 6, top=15 if args.quick else 25)

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
        for name, n in zip(names, (n_ours, n_ref, n_ours))
    ]
    headers = ["model", "parameters", "median tokens/s", "min tokens/s", "max tokens/s", "median ms/step"]
    print(common.table(headers, rows))
    print(
        f"\nRatio ours/reference: **{ratio:.3f}x** (median of per-round paired ratios "
        f"{common.median(paired):.3f}x; target >= 0.9x)\n"
    )
    bf16_ratio = None
    if args.bf16:
        bf16_ratio = med[BF16] / med[names[0]]
        bf16_paired = common.median([a / b for a, b in zip(tps[BF16], tps[names[0]])])
        print(
            f"Ratio ours bf16 autocast/ours fp32: **{bf16_ratio:.3f}x** (median of paired ratios {bf16_paired:.3f}x)\n"
        )
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
            "ratio_bf16_over_fp32": bf16_ratio,
        },
    )


if __name__ == "__main__":
    main()
