"""What a class's batch of new sentences costs the engine: `build_traces` on N sentences at once, other designs beside.

    python -m bench.batch_trace [--refs REF ...] [--batch 32] [--repeat 5] [--rounds 3]

In one process per design and round (this checkout, and each REF checked out into a temporary git worktree), the
shipped model on 2 threads traces `--batch` distinct sentences together, as the model line
(`explorer/app/scheduler.py`) batches a class's sentences, `--repeat` times. Reported per run: the mean time of
`build_traces`, and of its teacher-forced pass (the recorded maps, and the logit lens where the design computes it).
The designs alternate round by round, so a busy moment of the machine falls on all of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def inner(batch: int, repeat: int) -> dict:
    """Measure the design importable here (this checkout, or a worktree on sys.path)."""
    import time

    import torch

    from explorer.app import SHIPPED_CHECKPOINT, schemas
    from explorer.interpret import trace as traces
    from explorer.interpret.handle import load_handle

    torch.set_num_threads(2)
    handle = load_handle(SHIPPED_CHECKPOINT)

    def request(sentence: str):
        if hasattr(schemas, "trace_request"):
            return schemas.trace_request(sentence)
        return schemas.TraceQuery(sentence=sentence).to_request()  # an older design's query model

    sentences = [f"The student number {i} reads a long book about the old city." for i in range(batch)]
    plans = [traces.plan_trace(handle, request(s)) for s in sentences]
    traces.build_traces(handle, plans[:4])  # warm
    forced = {"s": 0.0}
    teacher_forced = traces._teacher_forced

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return teacher_forced(*args, **kwargs)
        finally:
            forced["s"] += time.perf_counter() - start

    traces._teacher_forced = timed
    start = time.perf_counter()
    for _ in range(repeat):
        traces.build_traces(handle, plans)
    total = time.perf_counter() - start
    return {"build_traces_ms": round(total / repeat * 1000), "teacher_forced_ms": round(forced["s"] / repeat * 1000)}


def measure(checkout: Path, batch: int, repeat: int) -> dict:
    from bench.common import in_checkout  # here, not at the top: the checkout measured runs this file too

    return in_checkout(checkout, __file__, f"b.inner({batch}, {repeat})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refs", nargs="*", default=[])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from bench.common import checkouts

    with checkouts(args.refs) as designs:
        rows = [(label, measure(path, args.batch, args.repeat)) for _ in range(args.rounds) for label, path in designs]
    print(f"| design | build_traces of {args.batch} ms | of which the teacher-forced pass ms |\n|---|---|---|")
    for label, r in rows:
        print(f"| {label} | {r['build_traces_ms']} | {r['teacher_forced_ms']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
