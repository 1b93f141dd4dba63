"""One hostile student's script against a class (issue 51), old design beside new in one run.

    python -m bench.hostile [--old-ref REV] [--checkpoint DIR] [--seconds 45] [--victim 48] [--pause 0]
                            [--questions attribution|npz|mixed] [--json OUT]

For each design `python app.py` is started on 127.0.0.1 (stopped by its PID). A victim on 127.0.0.2 (another
address) first measures its trace latency with the server idle: 48 sentences nobody asked before, one after
another (`--victim`; 16 until session 33, whose p95 was the slowest one or two of them). Then the script, from
127.0.0.1, for at most `--seconds`:

- floods the model: 36 loops asking traces and 12 asking questions (`--questions attribution`: attention against
  attribution; `npz` (or `--npz`): downloading the .npz of a new sentence, which computes its trace and its logit lens;
  `mixed`: the three costliest in turn, attribution, the .npz, and *Heads that matter* exact, which switches each
  head off in turn), each request a new sentence and
  a fresh client id: one it made up (in the old design that bought a fresh share of the server) and,
  where the server issues ids, one it was issued for that request;
- creates 50 rooms, one every 0.2 s (the old server held 50 at most);
- uploads 200 training files.

The script runs in a process of its own, as it would on a machine of its own: its client's work (48 loops of
requests) never delays the victim's in one event loop; both still share this machine's cores with the server.
Meanwhile the victim, who uploaded a file before the script began, measures its latency again on as many other new
sentences that cost the model what the idle ones did (`matched_halves`), and afterwards tries to create a room as a
lecturer and checks that its upload is still on the server (its file in the server's upload folder). Reported: the
victim's p50 and p95 idle and under attack, their ratio (the target is 1.5x or less), whether a new lecturer got a
room, whether the upload survived, and what the script got done and was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.app_latency import free_port, start_app, stop_app
from bench.common import checkouts
from bench.lecture_load import q
from explorer.app import SHIPPED_CHECKPOINT

WORDS = {
    "who": ["The teacher", "My sister", "A student", "The old man", "Our neighbour", "The child", "His friend"],
    "does": ["reads", "writes", "buys", "finds", "sees", "needs", "loves", "forgets"],
    "what": ["a book", "the letter", "a red car", "the small house", "an apple", "the new phone", "a long story"],
    "when": ["today", "every morning", "in the evening", "on Sunday", "after school", "at night", "in the park"],
}
TRACE_LOOPS, QUESTION_LOOPS, UPLOADS, ROOMS = 36, 12, 200, 50
VICTIM_SENTENCES = 48
FLOODING = 150  # the script's answers before the victim measures again: every loop of it is running by then


def sentences(seed: int, n: int) -> list[str]:
    """`n` different sentences the lecture model translates (no two designs or roles share one: every trace a miss)."""
    rng, made = random.Random(seed), {}
    while len(made) < n:
        s = " ".join(rng.choice(WORDS[part]) for part in ("who", "does", "what", "when"))
        made.setdefault(s + f" near house {rng.randrange(10**6)}.")
    return list(made)


def matched_halves(checkpoint: str, n: int, seed: int = 8) -> tuple[list[str], list[str]]:
    """Two lists of `n` new sentences that cost the model the same, for the victim's idle and attacked traces.

    `2n` sentences are decoded here (greedy, as the victim asks), sorted by their decode's size (target steps, then
    source tokens) and taken in pairs of neighbours, one of each pair to each list (which one goes first alternates);
    each list is then shuffled. Until session 33 the two were two draws of the generator, alike only by chance: the
    attacked draw held a sentence that takes 64 ms alone against a median of 33 ms, the idle draw none over 52 ms."""
    import torch

    from explorer.app.models import load_served
    from explorer.app.schemas import trace_request
    from explorer.interpret.trace import build_traces, plan_trace

    torch.set_num_threads(1)
    handle = next(iter(load_served([checkpoint]).values()))
    pool = sentences(seed, 2 * n)
    traces = build_traces(handle, [plan_trace(handle, trace_request(s)) for s in pool])
    ranked = sorted(range(2 * n), key=lambda i: (len(traces[i].steps), len(traces[i].source_ids), i))
    halves: tuple[list[str], list[str]] = ([], [])
    for pair in range(n):
        first, second = ranked[2 * pair], ranked[2 * pair + 1]
        halves[pair % 2].append(pool[first])
        halves[1 - pair % 2].append(pool[second])
    rng = random.Random(seed)
    for half in halves:
        rng.shuffle(half)
    return halves


def client(port: int, address: str, **kw) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address, limits=httpx.Limits(max_connections=200))
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}/ae/api", transport=transport, timeout=120, **kw)


async def latencies(victim: httpx.AsyncClient, said: list[str], pause_s: float = 0.0) -> list[float]:
    out = []
    for sentence in said:
        await asyncio.sleep(pause_s)
        t0 = time.perf_counter()
        r = await victim.get("/trace", params={"sentence": sentence})
        r.raise_for_status()
        out.append(time.perf_counter() - t0)
    return out


def attack_process(port: int, seconds: float, events: dict, seed: int, loops: tuple[int, int], asks: str, out) -> None:
    """The script, in its own process: `attack`'s counts are put on `out`."""
    got = asyncio.run(attack(port, seconds, events, seed, loops, asks))
    got["cpu_s"] = round(time.process_time(), 1)
    out.put(got)


