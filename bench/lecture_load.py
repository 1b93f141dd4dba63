"""A class opening the Space at once: N simulated students, each its own client, against `python app.py`.

    python -m bench.lecture_load [--students 1 30 60 120 200] [--checkpoint DIR] \\
        [--app-dir DIR --old-design] [--json OUT]

Each student gets its own session and connection and, all starting within one second, asks for a trace
of one of the Translate tab's examples or of a sentence of its own (half and half), then does what the
viewer does for 15 steps and 4 head switches. With the trace design that costs no request: the student
decodes the wire arrays it received (client CPU only). With `--old-design` (run against a checkout of the
design before the trace, `--app-dir`), the same student calls /start, 15 × /next_token and 4 × /attention,
each a server round trip. Requests go through Gradio's queue by its REST protocol (POST /call, then the
event stream), to 127.0.0.1 only, bounded in count and time; the server is stopped by its PID.
One request before the first class warms the server up (Gradio's first event costs ~0.5 s once; it is
reported apart). Reports the first-request (trace or /start) p50/p95, every request's p50/p95, errors,
requests/s, the server's RSS and CPU seconds, and this load generator's own CPU (it shares the 2 cores
with the server). Each round's own sentences are new to the server (no cache hits from an earlier round).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import ssl
import statistics
import sys
import time
import uuid
from pathlib import Path

import httpx

from bench.app_latency import ROOT, free_port, start_app
from explorer.app import SHIPPED_CHECKPOINT

EXAMPLES = [
    "I know that he reads a book every day.",
    "The train arrives at eight o'clock.",
    "She calls her mother every evening.",
    "I have seen the big dog in the garden.",
    "We want to buy a new car tomorrow.",
    "The man gives the woman the book.",
    "The little girl likes her new teacher.",
    "When I was a child, I often went to school by bus because my parents did not have a car.",
]
NOUNS = ["book", "letter", "song", "story", "poem", "paper", "menu", "message", "report", "recipe"]
DEADLINE_S = 240  # one class round never runs longer than this


def own_sentence(i: int) -> str:
    return f"Student {i} reads the {NOUNS[i % len(NOUNS)]} to her friend every morning."


async def call(client: httpx.AsyncClient, base: str, api: str, data: list, session: str):
    """One event through Gradio's queue; returns (output list, seconds)."""
    t0 = time.perf_counter()
    r = await client.post(f"{base}gradio_api/call/{api}", json={"data": data, "session_hash": session})
    r.raise_for_status()
    event = r.json()["event_id"]
    kind, payload = None, None
    async with client.stream("GET", f"{base}gradio_api/call/{api}/{event}") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and kind in ("complete", "error"):
                payload = line[5:].strip()
                break
    if kind != "complete":
        raise RuntimeError(f"{api}: {kind} {payload}")
    return json.loads(payload), time.perf_counter() - t0


def decode_wire(wire: dict) -> int:
    """What the viewer does with a trace: unpack every attention array (numbers only, no drawing)."""
    import base64

    import numpy as np

    n = 0
    for array in list(wire["attention"].values()) + [wire["scores"]["decoder_self"]]:
        n += np.frombuffer(base64.b64decode(array["data"]), np.dtype(array["dtype"])).size
    return n


