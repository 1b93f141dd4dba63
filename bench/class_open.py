"""A class opens the page at once: a real first visit, recorded in Chromium, replayed for N students together.

    python -m bench.class_open [--students 1 30 100 200] [--checkpoint DIR] [--old-ref REF] [--rounds 1] [--json OUT]

For each design (this checkout, and with `--old-ref` the one at a git revision, checked out into a temporary
worktree and served the same way):
1. Record: Chromium (playwright, Debian's /usr/bin/chromium) opens the page once and waits until the heatmap
   is drawn; every request it made is kept (method, path, body), except Gradio's heartbeat (a long poll that
   carries nothing). Then it types a sentence and presses Enter, clicks a heatmap cell (explain it),
   presses "Heads that matter" and steps to the end of the translation (End: where the page asks what beam search
   writes, since issue 68), and keeps the requests each action made: that is what a student does next.
2. Replay: N students start together. Each opens the page as a browser does: the page on one connection,
   then every other request over up to 6 keep-alive connections; a queued Gradio event (POST queue/join
   and its event stream) counts as done when its `process_completed` arrives. "First view" is the time
   until all of it is done. Then each asks for its trace (half the opening example, half a sentence of its
   own, numbered across the run's classes so that none is in the server's cache already), the two questions and
   the step to the end, with its own session id and sentence put in the recorded requests.
   The load generator is raw asyncio keep-alive HTTP/1.1 (it shares the 2 cores with the server: httpx
   cost more CPU than the server it measured); its own CPU is reported.
With `--rounds K` the designs take turns K times, the order reversed every other round (so neither always goes
first), each round on a fresh server; the table then gives each figure's median over the rounds.
Reports, per design and class size: first view p50/p95/max, own trace p50/p95, question p95, to the end p95, errors,
server CPU per student (from /proc), bytes on the wire per student (headers and compressed bodies as
received), requests per first visit. Talks to 127.0.0.1 only, bounded in count and time; every server is
stopped by its PID and the worktree removed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

from bench.app_latency import ROOT, free_port, start_app
from bench.common import in_turns, viewer_page
from explorer.app import SHIPPED_CHECKPOINT

MARK = "The little dog sees the big cat."  # the sentence typed while recording, replaced by each student's own
OPENING = "I know that he reads a book every day."  # the Translate tab's opening example (cached on the server)
CONNECTIONS = 6  # a browser's connections per host
TIMEOUT_S = 240  # one request at most
SKIP = ("/heartbeat/",)  # long polls that carry nothing for the first view
# The centre of the heatmap's first cell on its canvas, from the first row's and first column's labels as the page
# shows them (a rotated column label ends at its column's centre).
FIRST_CELL = """() => {
  const div = document.querySelector('.ae-heat'), box = div.querySelector('canvas').getBoundingClientRect();
  const row = div.querySelector('.ae-tick-row').getBoundingClientRect(), label = div.querySelector('.ae-tick-column');
  const r = label.getBoundingClientRect(), line = parseFloat(getComputedStyle(label).lineHeight);
  const rotated = label.classList.contains('ae-tick-rotated');
  const x = rotated ? r.right - (line / 2) * Math.sin(Math.PI / 3) : (r.left + r.right) / 2;
  return [x - box.left, (row.top + row.bottom) / 2 - box.top];
}"""


# ----- recording ------------------------------------------------------------------------------------
def record(url: str) -> dict:
    """The requests of a first visit and of the three actions, as Chromium made them."""
    from playwright.sync_api import sync_playwright

    phases: dict[str, list] = {"visit": [], "trace": [], "explain": [], "heads": [], "end": []}
    current = ["visit"]
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = viewer_page(browser, viewport={"width": 1366, "height": 768})

        def keep(request):
            path = request.url.split("//", 1)[1].split("/", 1)[1]
            if any(s in request.url for s in SKIP) or not request.url.startswith(url):
                return
            phases[current[0]].append({"method": request.method, "path": "/" + path, "body": request.post_data})

        page.on("request", keep)
        page.on("pageerror", lambda error: print(f"page error while recording: {error}", file=sys.stderr))
        page.goto(url, wait_until="load")
        page.wait_for_selector(".ae-root canvas", timeout=120_000)
        page.wait_for_timeout(1500)  # the page's load event and late fonts
        current[0] = "trace"
        page.fill("#sentence textarea", MARK)
        page.press("#sentence textarea", "Enter")
        page.wait_for_function(f"() => window.aeViewer && window.aeViewer.trace.request.sentence === {MARK!r}")
        page.locator(".ae-toolbar button", has_text="Next").click()  # a new sentence opens at step 0: one token in
        page.wait_for_function("() => window.aeViewer.state.step === 1")
        page.wait_for_timeout(500)
        current[0] = "explain"
        x, y = page.evaluate(FIRST_CELL)  # the first cell of the first row: it exists for every student's sentence
        with page.expect_response(lambda r: "/ae/api/ask/explain" in r.url, timeout=120_000):  # the answer arrived
            page.locator(".ae-heat canvas").click(position={"x": x, "y": y})
        page.wait_for_timeout(300)
        current[0] = "heads"
        with page.expect_response(lambda r: "/ae/api/ask/heads" in r.url, timeout=120_000):
            page.get_by_role("button", name="Heads that matter").click()
        page.wait_for_timeout(300)
        current[0] = "end"
        page.keyboard.press("End")  # the last step: the page asks what beam search writes (a design that does)
        page.wait_for_function("() => window.aeViewer.state.step === window.aeViewer.trace.T")
        page.wait_for_timeout(1000)
        browser.close()
    return phases


# ----- a light HTTP/1.1 client -------------------------------------------------------------------------
class Conn:
    """One keep-alive connection; `request` returns (status, bytes received, body)."""

    def __init__(self, host: str, port: int, stats: dict, client: str = ""):
        self.host, self.port, self.stats, self.client = host, port, stats, client
        self.reader = self.writer = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: bytes | None = None, sse_until: bytes | None = None):
        if self.writer is None:
            await self.open()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept-Encoding: gzip, deflate, br\r\n"
        head += f"User-Agent: class-open-bench\r\nAccept: */*\r\nX-AE-Client: {self.client}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        size, length, chunked, close = len(status_line), None, False, False
        while True:
            line = await self.reader.readline()
            size += len(line)
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
        body_out = b""
        if chunked:
            while True:
                line = await self.reader.readline()
                n = int(line.split(b";")[0].strip() or b"0", 16)
                chunk = await self.reader.readexactly(n + 2) if n else await self.reader.readline()
                size += len(line) + len(chunk)
                body_out += chunk[:n]
                if n == 0 or (sse_until is not None and sse_until in body_out):
                    break
            if sse_until is not None:  # an event stream: this connection is not reused
                close = True
        elif length is not None:
            body_out = await self.reader.readexactly(length) if length else b""
            size += length
        elif status not in (204, 304):
            body_out = await self.reader.read()
            size += len(body_out)
            close = True
        self.stats["bytes"] += size
        if close:
            self.close()
        return status, body_out

    def close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# ----- one student ------------------------------------------------------------------------------------
def personal(item: dict, session: str, sentence: str, recorded_session: str | None) -> dict:
    """A recorded request with this student's session id and sentence in place of the recorded ones."""
    path, body = item["path"], item["body"]
    if recorded_session:
        path = path.replace(recorded_session, session)
        body = body.replace(recorded_session, session) if body else body
    path = path.replace(quote(MARK).replace("%20", "+"), quote(sentence).replace("%20", "+"))
    path = path.replace(quote(MARK, safe=""), quote(sentence, safe=""))
    if body:
        body = body.replace(MARK, sentence)
    return {"method": item["method"], "path": path, "body": body}


