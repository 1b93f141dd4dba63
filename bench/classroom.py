"""A class follows the lecturer: N students on the room's event stream, 60 view changes, 5 questions.

    python -m bench.classroom [--followers 30 100 200] [--refs REF ...] [--rounds 1] [--checkpoint DIR] [--json OUT]

Starts `python app.py` (127.0.0.1 only, stopped by its PID) of this checkout and, with `--refs`, of each git revision
checked out into a temporary worktree, one at a time; with `--rounds K` the designs take turns K times (the order
reversed every other round), so a busy moment of the machine falls on all of them, and a summary gives each design's
median p95 and server CPU over the rounds. For each N, with a light client (raw asyncio, one connection per student
for its event stream, a new one for each answer, as a browser after an idle while):
1. the lecturer creates a room and N followers connect to `/ae/api/room/CODE/events`;
2. the lecturer makes 60 view changes at one per second (the step, head and layer change as a lecturer's would);
   each follower's receipt time minus the change's send time is the latency;
3. 5 questions: the lecturer asks, every follower answers within 3 s (spread at random), and the lecturer's own
   stream must show all N answers counted; "counted" is the time from the last answer's reply to that event.
Reports latency p50/p95/max, counted-after-last p50/max, errors (failed requests, dropped streams, missed events),
the server's CPU seconds and RSS growth over the whole run, and this client's own CPU. Targets at 200 followers:
p95 <= 250 ms, counted <= 1 s, 0 errors, RSS growth <= 100 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time

from bench.app_latency import free_port, start_app
from bench.class_open import cpu_seconds, pct, rss_mb
from bench.common import checkouts, in_turns
from explorer.app import SHIPPED_CHECKPOINT

HOST = "127.0.0.1"
CHANGES, QUESTIONS, ANSWER_WITHIN_S = 60, 5, 3.0
VIEW = {"trace": {"sentence": "The dog sees the cat."}, "kind": "cross", "layer": 0, "head": 0, "view": "heatmap"}


async def post(port: int, path: str, body: dict, headers: dict | None = None, conn=None) -> tuple[int, dict]:
    """One POST over `conn` (reader, writer), opened here if not given; returns (status, JSON answer)."""
    reader, writer = conn or await asyncio.open_connection(HOST, port)
    data = json.dumps(body).encode()
    head = f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    answer = json.loads(await reader.readexactly(length)) if length else {}
    if conn is None:
        writer.close()
    return status, answer


class Stream:
    """One event stream: each event's name, data and arrival time, in order."""

    def __init__(self, port: int, code: str, key: str | None = None):
        self.port, self.code, self.key = port, code, key
        self.events: list[tuple[str, dict, float]] = []
        self.ready = asyncio.Event()
        self.error: str | None = None

    async def run(self):
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port)
            query = f"?key={self.key}" if self.key else ""
            writer.write(f"GET /ae/api/room/{self.code}/events{query} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            await writer.drain()
            if b" 200 " not in await reader.readline():
                raise ConnectionError("refused")
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            name, buffer = None, b""
            while True:
                size = int((await reader.readline()).split(b";")[0] or b"0", 16)  # chunked transfer
                if size == 0:
                    return
                buffer += (await reader.readexactly(size + 2))[:size]
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    for line in block.decode().splitlines():
                        if line.startswith("event: "):
                            name = line[7:]
                        elif line.startswith("data: "):
                            self.events.append((name, json.loads(line[6:]), time.perf_counter()))
                            self.ready.set()
                            if name == "end":
                                return
        except (OSError, ConnectionError, ValueError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()


async def one_class(port: int, pid: int, n: int) -> dict:
    random.seed(n)
    cpu0, rss0, own0 = cpu_seconds(pid), rss_mb(pid), time.process_time()
    status, made = await post(port, "/ae/api/room", {})
    code, lecturer = made["code"], {"X-AE-Lecturer": made["key"]}
    watch = Stream(port, code, made["key"])
    followers = [Stream(port, code) for _ in range(n)]
    tasks = [asyncio.create_task(s.run()) for s in [watch, *followers]]
    await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in [watch, *followers])), 60)
    sent: list[float] = []
    for i in range(CHANGES):  # 2. one change a second
        view = VIEW | {"step": i % 12, "head": i % 4, "layer": (i // 4) % 3}
        sent.append(time.perf_counter())
        await post(port, f"/ae/api/room/{code}/view", view, lecturer)
        await asyncio.sleep(1.0)
    latencies, missed = [], 0
    for s in followers:
        arrivals = [t for name, _, t in s.events if name == "view"]
        missed += max(0, CHANGES - len(arrivals))
        latencies += [t - t0 for t, t0 in zip(arrivals, sent)]
    counted, errors = [], 0
    for q in range(QUESTIONS):  # 3. ask, everyone answers within a few seconds, the lecturer sees the count
        seen = len(watch.events)
        _, asked = await post(
            port, f"/ae/api/room/{code}/question", {"step": 2, "layer": 0, "head": q % 4, "sources": 8}, lecturer
        )

        async def answer(j: int, asked=asked):  # a new connection: the server closes idle ones after 5 s
            token = followers[j].events[0][1]["token"]  # each page's own, from its stream's first event
            await asyncio.sleep(random.uniform(0, ANSWER_WITHIN_S))
            status, _ = await post(
                port,
                f"/ae/api/room/{code}/answer",
                {"question": asked["id"], "pick": j % 8, "token": token},
            )
            return status, time.perf_counter()

        results = await asyncio.gather(*(answer(j) for j in range(n)))
        errors += sum(status != 200 for status, _ in results)
        last = max(t for _, t in results)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 10:
            shown = [t for name, data, t in watch.events[seen:] if name == "answered" and data["answered"] >= n]
            if shown:
                counted.append(max(0.0, shown[0] - last))
                break
            await asyncio.sleep(0.01)
        else:
            errors += 1
        await post(port, f"/ae/api/room/{code}/reveal", {}, lecturer)
    await post(port, f"/ae/api/room/{code}/end", {}, lecturer)
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    dropped = sum(s.error is not None or not s.events or s.events[-1][0] != "end" for s in followers)
    return {
        "followers": n,
        "latency_p50_ms": round(1000 * pct(latencies, 50), 1),
        "latency_p95_ms": round(1000 * pct(latencies, 95), 1),
        "latency_max_ms": round(1000 * max(latencies), 1),
        "counted_after_last_p50_ms": round(1000 * pct(counted, 50), 1) if counted else None,
        "counted_after_last_max_ms": round(1000 * max(counted), 1) if counted else None,
        "errors": errors + dropped + missed,
        "server_cpu_s": round(cpu_seconds(pid) - cpu0, 2),
        "server_rss_growth_mb": round(rss_mb(pid) - rss0, 1),
        "load_generator_cpu_s": round(time.process_time() - own0, 2),
    }


def run_design(name: str, cwd, checkpoint: str, followers: list[int]) -> list[dict]:
    """Every class size against one design's server, started here and stopped by its PID."""
    port = free_port()
    proc, ready = start_app(checkpoint, port, cwd=cwd)
    rows = []
    try:
        for n in followers:
            rows.append({"design": name, "server_ready_s": round(ready, 1)} | asyncio.run(one_class(port, proc.pid, n)))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """Per design and class size: the median (and range) of the rounds' p95 latency and server CPU."""
    out = []
    for design in dict.fromkeys(r["design"] for r in rows):
        for n in dict.fromkeys(r["followers"] for r in rows):
            mine = [r for r in rows if r["design"] == design and r["followers"] == n]
            p95, cpu = [r["latency_p95_ms"] for r in mine], [r["server_cpu_s"] for r in mine]
            out.append(
                {
                    "design": design,
                    "followers": n,
                    "rounds": len(mine),
                    "p95_ms_median": round(statistics.median(p95), 2),
                    "p95_ms_range": f"{min(p95)}-{max(p95)}",
                    "server_cpu_s_median": round(statistics.median(cpu), 2),
                    "errors": sum(r["errors"] for r in mine),
                }
            )
    return out


def markdown(rows: list[dict]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    return "\n".join(lines + ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, nargs="+", default=[30, 100, 200])
    parser.add_argument("--refs", nargs="*", default=[], help="other designs: git revisions, each in a worktree")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    with checkouts(args.refs) as designs:
        for _, name, cwd in in_turns(designs, args.rounds):
            rows += run_design(name, cwd, args.checkpoint, args.followers)
    print(markdown(rows))
    if args.rounds > 1 or args.refs:
        print()
        print(markdown(summary(rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "summary": summary(rows)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