async def student(i: int, base: str, old: bool, record: dict, start_at: float, tls: ssl.SSLContext):
    sentence = random.Random(i).choice(EXAMPLES) if i % 2 == 0 else own_sentence(i)
    session = uuid.uuid4().hex
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    # its own client and connection; the TLS context (unused on http://127.0.0.1) is built once, not per student,
    # because building one costs ~20 ms of the load generator's CPU, which it shares with the server
    async with httpx.AsyncClient(timeout=120, verify=tls) as client:
        try:
            if old:
                view = ["cross", "2", "1"]
                _, s = await call(client, base, "start", [sentence, "greedy", 1.0, 0, 0, 4, 0.6, "", *view], session)
                record["first"].append(s)
                record["all"].append(s)
                for _ in range(15):
                    _, s = await call(client, base, "next_token", view, session)
                    record["all"].append(s)
                for head in ("0", "2", "3", "mean"):
                    _, s = await call(client, base, "attention", ["cross", "2", head], session)
                    record["all"].append(s)
            else:
                out, s = await call(
                    client, base, "trace", [sentence, "greedy", 1.0, 0, 0, 4, 0.6, "", [], [], [], False], session
                )
                record["first"].append(s)
                record["all"].append(s)
                decode_wire(out[0])  # 15 steps and 4 head switches are drawn from it with no request
        except Exception as exc:  # noqa: BLE001 - counted and reported
            record["errors"].append(f"{type(exc).__name__}: {str(exc)[:120]}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_class(n: int, base: str, old: bool, server_pid: int, round_no: int) -> dict:
    record = {"first": [], "all": [], "errors": []}
    start_at = time.perf_counter() + 0.2
    tls = ssl.create_default_context()
    tasks = [
        student(round_no * 1000 + i, base, old, record, start_at + random.Random(i).random(), tls) for i in range(n)
    ]
    t0, cpu0, server0 = time.perf_counter(), time.process_time(), cpu_s(server_pid)
    await asyncio.wait_for(asyncio.gather(*tasks), DEADLINE_S)
    wall = time.perf_counter() - t0
    return {
        "record": record,
        "wall_s": wall,
        "client_cpu_s": time.process_time() - cpu0,
        "server_cpu_s": cpu_s(server_pid) - server0,
    }


async def warm_up(base: str, old: bool) -> float:
    """One request before the class: the first event after start costs Gradio ~0.5 s once (reported apart)."""
    async with httpx.AsyncClient(timeout=120) as client:
        data = (
            ["A dog.", "greedy", 1.0, 0, 0, 4, 0.6, "", "cross", "2", "1"]
            if old
            else ["A dog.", "greedy", 1.0, 0, 0, 4, 0.6, "", [], [], [], False]
        )
        _, seconds = await call(client, base, "start" if old else "trace", data, uuid.uuid4().hex)
        return seconds


def q(values, p):
    return sorted(values)[min(len(values) - 1, int(p * len(values)))] if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 30, 60, 120, 200])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument(
        "--app-dir", default=str(ROOT), help="checkout whose app.py to run (the old design for --old-design)"
    )
    parser.add_argument(
        "--old-design", action="store_true", help="drive /start, /next_token, /attention instead of /trace"
    )
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    proc, ready = start_app(args.checkpoint, free_port(), cwd=args.app_dir)
    base = f"http://127.0.0.1:{proc.args[-1]}/"
    rows = []
    try:
        cold = asyncio.run(warm_up(base, args.old_design))
        for round_no, n in enumerate(args.students):
            result = asyncio.run(one_class(n, base, args.old_design, proc.pid, round_no))
            r = result["record"]
            rows.append(
                {
                    "students": n,
                    "first_p50_s": round(statistics.median(r["first"]), 3) if r["first"] else None,
                    "first_p95_s": round(q(r["first"], 0.95), 3),
                    "request_p50_s": round(statistics.median(r["all"]), 3) if r["all"] else None,
                    "request_p95_s": round(q(r["all"], 0.95), 3),
                    "requests": len(r["all"]),
                    "errors": len(r["errors"]),
                    "error_examples": sorted(set(r["errors"]))[:3],
                    "requests_per_s": round(len(r["all"]) / result["wall_s"], 1),
                    "wall_s": round(result["wall_s"], 1),
                    "server_rss_mb": round(rss_mb(proc.pid), 0),
                    "client_cpu_s": round(result["client_cpu_s"], 2),
                    "server_cpu_s": round(result["server_cpu_s"], 2),
                }
            )
            time.sleep(1.0)
    finally:
        proc.terminate()
        proc.wait(15)
    design = "old design (/start + 15 /next_token + 4 /attention)" if args.old_design else "trace design (one /trace)"
    print(
        f"{design}; app ready in {ready:.1f} s; the first request after start (warm-up, not counted) took {cold:.2f} "
        "s\n"
    )
    print(
        "| students | first request p50 / p95 | every request p50 / p95 | requests | errors | requests/s | server RSS "
        "| server CPU | load generator CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['students']} | {row['first_p50_s']} / {row['first_p95_s']} s | {row['request_p50_s']} / "
            f"{row['request_p95_s']} s | "
            f"{row['requests']} | {row['errors']} | {row['requests_per_s']} | {row['server_rss_mb']:.0f} MB | "
            f"{row['server_cpu_s']} s | "
            f"{row['client_cpu_s']} s |"
        )
        for example in row["error_examples"]:
            print(f"|   error: {example} |||||||")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"design": design, "ready_s": ready, "warm_up_s": cold, "rows": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
