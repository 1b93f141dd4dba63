"""The classroom's routes (`rooms.py`) under `/ae/api/room`, each described in `/ae/api/docs`: the lecturer drives
with the secret key `POST /room` made (header `X-AE-Lecturer`), the students follow a stream of server-sent events.
An address creates at most `CREATE_RATE` rooms, holds `rooms.MAX_ROOMS_PER_ADDRESS`, and names `UNKNOWN_RATE` codes
of no room (a scan for live rooms stops there).
"""

# no `from __future__ import annotations`: FastAPI reads the routes' annotations

import asyncio
import functools
import io
import secrets
from typing import Annotated

import qrcode
import qrcode.image.svg
from fastapi import APIRouter, Depends, Header, Path, Query, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from ..errors import UserError
from .callers import address_of
from .errors import REFUSED
from .rate_limits import ADMITTED, rate_setting
from .rooms import GONE, NoRoom, Rooms
from .schemas import RoomAnswer, RoomQuestion, RoomView

LECTURER_HEADER = "x-ae-lecturer"
HEARTBEAT_S = 15.0
HEARTBEAT = b": still here\n\n"  # a comment: the page's EventSource ignores it
MAX_URL = 300  # characters of the address a QR code carries
CREATE_RATE = rate_setting("AE_ROOM_RATE", "6/minute")  # rooms one address may create
# codes naming no room one address may try: a mistyped code or two, never a scan of the 331,776 codes for live rooms
UNKNOWN_RATE = "30/minute"
Code = Annotated[str, Path(max_length=16, description="the room's code")]
Key = Annotated[str | None, Header(alias=LECTURER_HEADER, max_length=128, description="the lecturer's key")]
LecturerQuery = Annotated[str | None, Query(alias="key", max_length=128, description="the lecturer's own page")]
LastEvent = Annotated[str | None, Header(alias="last-event-id", max_length=64, description="its old stream's token")]


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> bytes:
    """The QR code of `url` as SVG (drawn once per address)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    out = io.BytesIO()
    image.save(out)
    return out.getvalue()


def router(rooms: Rooms) -> APIRouter:
    """The classroom's routes, each counted by the API's limiter but the event stream, open for a whole lecture."""

    async def known(request: Request, code: Code) -> None:
        """A route's room must exist. An address that has named `UNKNOWN_RATE` codes of no room is refused (429) any
        code but the lecturer's own rooms (by its key, which the route itself checks): a live code answers as a dead
        one does, so no scan learns which are live."""
        state, key = request.app.state, request.headers.get(LECTURER_HEADER) or request.query_params.get("key")
        who, refusal = address_of(request, state.proxies), "Too many codes that name no room from one address."
        try:
            room = rooms.get(code)
        except NoRoom:
            state.rates.hit(UNKNOWN_RATE, "codes of no room", who, refusal)
            raise
        if not (key and secrets.compare_digest(str(key).encode(), room.key.encode())):
            state.rates.allows(UNKNOWN_RATE, "codes of no room", who, refusal)

    a_room = [Depends(known)]
    room = APIRouter(prefix="/room", tags=["classroom"], dependencies=[ADMITTED], responses=REFUSED)
    stream = APIRouter(prefix="/room", tags=["classroom"], responses=REFUSED)  # open for a whole lecture: not counted

    @room.post("")
    async def create(request: Request) -> dict:
        """A new room: `{code, key}`; `key` is the lecturer's secret (header `X-AE-Lecturer`). One address may create
        `CREATE_RATE` and hold `rooms.MAX_ROOMS_PER_ADDRESS` at once."""
        state = request.app.state
        address = address_of(request, state.proxies)
        state.rates.hit(CREATE_RATE, "rooms", address, "Too many rooms created from one address.")
        made = rooms.create(address)
        return {"code": made.code, "key": made.key}

    @room.post("/{code}/view", dependencies=a_room)
    async def view(code: Code, shown: RoomView, key: Key = None) -> dict:
        """The lecturer's view, which every follower takes."""
        lecturing = rooms.lecturer(code, key)
        rooms.show(lecturing, shown.model_dump(mode="json"))
        return {"following": len(lecturing.followers)}

    @room.post("/{code}/question", dependencies=a_room)
    async def question(code: Code, asked: RoomQuestion, key: Key = None) -> dict:
        """Ask the class which source token a cross-attention head will attend to most."""
        return rooms.ask(rooms.lecturer(code, key), asked.step, asked.layer, asked.head, asked.sources).public()

    @room.post("/{code}/reveal", dependencies=a_room)
    async def reveal(code: Code, key: Key = None) -> dict:
        """Show the class's answers and the head's own."""
        return rooms.reveal(rooms.lecturer(code, key)).public()

    @room.post("/{code}/end", dependencies=a_room)
    async def end(code: Code, key: Key = None) -> dict:
        """End the lecture: every follower is told, and the room goes."""
        rooms.end(rooms.lecturer(code, key))
        return {"ended": True}

    @room.post("/{code}/answer", dependencies=a_room)
    async def answer(code: Code, given: RoomAnswer) -> dict:
        """One student's answer: once per following page and question, with the answer token of its stream's first
        event (only a page that follows can answer)."""
        asked = rooms.answer(code, given.question, given.token, given.pick, given.previous)
        return {"id": asked.id, "answered": len(asked.picks())}

    @stream.get("/{code}/events", response_class=StreamingResponse, dependencies=a_room)
    async def events(
        request: Request,
        code: Code,
        key: LecturerQuery = None,
        last: LastEvent = None,
    ):
        """Server-sent events: the room's state (with the page's answer token), then each change: `view`, `question`
        (asked, then revealed with the class's counts), `answered`, `following`, `end`; a comment every
        `HEARTBEAT_S` keeps proxies from closing a quiet stream. An EventSource cannot send a header: the lecturer's
        own page names itself with `?key=` (and is not counted as a follower). One address may hold half a room's
        followers. The state's id is the page's token: a browser that reconnects by itself names it (`Last-Event-ID`),
        and its old stream ends then, so the page is counted once."""
        followed, follower, queue = rooms.follow(code, key, address_of(request, request.app.state.proxies), last)

        async def stream():
            try:
                while True:
                    try:
                        async with asyncio.timeout(HEARTBEAT_S):  # no task per event, as wait_for makes
                            event = await queue.get()
                    except TimeoutError:
                        yield HEARTBEAT
                        continue
                    if event is GONE:  # its page reconnected: the new stream carries on
                        return
                    yield event.frame
                    if event.name == "end":
                        return
            finally:
                rooms.leave(followed, follower)

        headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    @room.get("/{code}/qr.svg", response_class=Response, dependencies=a_room)
    async def qr(code: Code, u: Annotated[str, Query(description="the students' address")] = "") -> Response:
        """The students' address as a QR code, for the projector."""
        shown_room = rooms.get(code)
        if len(u) > MAX_URL or not u.startswith(("http://", "https://")) or f"room={shown_room.code}" not in u:
            raise UserError(
                f"The address to encode must be an http(s) link to room {shown_room.code}, at most {MAX_URL} "
                "characters."
            )
        svg = await run_in_threadpool(qr_svg, u)  # tens of ms: never on the loop that feeds the streams
        return Response(svg, media_type="image/svg+xml", headers={"cache-control": "private, max-age=3600"})

    both = APIRouter()
    both.include_router(room)
    both.include_router(stream)
    return both