async def attack(
    port: int, seconds: float, events: dict, seed: int, loops: tuple[int, int], asks: str = "attribution"
) -> dict:
    """The script's floods until `events["stop"]` or `seconds` (events shared between processes): what it got done
    and what was refused, by kind. It sets `events["flooding"]` once it has had `FLOODING` answers (its loops all
    running), and `events["rooms_made"]` once it has tried all its rooms."""
    stop, rooms_made = events["stop"], events["rooms_made"]
    kinds = ("trace", "question", "room", "upload")
    done, refused = dict.fromkeys(kinds, 0), dict.fromkeys(kinds, 0)
    deadline = time.monotonic() + seconds
    rng = random.Random(seed)

    async with client(port, "127.0.0.1") as script:

        async def fresh_id() -> str:
            try:  # an id the server issues, where it does (the old design has no such route: a made-up one)
                r = await script.post("/client")
                if r.status_code == 200:
                    return r.json()["client"]
            except httpx.HTTPError:
                pass
            return f"made-up-{rng.getrandbits(64):x}"

        def count(kind: str, r: httpx.Response) -> None:
            (done if r.status_code < 400 else refused)[kind] += 1
            if sum(done.values()) + sum(refused.values()) >= FLOODING:
                events["flooding"].set()

        async def traces(n: int):
            for sentence in sentences(seed * 1000 + n, 10_000):
                if stop.is_set() or time.monotonic() > deadline:
                    return
                r = await script.get("/trace", params={"sentence": sentence}, headers={"x-ae-client": await fresh_id()})
                count("trace", r)
                if r.status_code == 429:
                    await asyncio.sleep(0.05)

        async def questions(n: int):
            kinds = ["attribution", "npz", "heads"] if asks == "mixed" else [asks]
            for i, sentence in enumerate(sentences(seed * 1000 + 500 + n, 10_000)):
                if stop.is_set() or time.monotonic() > deadline:
                    return
                headers = {"x-ae-client": await fresh_id()}
                kind = kinds[(i + n) % len(kinds)]
                if kind == "npz":  # a download: the trace and its logit lens, compressed
                    r = await script.get("/npz", params={"sentence": sentence, "step": "1"}, headers=headers)
                else:
                    question = {"what": "heads", "method": "exact"} if kind == "heads" else {
                        "what": "attribution", "step": 1, "layer": 0, "head": 0
                    }  # fmt: skip
                    body = {"trace": {"sentence": sentence}, "question": question}
                    r = await script.post(f"/ask/{kind}", json=body, headers=headers)
                count("question", r)
                if r.status_code == 429:
                    await asyncio.sleep(0.05)

        async def rooms():
            for _ in range(ROOMS):
                count("room", await script.post("/room", headers={"x-ae-client": await fresh_id()}))
                await asyncio.sleep(0.2)
            rooms_made.set()

        async def uploads():
            for n in range(UPLOADS):
                if stop.is_set() or time.monotonic() > deadline:
                    return
                body = f"Flood {n} {rng.random()}.\tFlut {n}.\n".encode()
                headers = {"content-type": "text/tab-separated-values", "x-ae-client": await fresh_id()}
                count("upload", await script.post("/uploads", content=body, headers=headers))

        flood = [traces(n) for n in range(loops[0])] + [questions(n) for n in range(loops[1])]
        await asyncio.gather(*flood, rooms(), uploads())
    return {"done": done, "refused": refused}


