"""A class asks its questions at one instant: "heads that matter" and "explain a cell", old design beside new.

    python -m bench.class_questions [--students 200] [--old-ref REF] [--rounds 1] [--json OUT]

N students (each its own client id, one asyncio load generator on this machine, as a laptop serving its own class)
are numbered across the run; even students take the opening example, odd ones a sentence of their own (new to the
server). Phase 1, the traces: every student asks for the trace of its sentence at one instant. Phase 2, the
questions: at one instant, half of each group ask "heads that matter", the rest "explain a cell" (cross-attention at
the model's best head, the first step's row, the first source token). Reported per design: each phase's p50 / p95 /
max seconds and errors, the server's CPU seconds over the questions phase (user + system, /proc), its wall seconds,
the cores it used (CPU / wall), the CPU per question, and the load generator's own CPU seconds (it shares the cores).

Designs: this checkout asking for the one-pass estimate (the panel's first answer, `method: estimate`) and for the
exact answer (`method: exact`), and with `--old-ref` the design at that revision (a worktree), whose panel asked the
exact answer (`{"what": "heads"}`), with questions one at a time on two cores. Each design gets a fresh server
(`python app.py --checkpoint` the default model, 127.0.0.1 only, stopped by its PID).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.app_latency import ROOT, free_port, start_app, stop_app
from bench.lecture_load import cpu_s, q
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import OPENING_EXAMPLE

DEADLINE_S = 300  # one phase never runs longer than this
NUMBERS = itertools.count()  # students are numbered across the run: no own sentence is in a server's cache already


def own_sentence(i: int) -> str:
    return f"Student {i} reads the letter to her friend every morning."


async def phase(client: httpx.AsyncClient, calls: list) -> dict:
    """Run every (method, url, body, client id) at one instant; seconds and errors."""
    seconds: list[float] = []
    errors: list[str] = []

    async def one(method: str, url: str, body, who: str) -> None:
        t0 = time.perf_counter()
        try:
            answer = await client.request(method, url, json=body, headers={"x-ae-client": who})
            if answer.status_code != 200:
                raise RuntimeError(f"{answer.status_code} {answer.text[:120]}")
            answer.json()
            seconds.append(time.perf_counter() - t0)
        except Exception as exc:  # noqa: BLE001 - counted and reported
            errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")

    t0 = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(one(*c) for c in calls)), DEADLINE_S)
    return {
        "wall_s": time.perf_counter() - t0,
        "p50_s": round(q(seconds, 0.5), 3),
        "p95_s": round(q(seconds, 0.95), 3),
        "max_s": round(max(seconds), 3) if seconds else None,
        "errors": len(errors),
        "error_examples": sorted(set(errors))[:3],
    }


async def run_class(base: str, pid: int, n: int, heads: dict) -> dict:
    api = base + "ae/api"
    # idle connections dropped before uvicorn's 5 s keep-alive closes them (a reuse racing that close is a ReadError)
    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=n + 10, keepalive_expiry=4.0)
    async with httpx.AsyncClient(timeout=DEADLINE_S, limits=limits) as client:
        best = (await client.get(api + "/trace", params={"sentence": OPENING_EXAMPLE})).json()["model"]["best_head"]
        students = [next(NUMBERS) for _ in range(n)]
        sentence = {i: OPENING_EXAMPLE if i % 2 == 0 else own_sentence(i) for i in students}
        traces = await phase(
            client, [("GET", f"{api}/trace?{httpx.QueryParams(sentence=sentence[i])}", None, f"s{i}") for i in students]
        )
        explain = {
            "what": "explain",
            "kind": "cross",
            "layer": best["layer"],
            "head": best["head"],
            "row": 0,
            "column": 0,
        }
        calls = []
        for k, i in enumerate(students):  # half of each group asks each question
            question = heads if (k // 2) % 2 == 0 else explain
            calls.append(
                (
                    "POST",
                    f"{api}/ask/{question['what']}",
                    {"trace": {"sentence": sentence[i]}, "question": question},
                    f"s{i}",
                )
            )
        cpu0, client0 = cpu_s(pid), time.process_time()
        questions = await phase(client, calls)
        cpu, client_cpu = cpu_s(pid) - cpu0, time.process_time() - client0
    return {
        "traces": traces,
        "questions": questions,
        "server_cpu_s": round(cpu, 2),
        "client_cpu_s": round(client_cpu, 2),  # the load generator's, on the same cores
        "cores_used": round(cpu / questions["wall_s"], 2),
        "cpu_per_question_ms": round(1000 * cpu / n, 1),
    }


def measure(label: str, app_dir: Path, checkpoint: str, n: int, heads: dict, rounds: int) -> list[dict]:
    port = free_port()
    proc, _ = start_app(checkpoint, port, cwd=app_dir, args=["--checkpoint", checkpoint])
    base = f"http://127.0.0.1:{port}/"
    try:
        httpx.get(base + "ae/api/trace", params={"sentence": "The dog sees the cat."}, timeout=60)  # warm-up
        rows = []
        for _ in range(rounds):
            rows.append({"design": label} | asyncio.run(run_class(base, proc.pid, n, heads)))
            print(json.dumps(rows[-1]), flush=True)
        return rows
    finally:
        stop_app(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", default=None, help="also measure the design at this git revision")
    parser.add_argument("--rounds", type=int, default=1, help="classes per design, one after another")
    parser.add_argument("--old-first", action="store_true", help="measure the old design first (the order's effect)")
    parser.add_argument("--json")
    args = parser.parse_args()
    checkpoint = str(Path(args.checkpoint).resolve())
    n, rounds = args.students, args.rounds
    designs = [
        ("new: estimate first", ROOT, {"what": "heads", "method": "estimate"}),
        ("new: exact", ROOT, {"what": "heads", "method": "exact"}),
    ]
    worktree = None
    if args.old_ref:
        worktree = Path(tempfile.mkdtemp(prefix="class-questions-old-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.old_ref], cwd=ROOT, check=True)
        old = (f"old ({args.old_ref[:7]}): exact", worktree, {"what": "heads"})
        designs = [old, *designs] if args.old_first else [*designs, old]
    rows = []
    try:
        for label, app_dir, heads in designs:
            rows += measure(label, app_dir, checkpoint, n, heads, rounds)
    finally:
        if worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
            shutil.rmtree(worktree, ignore_errors=True)
    print(
        "\n| design | students | traces p95 | questions p50 | questions p95 | max | errors | server CPU s | wall s | "
        "cores used | CPU per question | load generator CPU s |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    for r in rows:
        t, qs = r["traces"], r["questions"]
        print(
            f"| {r['design']} | {n} | {t['p95_s']} s | {qs['p50_s']} s | {qs['p95_s']} s | {qs['max_s']} s | "
            f"{t['errors'] + qs['errors']} | {r['server_cpu_s']} | {qs['wall_s']:.2f} | {r['cores_used']} | "
            f"{r['cpu_per_question_ms']} ms | {r['client_cpu_s']} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
