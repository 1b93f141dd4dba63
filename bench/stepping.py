"""Cached stepping (KV cache) vs recomputing the whole target prefix at every step.

For 10, 30 and 60 output tokens from one 15-token source (fixed English sentence with
--checkpoint, seeded random ids otherwise), both variants encode the source once and decode greedily
with the special ids excluded from the argmax, so both run exactly N steps:
- cached: `model.decode` on the newest token only, carrying the DecoderState (keys/values of the
  target so far and of the source);
- recompute: `model.decode` on BOS + all tokens so far with a fresh DecoderState at each step
  (no cache: every layer reruns over the whole prefix and re-projects the source keys/values).
Both must produce the same tokens (asserted on an untimed run that also warms up). Reported: ms per
sentence (encoding included), ms per output token, and the speedup recompute/cached. The recompute
variant also projects every prefix position onto the vocabulary, as `model.decode` does.

    python -m bench.stepping [--checkpoint DIR] [--lengths 10 30 60] [--threads N] [--json OUT]
"""

from __future__ import annotations

import torch

from bench import common
from explorer.model.config import BOS_ID
from explorer.model.transformer import DecoderState, Transformer


@torch.no_grad()
def greedy_recompute(model: Transformer, source: list[int], n_tokens: int) -> list[int]:
    """Greedy decoding of exactly n_tokens, rerunning the decoder over the whole prefix at each step."""
    memory, src_mask = model.encode(torch.tensor([source]))
    out: list[int] = []
    for _ in range(n_tokens):
        prefix = torch.tensor([[BOS_ID] + out])  # (1, t + 1)
        logits, _ = model.decode(prefix, DecoderState(memory, src_mask))  # (1, t + 1, V)
        out.append(int(common.next_token(logits[:, -1])))
    return out


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--lengths", type=int, nargs="+", default=[10, 30, 60], help="output tokens per sentence")
    p.add_argument("--source-tokens", type=int, default=15, help="source length, EOS included")
    args = p.parse_args()
    common.setup(args, warmup=3, repeat=30, quick_warmup=0, quick_repeat=2)  # the check below also warms up

    model, tokenizer, desc = common.load_model(args.checkpoint, args.seed)
    if max(args.lengths) + 1 > model.config.max_len:
        p.error(f"--lengths {max(args.lengths)} needs max_len > {max(args.lengths)}, got {model.config.max_len}")
    ids = common.source_ids(tokenizer, args.source_tokens, args.seed)

    rows, results = [], {}
    for n in args.lengths:
        cached, recomputed = common.greedy_cached(model, ids, n), greedy_recompute(model, ids, n)
        assert cached == recomputed, f"N={n}: cached and recomputed decoding differ:\n{cached}\n{recomputed}"
        variants = {
            "cached": lambda n=n: common.greedy_cached(model, ids, n),
            "recompute": lambda n=n: greedy_recompute(model, ids, n),
        }
        times = common.interleaved(variants, args.warmup, args.repeat)
        ms = {k: [t * 1000 for t in v] for k, v in times.items()}
        med = {k: common.median(v) for k, v in ms.items()}
        speedup = med["recompute"] / med["cached"]
        rows.append([n, med["cached"], med["cached"] / n, med["recompute"], med["recompute"] / n, f"{speedup:.2f}x"])
        p90 = {k: common.p90(v) for k, v in ms.items()}
        results[n] = {"ms": ms, "median_ms": med, "p90_ms": p90, "speedup": speedup}

    print(common.header("Cached stepping vs recompute per step (one sentence, lower is better)", args, desc))
    print(f"Source {len(ids)} tokens; identical output tokens checked for every length on an untimed run.\n")
    headers = ["output tokens", "cached ms", "cached ms/token", "recompute ms", "recompute ms/token", "speedup"]
    print(common.table(headers, rows))
    common.write_json(args, "stepping", {"model": desc, "source_tokens": len(ids), "lengths": results})


if __name__ == "__main__":
    main()
