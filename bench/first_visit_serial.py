"""What one first visit costs the server with nobody else on it: its requests one at a time, other designs beside.

    python -m bench.first_visit_serial [--refs REF ...] [--visits 100] [--rounds 2]

`bench/class_open.py` measures a class arriving at once, where a first view is about the server's time for every
visit before it; this measures that time alone. For each design (this checkout, and each REF checked out into a
temporary git worktree), `python app.py` starts on 127.0.0.1 (stopped by its PID), Chromium records a first visit
(class_open's `record`: the page and every request it makes until the heatmap is drawn), and the visit's requests,
less Gradio's queue (a long poll), are replayed one after another over one keep-alive connection `--visits` times.
Reported per design and round: wall-clock ms per visit, the server's CPU ms per visit (from /proc, 10 ms ticks
over the whole loop), and the requests per visit. The designs take turns round by round (the order reversed every
other round), so a busy moment of the machine falls on all of them.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.app_latency import free_port, start_app
from bench.class_open import Conn, cpu_seconds, record
from bench.common import checkouts, in_turns
from explorer.app import SHIPPED_CHECKPOINT


async def replay(port: int, visit: list[dict], visits: int, pid: int) -> dict:
    conn = Conn("127.0.0.1", port, {"bytes": 0}, "first-visit-serial")

    async def once():
        for item in visit:
            body = item["body"].encode() if item["body"] else None
            status, _ = await conn.request(item["method"], item["path"], body)
            if status >= 400:
                raise RuntimeError(f"{item['path']}: HTTP {status}")

    await once()  # warm: every file kept, every page rendered
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    for _ in range(visits):
        await once()
    wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    conn.close()
    return {"ms_per_visit": round(wall / visits * 1000, 2), "server_cpu_ms_per_visit": round(cpu / visits * 1000, 2)}


def measure(name: str, cwd, visits: int) -> dict:
    port = free_port()
    proc, _ = start_app(str(SHIPPED_CHECKPOINT), port, cwd=cwd)
    try:
        visit = [item for item in record(f"http://127.0.0.1:{port}/")["visit"] if "/queue/" not in item["path"]]
        return {"design": name, "requests": len(visit)} | asyncio.run(replay(port, visit, visits, proc.pid))
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refs", nargs="*", default=[])
    parser.add_argument("--visits", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with checkouts(args.refs) as designs:
        for k, name, cwd in in_turns(designs, args.rounds):
            rows.append({"round": k + 1} | measure(name, cwd, args.visits))
            print(rows[-1], flush=True)
    print("| round | design | requests | ms per visit | server CPU ms per visit |\n|---|---|---|---|---|")
    for r in rows:
        cells = [r["round"], r["design"], r["requests"], r["ms_per_visit"], r["server_cpu_ms_per_visit"]]
        print("| " + " | ".join(map(str, cells)) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
