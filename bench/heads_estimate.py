"""Which heads matter, the one-pass estimate beside the exact ablation: how well it ranks, and what it costs.

    python -m bench.heads_estimate [--checkpoint DIR] [--threads 1] [--repeat 3] [--json OUT]

For every Translate-tab example and every hand-aligned lecture sentence (`explorer/app/alignments/lecture.tsv`),
greedy-decoded by the model: Spearman's ρ between the estimate (`head_gradients`: the gradient of a gate on each
head's output, one forward and one backward pass) and the exact drops (`head_importance`: each head switched off,
one batched pass), how many of the exact top 3 heads the estimate names, whether the estimate's top head is the
exact top head (or among its top three), and the median seconds of each over `--repeat` runs on `--threads` torch
threads (the server computes a question on one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import EXAMPLES
from explorer.app.gold import FOLDER
from explorer.interpret.alignment import read_gold
from explorer.interpret.decoding import greedy_decode
from explorer.interpret.handle import load_handle
from explorer.interpret.head_importance import head_gradients, head_importance, spearman, top_overlap
from explorer.model.config import ATTENTION_KINDS


def flat(importance) -> np.ndarray:
    return np.concatenate([importance.drops[k].ravel() for k in ATTENTION_KINDS])


def timed(fn, repeat: int, *args) -> tuple[object, float]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t0)
    return result, statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    handle = load_handle(args.checkpoint)
    sentences = [("example", s) for s, _ in EXAMPLES] + [
        ("lecture", pair.source) for pair in read_gold(FOLDER / "lecture.tsv")
    ]
    rows = []
    print(
        "| set | sentence | ρ | top 3 shared | top head same | estimate top in exact top 3 | estimate ms | exact ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for group, sentence in sentences:
        source = handle.tokenizer.encode_source(sentence, handle.config.max_len)
        (target,) = greedy_decode(handle.model, [source])
        exact, exact_s = timed(head_importance, args.repeat, handle.model, source, target)
        estimate, estimate_s = timed(head_gradients, args.repeat, handle.model, source, target)
        a, b = flat(exact), flat(estimate)
        row = {
            "set": group,
            "sentence": sentence,
            "rho": spearman(a, b),
            "top3": top_overlap(a, b),
            "top_same": bool(np.argmax(a) == np.argmax(b)),
            "top_in_exact_3": bool(np.argmax(b) in np.argsort(-a)[:3]),
            "estimate_ms": 1000 * estimate_s,
            "exact_ms": 1000 * exact_s,
        }
        rows.append(row)
        print(
            f"| {group} | {sentence} | {row['rho']:.3f} | {row['top3']} | {'yes' if row['top_same'] else 'no'} | "
            f"{'yes' if row['top_in_exact_3'] else 'no'} | {row['estimate_ms']:.1f} | {row['exact_ms']:.1f} |",
            flush=True,
        )
    print(
        "\n| set | sentences | ρ mean [min-max] | top 3 shared (mean of 3) | top head same | estimate ms (median) "
        "| exact ms (median) |"
    )
    print("|---|---|---|---|---|---|---|")
    for group in ("example", "lecture", None):
        part = [r for r in rows if group is None or r["set"] == group]
        rhos = [r["rho"] for r in part]
        print(
            f"| {group or 'all'} | {len(part)} | {statistics.mean(rhos):.3f} [{min(rhos):.3f}-{max(rhos):.3f}] | "
            f"{statistics.mean(r['top3'] for r in part):.2f} | "
            f"{sum(r['top_same'] for r in part)} of {len(part)} | "
            f"{statistics.median(r['estimate_ms'] for r in part):.1f} | "
            f"{statistics.median(r['exact_ms'] for r in part):.1f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
