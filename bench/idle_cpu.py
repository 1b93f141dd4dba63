"""What a served app costs with nobody there: its CPU over an idle while, and how often its event loop wakes.

    python -m bench.idle_cpu [--refs REF ...] [--rounds 2] [--seconds 20] [--checkpoint DIR] [--json OUT]

Starts `python app.py` (127.0.0.1 only, stopped by its PID) of this checkout and, with `--refs`, of each git revision
checked out into a temporary worktree, the designs taking turns (the order reversed every other round). Each server,
once it answers, is left alone 3 s, then its CPU (user + system, from /proc) is read over `--seconds`; with strace on
the machine, its `epoll_pwait` calls over 5 s more count how often its event loop woke. A Space on a free CPU pays
this for as long as it is up, and a lecture's event streams wait behind each wake-up.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time

from bench.app_latency import free_port, start_app
from bench.class_open import cpu_seconds
from bench.common import checkouts, in_turns
from explorer.app import SHIPPED_CHECKPOINT

SETTLE_S, WAKES_S = 3.0, 5


def wakes_per_s(pid: int) -> float | None:
    """The server's event-loop wake-ups a second (its `epoll_pwait` calls, all threads), or None without strace."""
    if shutil.which("strace") is None:
        return None
    polls = ("epoll_pwait", "epoll_wait")
    strace = ["strace", "-c", "-f", "-e", "trace=" + ",".join(polls), "-p", str(pid)]
    traced = subprocess.run(["timeout", "-s", "INT", str(WAKES_S), *strace], capture_output=True, text=True)
    calls = [line.split() for line in traced.stderr.splitlines() if line.strip().endswith(polls)]
    return round(sum(int(row[3]) for row in calls) / WAKES_S, 1) if calls else None


def one_design(name: str, cwd, checkpoint: str, seconds: float) -> dict:
    proc, ready = start_app(checkpoint, free_port(), cwd=cwd)
    try:
        time.sleep(SETTLE_S)
        cpu0 = cpu_seconds(proc.pid)
        time.sleep(seconds)
        cpu = cpu_seconds(proc.pid) - cpu0
        return {
            "design": name,
            "idle_s": seconds,
            "server_cpu_s": round(cpu, 3),
            "core_percent": round(100 * cpu / seconds, 2),
            "wakes_per_s": wakes_per_s(proc.pid),
        }
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refs", nargs="*", default=[], help="other designs: git revisions, each in a worktree")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    with checkouts(args.refs) as designs:
        for _, name, cwd in in_turns(designs, args.rounds):
            rows.append(one_design(name, cwd, args.checkpoint, args.seconds))
            print(json.dumps(rows[-1]), flush=True)
    print("| design | rounds | % of a core, median | range | wake-ups a second, median |\n|---|---|---|---|---|")
    for design in dict.fromkeys(r["design"] for r in rows):
        mine = [r for r in rows if r["design"] == design]
        share = [r["core_percent"] for r in mine]
        wakes = [r["wakes_per_s"] for r in mine if r["wakes_per_s"] is not None]
        woke = statistics.median(wakes) if wakes else "n/a"
        print(f"| {design} | {len(mine)} | {round(statistics.median(share), 2)} | {min(share)}-{max(share)} | {woke} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
