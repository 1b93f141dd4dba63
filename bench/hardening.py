"""Hardening, measured: what one careless or hostile client costs the server and everyone else.

    python -m bench.hardening [--checkpoint DIR] [--app-dir OLD] [--parts oversized flood visitors files] [--json OUT]

Each part runs against `python app.py` started here (127.0.0.1 only, stopped by its PID, under a 6 GiB cap on
its data segment). Traces and translations go through the app's API (`/ae/api`, one GET each, the caller named by
`X-AE-Client`) where it has one, else through Gradio's REST protocol (the design before issue 37, whose /trace and
/translate were Gradio events; their arguments filled from the app's own API description), so the same script
drives an older checkout (`--app-dir`, e.g. `git worktree add OLD a268da4`). The Train tab's events are Gradio's
in both: parts 3 and 4 drive designs before issue 51 only (since then training is the API's, `POST /ae/api/train`,
and no Gradio event, session or file exists; `bench/hostile.py` measures what a hostile client costs now).
1. oversized: a 50 MB request (a question about a 50 MB sentence; before, a /trace event of one), three times: its
   answer, the server's CPU seconds until it is idle again (less its idle rate, measured just before) and its RSS
   growth;
   then a victim's /trace of new sentences, alone and while four 50 MB requests are sent at once.
2. flood: one session sends 150 /translate calls at once (distinct sentences); a victim's /trace latency
   meanwhile; how many of the flood were served, refused with a message, or failed otherwise.
3. visitors: a session trains a model (0.2 min), then 1,000 visitors arrive (each a page load's /trace of an
   example with its own session; every tenth reloads, a second session); after every 250 (275 new sessions)
   the trainer asks for its model (/choose_model); the server's RSS then.
4. files (a server with 30 s lifetimes, --session-idle-minutes 0.5 --files-max-age-minutes 0.5): 50 .npz
   downloads (`/ae/api/npz`, as the viewer asks) from 10 browsers and 3 trainings (one on an uploaded TSV);
   the files in Gradio's cache and the temporary folder at the start, after, and the seconds until they are back
   to the start count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

from bench.app_latency import ROOT, free_port, start_app
from bench.lecture_load import EXAMPLES, cpu_s, q, rss_mb
from explorer.app import SHIPPED_CHECKPOINT

TINY = "tiny (d_model 64, 2+2 layers, 4 heads)"
DATA_CAP = 6 * 2**30
FILE_LIFETIME_MIN = 0.5


def cap_memory():
    resource.setrlimit(resource.RLIMIT_DATA, (DATA_CAP, DATA_CAP))


class App:
    """A running app and the calls this bench makes to it."""

    def __init__(self, checkpoint: str, app_dir: str, args=(), env=None):
        self.port = free_port()
        self.proc, self.ready_s = start_app(
            checkpoint, self.port, cwd=app_dir, args=args, env=env, preexec_fn=cap_memory
        )
        self.base = f"http://127.0.0.1:{self.port}/"
        self.info = httpx.get(self.base + "gradio_api/info", timeout=30).json()["named_endpoints"]
        self.config = httpx.get(self.base + "config", timeout=30).json()
        # the one API (issue 37) serves traces and translations; before it, Gradio's /trace and /translate did
        described = httpx.get(self.base + "ae/api/openapi.json", timeout=30)
        self.api = described.status_code == 200 and "openapi" in described.text[:200]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except Exception:  # noqa: BLE001
            self.proc.kill()

    def data(self, api: str, values: dict) -> list:
        """The argument list of `api`: `values` by parameter name, the app's defaults for the rest."""
        params = self.info[api]["parameters"]
        return [values.get(p["parameter_name"], p.get("parameter_default")) for p in params]

    def join_body(self, api: str, values: dict, session: str) -> dict:
        """A /queue/join body for `api` as a browser sends it: every input in order, None for session state."""
        index, dep = next(
            (i, d) for i, d in enumerate(self.config["dependencies"]) if d.get("api_name") == api.strip("/")
        )
        types = {c["id"]: c["type"] for c in self.config["components"]}
        given = iter(self.data(api, values))
        data = [None if types.get(i) == "state" else next(given) for i in dep["inputs"]]
        return {"data": data, "fn_index": dep.get("id", index), "session_hash": session, "trigger_id": None}

    async def call(self, client: httpx.AsyncClient, api: str, values: dict, session: str, timeout: float = 300):
        """One call (the API's GET, or a Gradio event via /gradio_api/call): (ok, output or message, seconds)."""
        t0 = time.perf_counter()
        if self.api and api in ("/trace", "/translate"):
            sentence = values.get("sentence", values.get("text"))
            r = await client.get(
                f"{self.base}ae/api{api}",
                params={"sentence": sentence},
                headers={"x-ae-client": session},
                timeout=timeout,
            )
            answer = r.json()
            return (
                r.status_code == 200,
                answer if r.status_code == 200 else answer.get("error"),
                time.perf_counter() - t0,
            )
        r = await client.post(
            f"{self.base}gradio_api/call{api}",
            json={"data": self.data(api, values), "session_hash": session},
            timeout=timeout,
        )
        if r.status_code != 200:
            return False, f"HTTP {r.status_code}: {r.text[:200]}", time.perf_counter() - t0
        event = r.json()["event_id"]
        kind = None
        async with client.stream("GET", f"{self.base}gradio_api/call{api}/{event}", timeout=timeout) as stream:
            async for line in stream.aiter_lines():
                if line.startswith("event:"):
                    kind = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and kind in ("complete", "error"):
                    payload = json.loads(line[5:].strip())
                    if kind == "error" and isinstance(payload, dict):
                        payload = payload.get("error")
                    return kind == "complete", payload, time.perf_counter() - t0
        return False, "stream closed", time.perf_counter() - t0


