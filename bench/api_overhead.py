"""What one API request costs the server's CPU, in process: a cached trace and a cached question, old design beside new.

    python -m bench.api_overhead [--old-ref REF] [--requests 3000]

In one process per design (the old one from a temporary git worktree), the API's routes are driven through httpx's
ASGI transport with no network: a no-op Starlette route (the floor the client and ASGI add), `GET /ae/api/trace` of
a sentence already in the cache, `POST /ae/api/ask/explain` of an answer already in the cache, and a classroom's two
commonest requests: a lecturer's `POST /ae/api/room/CODE/view` and a student's `POST .../answer` (200 students
following, a new question every 200 answers; the students are followed in process, not over HTTP). Each design's
process is set up as its server is before the first request (the new one settles its heap: `server.settle_heap`).
Reported: CPU microseconds per request (process time, the client's share included; the floor says how much that
is).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = "The dog sees the cat."
QUESTION = {"what": "explain", "kind": "cross", "layer": 1, "head": 2, "row": 0, "column": 1}


async def _room_requests(app, rooms, n: int) -> tuple[float, float]:
    """CPU µs per lecturer's view and per student's answer in one room of 200 followers."""
    import httpx

    headers = {"x-ae-client": "bench", "content-type": "application/json"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        made = (await client.post("/ae/api/room", headers=headers)).json()
        room = f"/ae/api/room/{made['code']}"
        lecturer = headers | {"x-ae-lecturer": made["key"]}
        tokens = [rooms.follow(made["code"])[2].get_nowait()[1]["token"] for _ in range(200)]
        view = {"trace": {"sentence": SENTENCE}, "step": 1, "kind": "cross", "layer": 1, "head": 2, "view": "heatmap"}
        t0 = time.process_time()
        for _ in range(n):
            assert (await client.post(room + "/view", json=view, headers=lecturer)).status_code == 200
        view_us, answered, spent = (time.process_time() - t0) / n * 1e6, 0, 0.0
        while answered < n:
            ask = {"step": 1, "layer": 1, "head": 2, "sources": 5}
            question = (await client.post(room + "/question", json=ask, headers=lecturer)).json()["id"]
            t0 = time.process_time()
            for token in tokens[: n - answered]:
                answer = {"question": question, "pick": 1, "token": token}
                assert (await client.post(room + "/answer", json=answer, headers=headers)).status_code == 200
                answered += 1
            spent += time.process_time() - t0
        return view_us, spent / n * 1e6


async def _per_request(app, method: str, path: str, n: int, **kwargs) -> float:
    import httpx

    headers = {"x-ae-client": "bench", "content-type": "application/json"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        first = await client.request(method, path, headers=headers, **kwargs)
        assert first.status_code == 200, first.text[:200]
        t0 = time.process_time()
        for _ in range(n):
            await client.request(method, path, headers=headers, **kwargs)
        return (time.process_time() - t0) / n * 1e6


def inner(n: int) -> dict:
    """Measure the design importable here (this checkout, or a worktree on sys.path)."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    from explorer.app import SHIPPED_CHECKPOINT, http_api
    from explorer.app.models import ModelRegistry
    from explorer.app.rooms import Rooms
    from explorer.interpret.handle import load_handle

    rooms = Rooms()
    app = Starlette(routes=http_api.routes(ModelRegistry(load_handle(SHIPPED_CHECKPOINT)), rooms=rooms))
    try:  # what the design's server does after start-up, before the first request (the old design: nothing)
        from explorer.server.server import settle_heap
    except ImportError:
        pass
    else:
        settle_heap()

    async def ok(request):
        return Response(b"x")

    floor = Starlette(routes=[Route("/ae/api/trace", ok)])
    name = "sentence" if hasattr(http_api, "build_api") else "s"  # the old design's URL named the sentence `s`
    query = f"/ae/api/trace?{name}={SENTENCE.replace(' ', '+')}"
    body = json.dumps({"trace": {"sentence": SENTENCE}, "question": QUESTION})
    view_us, answer_us = asyncio.run(_room_requests(app, rooms, n))
    return {
        "room_view_us": round(view_us),
        "room_answer_us": round(answer_us),
        "floor_us": round(asyncio.run(_per_request(floor, "GET", query, n))),
        "cached_trace_us": round(asyncio.run(_per_request(app, "GET", query, n))),
        "cached_question_us": round(asyncio.run(_per_request(app, "POST", "/ae/api/ask/explain", n, content=body))),
    }


def measure(checkout: Path, n: int) -> dict:
    from bench.common import in_checkout  # here, not at the top: the checkout measured runs this file too

    return in_checkout(checkout, __file__, f"b.inner({n})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old-ref", default=None)
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args()
    rows = [("new (this checkout)", measure(ROOT, args.requests))]
    if args.old_ref:
        worktree = Path(tempfile.mkdtemp(prefix="api-overhead-old-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.old_ref], cwd=ROOT, check=True)
        try:
            rows.append((f"old ({args.old_ref[:7]})", measure(worktree, args.requests)))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
            shutil.rmtree(worktree, ignore_errors=True)
    print(
        "| design | no-op floor µs | cached GET /trace µs | cached POST /ask/explain µs | room view µs "
        "| room answer µs |\n|---|---|---|---|---|---|"
    )
    for label, r in rows:
        cells = [r["floor_us"], r["cached_trace_us"], r["cached_question_us"], r["room_view_us"], r["room_answer_us"]]
        print(f"| {label} | " + " | ".join(str(c) for c in cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