async def run_requests(items: list[dict], conns: list[Conn], stats: dict) -> None:
    """`items` over the connections, as a browser spreads them; a queued event waits for its completion."""
    queue = list(items)
    sse = [i for i in queue if "/queue/data" in i["path"]]
    joins = [i for i in queue if "/queue/join" in i["path"]]
    queue = [i for i in queue if i not in sse]
    event_ids = []

    async def worker(conn: Conn):
        while queue:
            item = queue.pop(0)
            body = item["body"].encode() if item["body"] else None
            try:
                status, answer = await asyncio.wait_for(conn.request(item["method"], item["path"], body), TIMEOUT_S)
            except Exception:  # noqa: BLE001 - counted, and the connection is replaced
                stats["errors"] += 1
                conn.close()
                continue
            if status >= 400:
                stats["errors"] += 1
            if item in joins:
                try:
                    event_ids.append(json.loads(answer)["event_id"])
                except (ValueError, KeyError):
                    stats["errors"] += 1

    await asyncio.gather(*(worker(c) for c in conns))
    for item in sse[: len(event_ids)]:  # each queued event's stream, to its end
        conn = Conn(conns[0].host, conns[0].port, stats)
        until = b'"process_completed"'
        try:
            status, stream = await asyncio.wait_for(conn.request("GET", item["path"], sse_until=until), TIMEOUT_S)
            if status >= 400 or until not in stream or b'"success":false' in stream.replace(b" ", b""):
                stats["errors"] += 1
        except Exception:  # noqa: BLE001
            stats["errors"] += 1
        conn.close()