# ----- 1. oversized ---------------------------------------------------------------------------
def post_huge(app: App, size: int) -> tuple[int, str, float]:
    """A request about a sentence of `size` characters: a question to the API (before it: a /trace event joined to
    Gradio's queue, as a browser sent it)."""
    if app.api:
        url = app.base + "ae/api/ask/heads"
        body = json.dumps({"trace": {"sentence": "x" * size}, "question": {"what": "heads"}}).encode()
    else:
        url = app.base + "gradio_api/queue/join"
        body = json.dumps(app.join_body("/trace", {"sentence": "x" * size}, uuid.uuid4().hex)).encode()
    t0 = time.perf_counter()
    try:
        r = httpx.post(url, content=body, headers={"Content-Type": "application/json"}, timeout=120)
        return r.status_code, r.text[:160], time.perf_counter() - t0
    except httpx.HTTPError as exc:
        return -1, f"{type(exc).__name__}: {exc}"[:160], time.perf_counter() - t0


def settled_cost(app: App, idle_per_s: float, cpu0: float, rss0: float, t0: float) -> dict:
    """The server's CPU and RSS growth from `t0` until its CPU is back to idle (0.5 s windows, at most 60 s)."""
    peak = rss_mb(app.proc.pid)
    while time.perf_counter() - t0 < 60:
        w0 = cpu_s(app.proc.pid)
        time.sleep(0.5)
        peak = max(peak, rss_mb(app.proc.pid))
        if cpu_s(app.proc.pid) - w0 <= idle_per_s * 0.5 + 0.02:
            break
    elapsed = time.perf_counter() - t0
    return {
        "server_cpu_s": round(cpu_s(app.proc.pid) - cpu0 - idle_per_s * elapsed, 3),
        "over_s": round(elapsed, 1),
        "peak_rss_growth_mb": round(peak - rss0, 1),
        "rss_growth_after_mb": round(rss_mb(app.proc.pid) - rss0, 1),
    }


async def victim(app: App, n: int, tag: str) -> list[float]:
    """`n` /trace calls of sentences the server has not seen, one after another; their seconds."""
    seconds = []
    async with httpx.AsyncClient() as client:
        session = uuid.uuid4().hex
        for i in range(n):
            ok, out, s = await app.call(
                client, "/trace", {"sentence": f"The victim {tag} reads book number {i} today."}, session
            )
            seconds.append(s if ok else float("inf"))
    return seconds