async def one_design(
    port: int,
    seconds: float,
    loops: tuple[int, int],
    said: tuple[list[str], list[str]],
    pause_s: float = 0.0,
    asks: str = "attribution",
) -> dict:
    async with client(port, "127.0.0.2") as victim:
        await latencies(victim, sentences(7, 3))  # warm-up
        idle = await latencies(victim, said[0], pause_s)
        mine = f"I see the sea {random.random()}.\tIch sehe das Meer.\n".encode()
        upload = await victim.post("/uploads", content=mine, headers={"content-type": "text/tab-separated-values"})
        upload_id = upload.json().get("upload")
        spawn = multiprocessing.get_context("spawn")
        events, out = {name: spawn.Event() for name in ("stop", "flooding", "rooms_made")}, spawn.Queue()
        script = spawn.Process(target=attack_process, args=(port, seconds, events, 11, loops, asks, out))
        script.start()
        try:
            assert await asyncio.to_thread(events["flooding"].wait, 120), "the script never flooded"
            await asyncio.sleep(1.0)  # at full strength
            attacked = await latencies(victim, said[1], pause_s)
            await asyncio.to_thread(events["rooms_made"].wait, 120)
            room = await victim.post("/room")
            events["stop"].set()
            got = await asyncio.to_thread(out.get, True, 180)
        finally:
            script.join(30)
            if script.is_alive():
                script.kill()
        kept = any(Path(tempfile.gettempdir()).glob(f"ae-uploads-*/{upload_id}.tsv")) if upload_id else False
    return {
        "idle_p50_ms": round(1000 * statistics.median(idle)), "idle_p95_ms": round(1000 * q(idle, 0.95)),
        "attacked_p50_ms": round(1000 * statistics.median(attacked)),
        "attacked_p95_ms": round(1000 * q(attacked, 0.95)),
        "p95_ratio": round(q(attacked, 0.95) / q(idle, 0.95), 2),
        "lecturer_got_a_room": room.status_code == 200, "lecturer_room_answer": room.text[:160],
        "upload_kept": kept, "script": got,
        "idle_ms": [round(1000 * t) for t in idle], "attacked_ms": [round(1000 * t) for t in attacked],
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", action="append", default=[], help="also measure the design at this git revision")
    parser.add_argument("--seconds", type=float, default=45.0, help="the script's longest run")
    parser.add_argument("--victim", type=int, default=VICTIM_SENTENCES, help="the victim's traces, idle and attacked")
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="seconds the victim reads between two traces, idle and attacked (default 0: back to back, for as long as "
        "48 traces take; a crowd's batch waits for a person's a second at most, explorer/app/turns.py)",
    )
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--questions",
        choices=("attribution", "npz", "mixed"),
        default="attribution",
        help="what the question loops ask: attribution, the .npz download, or those and exact heads that matter",
    )
    parser.add_argument("--npz", action="store_true", help="the same as --questions npz")
    parser.add_argument(
        "--loops",
        type=int,
        nargs=2,
        default=(TRACE_LOOPS, QUESTION_LOOPS),
        metavar=("TRACES", "QUESTIONS"),
        help="the script's concurrent loops of traces and of questions (1 0: one polite classmate tracing back to "
        "back: a person, as the victim is, so the two compute side by side; explorer/app/turns.py)",
    )
    args = parser.parse_args()
    results, said = {}, matched_halves(args.checkpoint, args.victim)
    asks = "npz" if args.npz else args.questions
    with checkouts(args.old_ref) as designs:
        for name, cwd in designs:
            port = free_port()
            proc, _ = start_app(args.checkpoint, port, cwd=cwd)
            try:
                results[name] = asyncio.run(one_design(port, args.seconds, tuple(args.loops), said, args.pause, asks))
            finally:
                stop_app(proc)
    print("| design | victim trace p50 / p95, idle | under attack | p95 ratio (target ≤ 1.5) | a new lecturer's room "
          "| victim's upload kept | script: done (refused) traces · questions · rooms · uploads |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        s = r["script"]
        got = " · ".join(f"{s['done'][k]} ({s['refused'][k]})" for k in ("trace", "question", "room", "upload"))
        idle = f"{r['idle_p50_ms']} / {r['idle_p95_ms']} ms"
        attacked = f"{r['attacked_p50_ms']} / {r['attacked_p95_ms']} ms"
        room = "yes" if r["lecturer_got_a_room"] else "no: " + r["lecturer_room_answer"][:80]
        kept = "yes" if r["upload_kept"] else "no"
        print(f"| {name} | {idle} | {attacked} | {r['p95_ratio']}× | {room} | {kept} | {got} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
