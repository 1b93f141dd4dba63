"""App latency through the real HTTP API: ready time, one trace (new and cached) against a no-op, payloads.

    python -m bench.app_latency [--checkpoint checkpoints/tatoeba-en-de] [--steps 15] [--json OUT]

Starts `python app.py` as a subprocess (as a user would), measures the time until it answers HTTP,
then drives it through its API as the README shows (httpx): `GET /ae/api/trace` of a long sentence the server has
not seen (one whole decode with every attention map) and of the same sentence again (from the shared cache), with
the payload size. Stepping and switching heads cost no request in the trace design (bench/browser_step.py times
them). The reference measured in the same run is `GET /ae/api/positional?positions=1`, a route whose handler does
almost nothing, which is the floor that HTTP and the API's validation add to every call.
Targets: ready <= 8 s, payload <= 150 KB.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from explorer.app import SHIPPED_CHECKPOINT

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "When I was a child, I often went to school by bus because my parents did not have a car."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_app(proc: subprocess.Popen, timeout: float = 15) -> None:
    """Stop a server `start_app` started, by its PID: terminate, then kill if it has not gone within `timeout` s."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def start_app(
    checkpoint: str, port: int, cwd: str | Path = ROOT, args=(), env: dict | None = None, preexec_fn=None
) -> tuple[subprocess.Popen, float]:
    """`python app.py` of the checkout in `cwd` on 127.0.0.1:port (with extra `args`, environment `env`); returns it
    and its seconds to HTTP 200. Its output goes to a temporary file (a pipe nobody reads could block it)."""
    env = dict(env or os.environ, GRADIO_ANALYTICS_ENABLED="False")
    log = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "app.py", "--checkpoint", checkpoint, "--port", str(port), *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        preexec_fn=preexec_fn,
    )
    url = f"http://127.0.0.1:{port}/"
    while time.perf_counter() - t0 < 120:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"app exited: {log.read().decode(errors='replace')[-2000:]}")
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
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--steps", type=int, default=10, help="new sentences per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    import httpx

    proc, ready_s = start_app(args.checkpoint, free_port())
    try:
        api = httpx.Client(base_url=f"http://127.0.0.1:{proc.args[-1]}/ae/api", timeout=120)

        def trace(sentence):
            return api.get("/trace", params={"sentence": sentence}).json()

        floor, cold, warm, sizes = [], [], [], []
        for r in range(args.rounds):
            for i in range(args.steps):
                _, ms = timed(api.get, "/positional", params={"positions": 1})
                floor.append(ms)
                out, ms = timed(trace, f"{SENTENCE} ({r}.{i})")  # a new sentence: decoded
                cold.append(ms)
                sizes.append(payload_bytes(out))
                _, ms = timed(trace, f"{SENTENCE} ({r}.{i})")  # again: from the cache
                warm.append(ms)
    finally:
        proc.terminate()
        proc.wait(10)

    def q(values, p):
        return sorted(values)[min(len(values) - 1, int(p * len(values)))]

    result = {
        "ready_s": round(ready_s, 2),
        "trace_new_median_ms": round(statistics.median(cold), 1),
        "trace_new_p90_ms": round(q(cold, 0.9), 1),
        "trace_cached_median_ms": round(statistics.median(warm), 1),
        "floor_median_ms": round(statistics.median(floor), 1),
        "trace_over_floor": round(statistics.median(cold) / statistics.median(floor), 2),
        "trace_payload_kb_max": round(max(sizes) / 1024, 1),
        "traces_measured": len(cold),
    }
    print("| measure | value | target |\n|---|---|---|")
    print(f"| app ready (process start → HTTP 200) | {result['ready_s']} s | ≤ 8 s |")
    print(
        f"| /trace of a new long sentence, median (p90) | {result['trace_new_median_ms']} ms "
        f"({result['trace_new_p90_ms']} ms) | ≤ 150 ms + floor |"
    )
    print(f"| /trace of the same sentence again (cache), median | {result['trace_cached_median_ms']} ms | |")
    print(f"| reference: /positional?positions=1 (no-op) round trip, median | {result['floor_median_ms']} ms | |")
    print(f"| new trace / no-op ratio | {result['trace_over_floor']}× | |")
    print(f"| /trace payload, largest | {result['trace_payload_kb_max']} KB | ≤ 150 KB |")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