def part_oversized(app: App) -> dict:
    size = 50 * 10**6
    requests = []
    for _ in range(3):
        time.sleep(1.0)
        cpu0 = cpu_s(app.proc.pid)
        time.sleep(2.0)
        idle_per_s = (cpu_s(app.proc.pid) - cpu0) / 2  # the reference: the same server, idle
        cpu0, rss0, t0 = cpu_s(app.proc.pid), rss_mb(app.proc.pid), time.perf_counter()
        status, text, seconds = post_huge(app, size)
        cost = settled_cost(app, idle_per_s, cpu0, rss0, t0)
        requests.append(
            {
                "status": status,
                "answer": text,
                "seconds": round(seconds, 3),
                "idle_cpu_s_per_s": round(idle_per_s, 3),
                **cost,
            }
        )
    alone = asyncio.run(victim(app, 20, "alone"))
    threads = [threading.Thread(target=post_huge, args=(app, size)) for _ in range(4)]
    peak = {"rss": rss_mb(app.proc.pid)}
    for t in threads:
        t.start()

    def watch():
        while any(t.is_alive() for t in threads):
            peak["rss"] = max(peak["rss"], rss_mb(app.proc.pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    during = asyncio.run(victim(app, 20, "during"))
    for t in threads + [watcher]:
        t.join()
    return {
        "requests": requests,
        "victim_alone_p50_s": round(q(alone, 0.5), 3),
        "victim_alone_max_s": round(max(alone), 3),
        "victim_during_p50_s": round(q(during, 0.5), 3),
        "victim_during_max_s": round(max(during), 3),
        "peak_rss_during_mb": round(peak["rss"], 0),
    }


# ----- 2. flood -------------------------------------------------------------------------------
async def flood(app: App, n: int) -> dict:
    """One browser sends `n` /translate calls at once (the API's GETs with one X-AE-Client; before it, one Gradio
    session's protocol: n joins, one event stream)."""
    session = uuid.uuid4().hex
    outcomes: dict[str, tuple[bool, object]] = {}
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=n + 10)) as client:
        victim_task = asyncio.create_task(victim(app, 10, "flooded"))
        t0 = time.perf_counter()
        events, rejected = set(), []
        if app.api:
            sentences = [f"The flood sends sentence number {i} to the server." for i in range(n)]
            calls = [app.call(client, "/translate", {"sentence": text}, session) for text in sentences]
            answers = await asyncio.gather(*calls)
            outcomes = {str(i): (ok, out) for i, (ok, out, _) in enumerate(answers)}
            events = set(outcomes)
        else:
            await join_flood(app, client, n, session, outcomes, events, rejected)
        flood_s = time.perf_counter() - t0
        victim_s = await victim_task
    served = sum(ok for ok, _ in outcomes.values())
    messages = [str(out) for ok, out in outcomes.values() if not ok] + rejected
    refused = [m for m in messages if "requests running" in m]
    other = [m[:120] for m in messages if m not in refused] + ["no answer"] * (len(events) - len(outcomes))
    return {
        "flood_calls": n,
        "served": served,
        "refused_with_message": len(refused),
        "other_failures": len(other),
        "other_examples": sorted(set(other))[:3],
        "refusal": refused[0] if refused else None,
        "flood_s": round(flood_s, 2),
        "victim_p50_s": round(q(victim_s, 0.5), 3),
        "victim_max_s": round(max(victim_s), 3),
    }


async def join_flood(app: App, client: httpx.AsyncClient, n: int, session: str, outcomes, events, rejected):
    """The flood through Gradio's queue (the design before the API): n joins of /translate, one event stream."""
    bodies = [
        app.join_body("/translate", {"text": f"The flood sends sentence number {i} to the server."}, session)
        for i in range(n)
    ]
    joined = await asyncio.gather(
        *(client.post(app.base + "gradio_api/queue/join", json=b, timeout=60) for b in bodies)
    )
    events.update(r.json()["event_id"] for r in joined if r.status_code == 200)
    rejected.extend(f"HTTP {r.status_code}: {r.text[:100]}" for r in joined if r.status_code != 200)
    async with client.stream("GET", f"{app.base}gradio_api/queue/data?session_hash={session}", timeout=300) as stream:
        async for line in stream.aiter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") == "process_completed" and message.get("event_id") in events:
                output = message.get("output") or {}
                outcomes[message["event_id"]] = (
                    bool(message.get("success")),
                    output.get("data") or output.get("error"),
                )
                if len(outcomes) == len(events):
                    break


# ----- 3. visitors ----------------------------------------------------------------------------
async def train(app: App, client: httpx.AsyncClient, session: str, upload=None) -> tuple[bool, object]:
    values = {"corpus": "upload" if upload else "mini", "upload": upload, "preset": TINY, "minutes": 0.2, "seed": 0}
    ok, out, _ = await app.call(client, "/train", values, session, timeout=300)
    return ok, out


async def visitors(app: App, n: int, concurrency: int = 16) -> dict:
    trainer = uuid.uuid4().hex
    rss = {0: round(rss_mb(app.proc.pid))}
    checks, lost_at = [], None
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency + 4)) as client:
        ok, out = await train(app, client, trainer)
        if not ok:
            return {"error": f"training failed: {out}"}
        gate = asyncio.Semaphore(concurrency)
        errors = []

        async def visit(i):
            async with gate:
                for _ in range(2 if i % 10 == 0 else 1):  # every tenth reloads: a second session
                    ok, out, _ = await app.call(
                        client, "/trace", {"sentence": EXAMPLES[i % len(EXAMPLES)]}, uuid.uuid4().hex
                    )
                    if not ok:
                        errors.append(str(out)[:120])

        for start in range(0, n, 250):
            await asyncio.gather(*(visit(i) for i in range(start, min(n, start + 250))))
            ok, out, _ = await app.call(client, "/choose_model", {"use_own": True}, trainer)
            ok = ok and "your model" in str(out[0])  # "Exploring **your model (tiny, N steps)**"
            out = out[0] if isinstance(out, list) else out
            checks.append(ok)
            if not ok and lost_at is None:
                lost_at = min(n, start + 250)
                lost_message = out
            rss[min(n, start + 250)] = round(rss_mb(app.proc.pid))
    result = {
        "visitors": n,
        "sessions": n + (n + 9) // 10 + 1,
        "rss_mb": rss,
        "trainer_kept_model": all(checks),
        "errors": len(errors),
        "error_examples": sorted(set(errors))[:3],
    }
    if lost_at is not None:
        result.update(trainer_lost_model_after=lost_at, lost_message=str(lost_message)[:200])
    return result


