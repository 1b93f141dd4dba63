"""The classroom's plain routes (`rooms.py`), under `/ae/api/room`: the lecturer drives, the students follow.

- `POST /ae/api/room` -> `{code, key}`: a new room; `key` is the lecturer's secret (header `X-AE-Lecturer`).
- `POST /ae/api/room/{code}/view` (lecturer): `schemas.RoomView`, the view every follower takes.
- `POST /ae/api/room/{code}/question` (lecturer): `schemas.RoomQuestion`; `.../reveal`, `.../end` (lecturer).
- `POST /ae/api/room/{code}/answer`: `schemas.RoomAnswer`, one per following page and question: the page's answer
  token comes in its stream's first event, so only a page that follows can answer, once.
- `GET /ae/api/room/{code}/events` (`?key=` for the lecturer's own page, not counted): server-sent events, the
  room's state first (with the page's answer token), then each change: `view`,
  `question` (asked, then revealed with the class's counts), `answered`, `following`, `end`; a comment every
  `HEARTBEAT_S` keeps proxies from closing a quiet stream. A follower that reconnects starts from the state again.
- `GET /ae/api/room/{code}/qr.svg?u=URL`: the students' address as a QR code (the `qrcode` library), for the
  projector.
Refusals are 4xx with `{"error": message}` naming the room, the key or the answer, like the other routes.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
from collections.abc import Callable

import qrcode
import qrcode.image.svg
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..interpret.request import UserError
from .rooms import Rooms
from .schemas import RoomAnswer, RoomQuestion, RoomView, json_of, validate

LECTURER_HEADER = "x-ae-lecturer"
HEARTBEAT_S = 15.0
MAX_URL = 300  # characters of the address a QR code carries


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> bytes:
    """The QR code of `url` as SVG (drawn once per address)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue()


def routes(prefix: str, rooms: Rooms, guarded: Callable) -> list[Route]:
    async def body(request: Request, schema):
        return validate(schema, json_of(await request.body(), "request"))

    def lecturer(request: Request):
        return rooms.lecturer(request.path_params["code"], request.headers.get(LECTURER_HEADER))

    async def create(request: Request):
        room = rooms.create()
        return JSONResponse({"code": room.code, "key": room.key})

    async def view(request: Request):
        room = lecturer(request)
        rooms.show(room, (await body(request, RoomView)).model_dump(mode="json"))
        return JSONResponse({"following": len(room.followers)})

    async def question(request: Request):
        room = lecturer(request)
        asked = await body(request, RoomQuestion)
        return JSONResponse(rooms.ask(room, asked.step, asked.layer, asked.head, asked.sources).public())

    async def reveal(request: Request):
        return JSONResponse(rooms.reveal(lecturer(request)).public())

    async def end(request: Request):
        rooms.end(lecturer(request))
        return JSONResponse({"ended": True})

    async def answer(request: Request):
        given = await body(request, RoomAnswer)
        question = rooms.answer(request.path_params["code"], given.question, given.token, given.pick)
        return JSONResponse({"id": question.id, "answered": len(question.answers)})

    async def events(request: Request):
        try:
            # the lecturer's own page names itself with its key (an EventSource cannot send a header)
            room, follower, queue = rooms.follow(request.path_params["code"], request.query_params.get("key"))
        except UserError as exc:
            return JSONResponse({"error": str(exc)}, status_code=getattr(exc, "status", 400))

        async def stream():
            try:
                while True:
                    try:
                        event, data = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    yield f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
                    if event == "end":
                        return
            finally:
                rooms.leave(room, follower)

        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def qr(request: Request):
        room = rooms.get(request.path_params["code"])
        url = request.query_params.get("u", "")
        if len(url) > MAX_URL or not url.startswith(("http://", "https://")) or f"room={room.code}" not in url:
            raise UserError(
                f"The address to encode must be an http(s) link to room {room.code}, at most {MAX_URL} characters."
            )
        svg = await run_in_threadpool(qr_svg, url)  # tens of ms: never on the loop that feeds the streams
        return Response(svg, media_type="image/svg+xml", headers={"cache-control": "private, max-age=3600"})

    base = f"{prefix}/room"
    return [
        Route(base, guarded(create), methods=["POST"]),
        Route(base + "/{code}/view", guarded(view), methods=["POST"]),
        Route(base + "/{code}/question", guarded(question), methods=["POST"]),
        Route(base + "/{code}/reveal", guarded(reveal), methods=["POST"]),
        Route(base + "/{code}/end", guarded(end), methods=["POST"]),
        Route(base + "/{code}/answer", guarded(answer), methods=["POST"]),
        Route(base + "/{code}/events", events, methods=["GET"]),
        Route(base + "/{code}/qr.svg", guarded(qr), methods=["GET"]),
    ]