async def student(
    i: int, host: str, port: int, phases: dict, session_of: str | None, start_at: float, visited: Barrier, number: int
) -> dict:
    stats = {"bytes": 0, "errors": 0}
    sentence = OPENING if i % 2 == 0 else f"The student number {number} reads a new book today."
    session = uuid.uuid4().hex[:11]
    mine = {k: [personal(x, session, sentence, session_of) for x in v] for k, v in phases.items()}
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    t0 = time.perf_counter()
    conns = [Conn(host, port, stats, session) for _ in range(CONNECTIONS)]
    out = {}
    try:
        await run_requests(mine["visit"][:1], conns[:1], stats)  # the page, then what it names
        await run_requests(mine["visit"][1:], conns, stats)
        out["first_view"] = time.perf_counter() - t0
        visit_bytes = stats["bytes"]
        await visited.wait()  # the class has opened the page: the server's CPU for first visits is read here
        for name in ("trace", "explain", "heads", "end"):
            t = time.perf_counter()
            await run_requests(mine[name], conns[:2], stats)
            out[name] = time.perf_counter() - t
        out["visit_bytes"] = visit_bytes
    finally:
        for c in conns:
            c.close()
    return out | stats


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that it waited for, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mean(values: list[float]) -> float:
    return statistics.mean(values) if values else float("nan")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


class Barrier:
    """Every student waits here after its first view; the last to arrive reads the server's CPU."""

    def __init__(self, n: int, pid: int):
        self.n, self.pid, self.arrived, self.event, self.cpu = n, pid, 0, asyncio.Event(), None

    async def wait(self):
        self.arrived += 1
        if self.arrived == self.n:
            self.cpu = cpu_seconds(self.pid)
            self.event.set()
        await self.event.wait()


async def one_class(n: int, port: int, phases: dict, session_of: str | None, pid: int, first: int = 0) -> dict:
    """`n` students together; their own sentences are numbered from `first`, so none was asked by an earlier class."""
    cpu0, own0 = cpu_seconds(pid), resource.getrusage(resource.RUSAGE_SELF)
    start_at = time.perf_counter() + 0.2
    visited = Barrier(n, pid)
    results = await asyncio.gather(
        *(student(i, "127.0.0.1", port, phases, session_of, start_at, visited, first + i) for i in range(n)),
        return_exceptions=True,
    )
    own1 = resource.getrusage(resource.RUSAGE_SELF)
    done = [r for r in results if isinstance(r, dict) and "end" in r]
    errors = sum(r["errors"] for r in done) + (n - len(done))
    first = [r["first_view"] for r in done]
    return {
        "students": n,
        "first_view_p50_s": round(pct(first, 50), 3),
        "first_view_p95_s": round(pct(first, 95), 3),
        "first_view_max_s": round(max(first), 3) if first else None,
        "trace_p50_s": round(pct([r["trace"] for r in done], 50), 3),
        "trace_p95_s": round(pct([r["trace"] for r in done], 95), 3),
        "questions_p95_s": round(pct([r["explain"] for r in done] + [r["heads"] for r in done], 95), 3),
        "end_p95_s": round(pct([r["end"] for r in done], 95), 3),
        "errors": errors,
        "server_cpu_per_first_visit_ms": round(((visited.cpu or cpu_seconds(pid)) - cpu0) / n * 1000, 1),
        "server_cpu_per_student_ms": round((cpu_seconds(pid) - cpu0) / n * 1000, 1),
        "first_visit_kb_per_student": round(statistics.mean(r["visit_bytes"] for r in done) / 1024, 1)
        if done
        else None,
        "kb_per_student": round(statistics.mean(r["bytes"] for r in done) / 1024, 1) if done else None,
        "server_rss_mb": round(rss_mb(pid), 1),
        "load_generator_cpu_s": round(own1.ru_utime + own1.ru_stime - own0.ru_utime - own0.ru_stime, 2),
    }