# ----- 4. files -------------------------------------------------------------------------------
def count_files(folders) -> int:
    return sum(1 for folder in folders for p in Path(folder).rglob("*") if p.is_file())


async def export(app: App, client: httpx.AsyncClient, session: str, sentence: str, step: int) -> bool:
    """One .npz download as the viewer makes it: the plain route, made in memory (no file on the server)."""
    params = {"sentence" if app.api else "s": sentence, "step": step, "client": session}  # before the API: s=
    r = await client.get(app.base + "ae/api/npz", params=params, timeout=60)
    return r.status_code == 200 and r.content[:2] == b"PK"


async def files_part(app: App, folders, tsv: Path) -> dict:
    start_count = count_files(folders)
    exported = 0
    async with httpx.AsyncClient() as client:
        sessions = [uuid.uuid4().hex for _ in range(10)]
        for session in sessions:
            for step in range(1, 6):
                exported += await export(app, client, session, EXAMPLES[0], step)
        with tsv.open("rb") as f:
            uploaded = (
                await client.post(app.base + "gradio_api/upload", files={"files": (tsv.name, f)}, timeout=60)
            ).json()[0]
        upload = {"path": uploaded, "orig_name": tsv.name, "meta": {"_type": "gradio.FileData"}}
        trained = [(await train(app, client, uuid.uuid4().hex, upload if i == 0 else None))[0] for i in range(3)]
    after = count_files(folders)
    t0 = time.perf_counter()
    while count_files(folders) > start_count and time.perf_counter() - t0 < 600:
        await asyncio.sleep(1)
    return {
        "exports": exported,
        "trainings": sum(trained),
        "files_at_start": start_count,
        "files_after": after,
        "files_at_end": count_files(folders),
        "seconds_until_back": round(time.perf_counter() - t0, 1),
        "lifetimes_min": FILE_LIFETIME_MIN,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument(
        "--app-dir", default=str(ROOT), help="checkout whose app.py to run (an older design, for comparison)"
    )
    parser.add_argument("--parts", nargs="+", default=["oversized", "flood", "visitors", "files"])
    parser.add_argument("--visitors", type=int, default=1000)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    results = {"app_dir": args.app_dir}
    if set(args.parts) & {"oversized", "flood", "visitors"}:
        app = App(args.checkpoint, args.app_dir)
        try:
            results["ready_s"] = round(app.ready_s, 1)
            asyncio.run(victim(app, 1, "warm-up"))
            if "oversized" in args.parts:
                results["oversized"] = part_oversized(app)
                print(json.dumps(results["oversized"], indent=1), flush=True)
            if "flood" in args.parts:
                results["flood"] = asyncio.run(flood(app, 150))
                print(json.dumps(results["flood"], indent=1), flush=True)
            if "visitors" in args.parts:
                results["visitors"] = asyncio.run(visitors(app, args.visitors))
                print(json.dumps(results["visitors"], indent=1), flush=True)
        finally:
            app.stop()
    if "files" in args.parts:
        with tempfile.TemporaryDirectory() as root:
            folders = [Path(root, "gradio"), Path(root, "tmp")]
            for folder in folders:
                folder.mkdir()
            tsv = Path(root, "pairs.tsv")
            tsv.write_text(
                "".join(f"The dog number {i} is big.\tDer Hund Nummer {i} ist groß.\n" for i in range(60)),
                encoding="utf-8",
            )
            env = dict(os.environ, GRADIO_TEMP_DIR=str(folders[0]), TMPDIR=str(folders[1]))
            lifetimes = [
                "--session-idle-minutes",
                str(FILE_LIFETIME_MIN),
                "--files-max-age-minutes",
                str(FILE_LIFETIME_MIN),
            ]
            app = App(args.checkpoint, args.app_dir, lifetimes, env)
            try:
                results["files"] = asyncio.run(files_part(app, folders, tsv))
                print(json.dumps(results["files"], indent=1), flush=True)
            finally:
                app.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
