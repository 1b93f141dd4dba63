"""App latency through the real HTTP API: ready time, one decoding step, the all-heads overview, payloads.

    python bench/app_latency.py [--checkpoint checkpoints/tatoeba-en-de] [--steps 15] [--json OUT]

Starts `python app.py` as a subprocess (as a user would), measures the time until it answers HTTP,
then drives it with gradio_client: `/next_token` round trips (each re-renders chips, the top-k chart
and the attention heatmap) and `/overview` for every kind, with their response sizes. The reference
measured in the same run is `/presentation`, an endpoint whose handler does almost nothing, which
is the floor that Gradio's queue and HTTP add to every call.
Targets: step <= 100 ms, overview payload <= 300 KB, ready <= 8 s.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "When I was a child, I often went to school by bus because my parents did not have a car."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(checkpoint: str, port: int) -> tuple[subprocess.Popen, float]:
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "app.py", "--checkpoint", checkpoint, "--port", str(port)], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    while time.perf_counter() - t0 < 120:
        if proc.poll() is not None:
            raise RuntimeError(f"app exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "config", timeout=2) as r:
                if r.status == 200:
                    return proc, time.perf_counter() - t0
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("app did not become ready in 120 s")


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, (time.perf_counter() - t0) * 1000


def payload_bytes(result) -> int:
    return len(json.dumps(result, ensure_ascii=False).encode())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "tatoeba-en-de"))
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="sentences decoded step by step")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    from gradio_client import Client

    proc, ready_s = start_app(args.checkpoint, free_port())
    try:
        client = Client(f"http://127.0.0.1:{proc.args[-1]}/", verbose=False)
        view = ("cross", "0", "mean")
        floor, steps, step_sizes = [], [], []
        for _ in range(args.rounds):
            client.predict(SENTENCE, "greedy", 1.0, 0, 0, 4, 0.6, "", *view, api_name="/start")
            for _ in range(args.steps):
                _, ms = timed(client.predict, False, api_name="/presentation")
                floor.append(ms)
                out, ms = timed(client.predict, *view, api_name="/next_token")
                steps.append(ms)
                step_sizes.append(payload_bytes(out))
        overview = {}
        for kind in ("encoder_self", "decoder_self", "cross"):
            times = []
            for _ in range(3):
                out, ms = timed(client.predict, kind, api_name="/overview")
                times.append(ms)
            overview[kind] = {"median_ms": round(statistics.median(times), 1), "payload_kb": round(payload_bytes(out) / 1024, 1)}
    finally:
        proc.terminate()
        proc.wait(10)

    def q(values, p):
        return sorted(values)[min(len(values) - 1, int(p * len(values)))]

    result = {
        "ready_s": round(ready_s, 2),
        "step_median_ms": round(statistics.median(steps), 1),
        "step_p90_ms": round(q(steps, 0.9), 1),
        "floor_median_ms": round(statistics.median(floor), 1),
        "step_over_floor": round(statistics.median(steps) / statistics.median(floor), 2),
        "step_payload_kb_max": round(max(step_sizes) / 1024, 1),
        "overview": overview,
        "steps_measured": len(steps),
    }
    print("| measure | value | target |\n|---|---|---|")
    print(f"| app ready (process start → HTTP 200) | {result['ready_s']} s | ≤ 8 s |")
    print(f"| /next_token round trip, median (p90) | {result['step_median_ms']} ms ({result['step_p90_ms']} ms) | ≤ 100 ms |")
    print(f"| reference: /presentation (no-op) round trip, median | {result['floor_median_ms']} ms | |")
    print(f"| step / no-op ratio | {result['step_over_floor']}× | |")
    print(f"| /next_token payload, largest | {result['step_payload_kb_max']} KB | |")
    for kind, o in overview.items():
        print(f"| /overview {kind}: median time, payload | {o['median_ms']} ms, {o['payload_kb']} KB | ≤ 300 KB |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
