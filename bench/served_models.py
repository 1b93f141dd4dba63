"""What serving a second shipped model costs a free CPU Space: start-up time and memory, one model against two.

    python -m bench.served_models [--repeat 3] [--json OUT]

Starts `python app.py` of this checkout alternately with the default model alone (`--checkpoint` one folder: the
design before two models were shipped) and with both shipped models (the default, `SHIPPED_MODELS`), `--repeat`
times each, and reports for each start: seconds until `/config` answers, the server's resident memory (VmRSS) then,
and after one trace of the long example with every served model (the traces are cached, so that memory stays), the
first trace's seconds, and whether `GET /ae/api/models` lists what was served. A free CPU Space has 16 GB of memory
and 2 cores; this machine has 2 cores. Every server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import urllib.parse
import urllib.request
from pathlib import Path

from bench.app_latency import free_port, start_app, stop_app
from bench.lecture_load import rss_mb
from explorer.app import SHIPPED_MODELS
from explorer.app.examples import EXAMPLES

LONG = max((s for s, _ in EXAMPLES), key=len)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


def one_start(paths: list[Path]) -> dict:
    port = free_port()
    args = ["--checkpoint", *map(str, paths)]
    proc, ready_s = start_app(str(paths[0]), port, args=args)
    try:
        base = f"http://127.0.0.1:{port}/ae/api"
        at_ready = rss_mb(proc.pid)
        listed = json.loads(get(base + "/models"))
        traces = []
        for model in listed:
            t0 = time.perf_counter()
            get(base + "/trace?" + urllib.parse.urlencode({"sentence": LONG, "model": model["key"]}))
            traces.append(time.perf_counter() - t0)
        return {
            "models": [m["key"] for m in listed],
            "ready_s": ready_s,
            "rss_ready_mb": at_ready,
            "rss_after_traces_mb": rss_mb(proc.pid),
            "first_trace_s": traces,
        }
    finally:
        stop_app(proc)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    designs = {"one model": [SHIPPED_MODELS[0]], "two models": list(SHIPPED_MODELS)}
    runs: dict[str, list[dict]] = {name: [] for name in designs}
    for _ in range(args.repeat):
        for name, paths in designs.items():  # alternating, so a drift of the machine hits both alike
            runs[name].append(one_start(paths))
            print(name, json.dumps(runs[name][-1]), flush=True)
    print("\n| design | ready (s), median [min-max] | RSS at ready (MB) | RSS after a trace of each (MB) |")
    print("|---|---|---|---|")
    for name, rows in runs.items():
        cells = [spread([r[key] for r in rows]) for key in ("ready_s", "rss_ready_mb", "rss_after_traces_mb")]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
