"""How long the server takes to trace each Translate-tab example, for several checkpoints in the same run.

A cold trace (a new session and an empty cache each time, as for a sentence nobody asked before: the whole decode
with every attention map, the rollout and the wire form) of every example sentence, with each checkpoint in turn,
interleaved over rounds after a warm-up; torch on the app's default of one thread. The lecture model's gate is the
long example (the last one) within 300 ms on a 2-core CPU. `--device cpu cuda` runs each checkpoint on each device
(`app.py --device`), the CPU beside the GPU in one run: whether a trace is faster on a GPU for so small a model.

    python -m bench.trace_time [--checkpoint DIR ...] [--device cpu [cuda]] [--threads 1] [--repeat 7] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from bench import common
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import EXAMPLES
from explorer.app.schemas import trace_request
from explorer.interpret.handle import load_handle, serving_device


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.trace_time", description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", nargs="+", default=[str(SHIPPED_CHECKPOINT)])
    parser.add_argument("--device", nargs="+", default=["cpu"], help="where each model runs (app.py --device)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (the app's default: 1)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    handles = {
        Path(c).name + ("" if args.device == ["cpu"] else f" on {d}"): load_handle(c, device=serving_device(d))
        for c in args.checkpoint
        for d in args.device
    }
    requests = [trace_request(sentence) for sentence, _ in EXAMPLES]
    times: dict[str, list[list[float]]] = {name: [[] for _ in requests] for name in handles}
    sizes: dict[str, list[tuple[int, int]]] = {}
    for round_ in range(args.repeat + 1):  # round 0 warms up
        for name, handle in handles.items():
            for i, request in enumerate(requests):
                start = time.perf_counter()
                wire = common.cold_trace(handle, request).wire
                seconds = time.perf_counter() - start
                if round_:
                    times[name][i].append(seconds)
                else:
                    sizes.setdefault(name, []).append((len(wire["source_ids"]), len(wire["target_ids"])))
    names = list(handles)
    print(f"Cold trace of each Translate-tab example, ms (median / max of {args.repeat}), {args.threads} thread(s)\n")
    print("| sentence | " + " | ".join(f"{n} (S, T) | {n} ms" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    results = {}
    for i, request in enumerate(requests):
        cells = []
        for n in names:
            median, worst = statistics.median(times[n][i]) * 1000, max(times[n][i]) * 1000
            cells += [f"{sizes[n][i]}", f"{median:.1f} / {worst:.1f}"]
            results.setdefault(n, []).append({"sentence": request.sentence, "median_ms": median, "max_ms": worst})
        print(f"| {request.sentence[:48]} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