def session_in(phases: dict) -> str | None:
    for item in phases["visit"] + phases["trace"]:
        match = re.search(r"session_hash=([a-z0-9]+)", item["path"]) or re.search(
            r'"session_hash":\s*"([a-z0-9]+)"', item["body"] or ""
        )
        if match:
            return match.group(1)
    return None


def measure(design: str, cwd: Path, checkpoint: str, sizes: list[int], env: dict | None = None) -> list[dict]:
    port = free_port()
    proc, ready_s = start_app(checkpoint, port, cwd=cwd, env=env)
    try:
        phases = record(f"http://127.0.0.1:{port}/")
        session = session_in(phases)
        visit = phases["visit"]
        print(
            f"{design}: ready in {ready_s:.1f} s; a first visit is {len(visit)} requests "
            f"({sum('/queue/join' in x['path'] for x in visit)} queued events); trace {len(phases['trace'])}, "
            f"explain {len(phases['explain'])}, heads {len(phases['heads'])}, end {len(phases['end'])} requests",
            flush=True,
        )
        asyncio.run(one_class(1, port, phases, session, proc.pid))  # warm: compression, first renders
        rows, first = [], 1  # the warm-up's one student asks about the opening example
        for n in sizes:
            row = asyncio.run(one_class(n, port, phases, session, proc.pid, first))
            first += n  # the next class's own sentences are new to the server
            row |= {"design": design, "requests_per_first_visit": len(visit)}
            print(json.dumps(row), flush=True)
            rows.append(row)
            time.sleep(2)
        return rows
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def table(rows: list[dict]) -> str:
    cols = [
        ("design", "design"),
        ("students", "students"),
        ("first_view_p50_s", "first view p50 s"),
        ("first_view_p95_s", "p95 s"),
        ("first_view_max_s", "max s"),
        ("trace_p50_s", "own trace p50 s"),
        ("trace_p95_s", "p95 s"),
        ("questions_p95_s", "questions p95 s"),
        ("end_p95_s", "to the end p95 s"),
        ("errors", "errors"),
        ("server_cpu_per_first_visit_ms", "server CPU / first visit ms"),
        ("server_cpu_per_student_ms", "server CPU / student ms"),
        ("first_visit_kb_per_student", "first visit KB"),
        ("requests_per_first_visit", "requests / first visit"),
        ("load_generator_cpu_s", "load generator CPU s"),
    ]
    lines = ["| " + " | ".join(c[1] for c in cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r.get(c[0])) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def medians(rows: list[dict]) -> list[dict]:
    """Per design and class size, each numeric figure's median over the rounds (errors: their sum)."""
    out = []
    for design in dict.fromkeys(r["design"] for r in rows):
        for n in dict.fromkeys(r["students"] for r in rows):
            mine = [r for r in rows if r["design"] == design and r["students"] == n]
            row = {"design": f"{design}, median of {len(mine)}", "students": n}
            for key, value in mine[0].items():
                if key not in row and isinstance(value, (int, float)) and all(r.get(key) is not None for r in mine):
                    numbers = [r[key] for r in mine]
                    row[key] = sum(numbers) if key == "errors" else round(statistics.median(numbers), 3)
            out.append(row)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 30, 100, 200])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", default=None, help="also measure the design at this git revision")
    parser.add_argument("--rounds", type=int, default=1, help="the designs take turns this many times (1 to 20)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if any(n < 1 or n > 500 for n in args.students):
        parser.error("--students must be 1 to 500")
    if not 1 <= args.rounds <= 20:
        parser.error(f"--rounds must be 1 to 20, not {args.rounds}")
    random.seed(0)
    checkpoint = str(Path(args.checkpoint).resolve())
    designs, worktree = [("new", ROOT)], None
    if args.old_ref:
        worktree = Path(tempfile.mkdtemp(prefix="class-open-old-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.old_ref], cwd=ROOT, check=True)
        designs.append((f"old ({args.old_ref[:7]})", worktree))
    rows = []
    try:
        for _, design, cwd in in_turns(designs, args.rounds):
            rows += measure(design, cwd, checkpoint, args.students)
    finally:
        if worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
            shutil.rmtree(worktree, ignore_errors=True)
    print(table(rows))
    if args.rounds > 1:
        print()
        print(table(medians(rows)))
    if args.json:
        summary = {"medians": medians(rows)} if args.rounds > 1 else {}
        Path(args.json).write_text(json.dumps({"rows": rows, "argv": sys.argv} | summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
