"""What one *Heads that matter* question costs the engine, other designs beside: `head_importance` per sentence.

    python -m bench.heads_question [--refs REF ...] [--sentences 20] [--repeat 3] [--rounds 3] [--threads 2] [--profile]

The question a class asks most after its trace (bench/class_open.py: each student asks it about its own sentence,
and the server's two model slots take the questions in turn, so a class's burst of them is about this figure times
the sentences, over two). In one process per design and round (this checkout, and each REF checked out into a
temporary git worktree), the shipped model on `--threads` torch threads (each of the server's model slots runs on 1:
`app.py --threads`) decodes `--sentences` distinct sentences (class_open's own), then times `head_importance` of each
translation `--repeat` times. Reported per run: the mean per sentence, in wall-clock and process CPU time, and the
largest difference of a drop from the first design's (the answers must not change). The designs alternate round by
round, so a busy moment of the machine falls on all of them. With `--profile`, each design's last round also runs
under torch.profiler and the operators taking the most time are listed, in ms of CPU per question.
"""

from __future__ import annotations

import argparse


def inner(sentences: int, repeat: int, threads: int = 2, profile: bool = False) -> dict:
    """Measure the design importable here (this checkout, or a worktree on sys.path)."""
    import time

    import numpy as np
    import torch

    from explorer.app import SHIPPED_CHECKPOINT
    from explorer.interpret.decoding import greedy_decode
    from explorer.interpret.handle import load_handle
    from explorer.interpret.head_importance import head_importance

    torch.set_num_threads(threads)
    handle = load_handle(SHIPPED_CHECKPOINT)
    pairs = []
    for i in range(sentences):
        source = handle.tokenizer.encode_source(f"The student number {2 * i + 1} reads a new book today.")
        pairs.append((source, greedy_decode(handle.model, [source])[0]))
    head_importance(handle.model, *pairs[0])  # warm
    wall = cpu = 0.0
    for _ in range(repeat):
        for source, target in pairs:
            start, start_cpu = time.perf_counter(), time.process_time()
            answer = head_importance(handle.model, source, target)
            wall += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
    drops = np.concatenate([d.ravel() for d in answer.drops.values()]).tolist()  # the last sentence's
    n = repeat * sentences
    out = {"wall_ms": round(wall / n * 1000, 1), "cpu_ms": round(cpu / n * 1000, 1), "last_drops": drops}
    if profile:  # after the timing, which it would slow down
        with torch.profiler.profile() as prof:
            for source, target in pairs:
                head_importance(handle.model, source, target)
        ops = sorted(prof.key_averages(), key=lambda op: -op.self_cpu_time_total)[:8]
        out["ops"] = [(op.key, round(op.self_cpu_time_total / 1000 / sentences, 1)) for op in ops]
    return out


def measure(checkout, sentences: int, repeat: int, threads: int, profile: bool = False) -> dict:
    from bench.common import in_checkout  # here, not at the top: the checkout measured runs this file too

    return in_checkout(checkout, __file__, f"b.inner({sentences}, {repeat}, {threads}, {profile})")


def main() -> int:
    from bench.common import checkouts

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refs", nargs="*", default=[])
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="list each design's costliest operators (last round)")
    args = parser.parse_args()
    with checkouts(args.refs) as designs:
        rounds = range(args.rounds)
        rows = [
            (label, measure(path, args.sentences, args.repeat, args.threads, args.profile and k == args.rounds - 1))
            for k in rounds
            for label, path in designs
        ]
    reference = rows[0][1]["last_drops"]
    print("| design | head_importance per sentence, wall ms | CPU ms | largest change of a drop |\n|---|---|---|---|")
    for label, r in rows:
        change = max(abs(a - b) for a, b in zip(r["last_drops"], reference, strict=True))
        print(f"| {label} | {r['wall_ms']} | {r['cpu_ms']} | {change:.1e} |")
    for label, r in rows:
        if "ops" in r:
            print(f"\n{label}, CPU ms per question by operator: " + ", ".join(f"{op} {ms}" for op, ms in r["ops"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
