"""A class through the README's API example: N students ask for a trace at the same moment, old design beside new.

    python -m bench.api_class [--students 120] [--checkpoint DIR] [--old-ref REF [--old-client auto]] [--json OUT]

Each student is a thread running the README's API example: this checkout's
(`httpx.Client(base_url=".../ae/api").get("/trace", params={"sentence": ...})`) and, with `--old-ref`, the design
at that git revision (served from a temporary worktree), whose README said
`gradio_client.Client(url).predict(sentence, api_name="/trace")`. Each student's client is made before the class
starts (a student's Python session is open already; on this one machine, 120 clients made at once would time the
students' laptops, not the server). Half the students trace one of the Translate tab's examples, half a sentence of
their own; all ask together (a barrier), and each student's seconds run from the question to the trace in hand
(JSON parsed). Reported: p50, p95 and max seconds, and errors. The server
(`python app.py`, 127.0.0.1 only, stopped by its PID) and the students share this machine's cores, as a laptop
serving its own class would.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench.app_latency import ROOT, free_port, start_app
from bench.lecture_load import EXAMPLES, q
from explorer.app import SHIPPED_CHECKPOINT

OWN = [
    "My sister {i} lives in a small town near the sea.",
    "Student {i} forgot the homework on the bus this morning.",
    "We will visit {i} museums in Berlin next summer.",
    "The teacher asked question number {i} twice.",
]


def sentences(n: int) -> list[str]:
    """Half the Translate tab's examples, half sentences of the students' own (all different)."""
    return [EXAMPLES[i % len(EXAMPLES)] if i % 2 == 0 else OWN[i % len(OWN)].format(i=i) for i in range(n)]


def api_student(url: str):
    """The README's example (this design): plain HTTP to the one API. Returns the student's question."""
    import httpx

    api = httpx.Client(base_url=f"{url}ae/api", timeout=300)

    def ask(sentence: str) -> dict:
        answer = api.get("/trace", params={"sentence": sentence})
        answer.raise_for_status()
        return answer.json()

    return ask


def gradio_student(url: str):
    """The README's example before the one API: gradio_client's Client, then its /trace event."""
    from gradio_client import Client

    client = Client(url, verbose=False)
    return lambda sentence: client.predict(sentence, api_name="/trace")


def run_class(url: str, student, n: int) -> dict:
    texts = sentences(n)
    students = [student(url) for _ in range(n)]
    barrier = threading.Barrier(n, timeout=120)
    seconds: list[float] = [float("inf")] * n
    errors: list[str] = []

    def one(i: int) -> None:
        barrier.wait()
        t0 = time.perf_counter()
        try:
            trace = students[i](texts[i])
            assert trace["request"]["sentence"] == texts[i] and trace["steps"], "not this student's trace"
            seconds[i] = time.perf_counter() - t0
        except Exception as exc:  # noqa: BLE001 - counted and reported
            errors.append(f"{type(exc).__name__}: {str(exc)[:120]}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    done = [s for s in seconds if s != float("inf")]
    return {
        "students": n,
        "p50_s": round(q(done, 0.5), 2),
        "p95_s": round(q(done, 0.95), 2),
        "max_s": round(max(done), 2) if done else None,
        "errors": len(errors),
        "error_examples": sorted(set(errors))[:3],
    }


def measure(label: str, app_dir: Path, checkpoint: str, n: int, student) -> dict:
    proc, _ = start_app(checkpoint, free_port(), cwd=app_dir)
    url = f"http://127.0.0.1:{proc.args[-1]}/"
    try:
        student(url)("The dog sees the cat.")  # the first trace of a fresh server (warm-up, not measured)
        result = {"design": label} | run_class(url, student, n)
    finally:
        proc.terminate()
        proc.wait(15)
    print(json.dumps(result), flush=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--old-ref", default=None, help="also measure the design at this git revision")
    parser.add_argument(
        "--old-client", choices=["auto", "gradio", "plain"], default="auto",
        help="how the old design is asked: its README's gradio_client example (before the plain API), or plain HTTP; "
        "auto: plain HTTP where the old README shows the one API (/ae/api)",
    )  # fmt: skip
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    checkpoint = str(Path(args.checkpoint).resolve())
    rows = [measure("new (this checkout, plain HTTP)", ROOT, checkpoint, args.students, api_student)]
    if args.old_ref:
        worktree = Path(tempfile.mkdtemp(prefix="api-class-old-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.old_ref], cwd=ROOT, check=True)
        try:
            plain = args.old_client == "plain" or (
                args.old_client == "auto" and "/ae/api" in (worktree / "README.md").read_text(encoding="utf-8")
            )
            old = f"old ({args.old_ref[:7]}, {'plain HTTP' if plain else 'gradio_client'})"
            rows.append(measure(old, worktree, checkpoint, args.students, api_student if plain else gradio_student))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
            shutil.rmtree(worktree, ignore_errors=True)
    print("\n| design | students | p50 | p95 | max | errors |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['design']} | {r['students']} | {r['p50_s']} s | {r['p95_s']} s | {r['max_s']} s | {r['errors']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
