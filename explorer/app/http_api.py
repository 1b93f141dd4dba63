"""The viewer's plain HTTP routes (no Gradio queue): the trace, its questions and its .npz, under `/ae/api/`.

- `GET /ae/api/trace?s=...&strategy=...&model=...`: the wire trace. The request is the URL (the deep link's
  parameters), so identical requests share one cache entry and one ETag; a hit is sent from the bytes the
  cache compressed when it computed the trace. Misses are batched (`TraceCache`).
- `POST /ae/api/ask/{explain,heads,attribution,beam_tree,compare}`: `schemas.Ask` (the trace request, the question's
  fields, for compare the session's own model) -> the answer as JSON; one named route per question.
- `GET /ae/api/npz?...&step=N`: the attention tensors up to step N, as a .npz download, made in memory.
- `GET /ae/api/timelapse?s=...`: an example's traces at the recorded points of training (`timelapse.py`).
- `GET /ae/api/schema`: every route's request and answer as JSON Schema (`schemas.api_schema`).
- `/ae/api/room/...`: the classroom, a lecturer's view followed live by students (`room_api.py`).

Every refusal is a 4xx with `{"error": message}` naming the value; a bug is logged and answered with a
generic message. Each browser (the `X-AE-Client` id it makes for itself, not its address: a lecture hall
shares one) has at most `MAX_IN_FLIGHT` requests running; more are refused until one finishes.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import threading
from collections import Counter

import numpy as np
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..interpret.request import UserError
from . import room_api
from .encoded import Encoded
from .export import attention_arrays
from .models import ModelRegistry, UnknownModel
from .rooms import Rooms
from .schemas import QUESTIONS, Ask, TraceQuery, api_schema, json_of, query_of, validate
from .session import MAX_IN_FLIGHT
from .timelapse import TimeLapse

log = logging.getLogger("explorer.api")
PREFIX = "/ae/api"
CLIENT_HEADER = "x-ae-client"
GENERIC_ERROR = (
    "Something went wrong on the server while doing that (it has been logged). Try again, or reload the page."
)


class Fairness:
    """How many requests each browser has running; a browser at `limit` is refused until one finishes."""

    def __init__(self, limit: int = MAX_IN_FLIGHT):
        self.limit = limit
        self.running: Counter[str] = Counter()
        self.lock = threading.Lock()

    def enter(self, client: str) -> None:
        with self.lock:
            if self.running[client] >= self.limit:
                raise Busy(
                    f"This browser already has {self.running[client]} requests running; one person may run "
                    f"{self.limit} at a time so that everyone gets a turn. Wait for them to finish."
                )
            self.running[client] += 1

    def leave(self, client: str) -> None:
        with self.lock:
            self.running[client] -= 1
            if self.running[client] <= 0:
                del self.running[client]


class Busy(UserError):
    """Too many requests from one browser at once (429)."""


class UnknownSentence(UserError):
    """A sentence the time-lapse did not record (404)."""


def routes(models: ModelRegistry, timelapse: TimeLapse | None = None, rooms: Rooms | None = None) -> list[Route]:
    """The routes, for a Starlette or FastAPI app (mounted before Gradio's catch-all); the classroom's too."""
    timelapse = timelapse or TimeLapse(None)
    rooms = rooms if rooms is not None else Rooms()
    fairness = Fairness()
    # a question can cost a second of CPU (integrated gradients): they run on all cores but one at once, so a burst
    # of them waits its turn and a core stays for the traces a class asks for first (bench/class_open.py)
    questions = asyncio.Semaphore(max(1, (os.cpu_count() or 1) - 1))

    def client_of(request: Request) -> str:
        # a download link cannot send a header: it names the browser in its query (`client=`)
        client = request.headers.get(CLIENT_HEADER, "") or request.query_params.get("client", "")
        return client[:64] if client else f"address:{request.client.host if request.client else '?'}"

    def guarded(handler):
        async def endpoint(request: Request):
            client = client_of(request)
            try:
                fairness.enter(client)
            except Busy as exc:
                return JSONResponse({"error": str(exc)}, status_code=429)
            try:
                return await handler(request)
            except UserError as exc:
                missing = isinstance(exc, (UnknownModel, UnknownSentence))
                status = getattr(exc, "status", 404 if missing else 400)  # a room's refusal says its own
                return JSONResponse({"error": str(exc)}, status_code=status)
            except Exception:  # noqa: BLE001 - a bug: logged; the person gets a message, the server goes on
                log.exception("%s failed", request.url.path)
                return JSONResponse({"error": GENERIC_ERROR}, status_code=500)
            finally:
                fairness.leave(client)

        return endpoint

    async def trace(request: Request):
        query = _query(request)
        handle = models.get(query.model)
        cached = models.cache.peek((handle.fingerprint, query.model, query.to_request()))
        encoded = cached[1] if cached is not None else None
        if encoded is None:
            encoded = await run_in_threadpool(models.trace_encoded, handle, query.to_request())
        return EncodedResponse(encoded, request)

    def ask_route(what: str):
        async def ask(request: Request):
            return await answer_question(request, what)

        return ask

    async def answer_question(request: Request, what: str):
        data = json_of(await request.body(), "question")
        if isinstance(data, dict) and isinstance(data.get("question", {}), dict):  # the route names the question
            data["question"] = data.get("question", {}) | {"what": what}
        asked = validate(Ask, data)
        async with questions:
            answer = await run_in_threadpool(models.answer, asked)
        return JSONResponse(answer)

    async def npz(request: Request):
        query = _query(request)
        step = request.query_params.get("step", "0")
        if not re.fullmatch(r"[0-9]{1,6}", step):
            raise UserError(f"The step {step[:40]!r} must be a whole number.")
        handle = models.get(query.model)
        traced = await run_in_threadpool(models.traced, handle, query.to_request())
        arrays = attention_arrays(traced.trace, int(step))
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        name = f"attention_step{int(arrays['step'])}.npz"
        return Response(
            buffer.getvalue(),
            media_type="application/octet-stream",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    async def training_steps(request: Request):
        sentence = request.query_params.get("s", "")
        encoded = timelapse.encoded.get(sentence)
        if encoded is None:
            recorded = "; ".join(timelapse.sentences) or "none: this checkpoint has no time-lapse"
            raise UnknownSentence(f"No training time-lapse was recorded for {sentence[:80]!r}. Recorded: {recorded}.")
        return EncodedResponse(encoded, request)

    documented = Encoded.json(api_schema())

    async def schema(request: Request):
        return EncodedResponse(documented, request)

    return [
        Route(f"{PREFIX}/schema", schema, methods=["GET", "HEAD"]),
        Route(f"{PREFIX}/timelapse", guarded(training_steps), methods=["GET", "HEAD"]),
        Route(f"{PREFIX}/trace", guarded(trace), methods=["GET", "HEAD"]),
        *(Route(f"{PREFIX}/ask/{what}", guarded(ask_route(what)), methods=["POST"], name=what) for what in QUESTIONS),
        Route(f"{PREFIX}/npz", guarded(npz), methods=["GET"]),
        *room_api.routes(PREFIX, rooms, guarded),
    ]


def _query(request: Request) -> TraceQuery:
    query = query_of(request.query_params)
    if query is None:
        raise UserError("Name a sentence: add ?s=... (and the options of the link) to the address.")
    return query


class EncodedResponse(Response):
    """An `Encoded` body sent as the browser prefers (304 while its ETag matches)."""

    def __init__(self, encoded: Encoded, request: Request):
        self.encoded = encoded
        self.request = request
        super().__init__(status_code=200)

    async def __call__(self, scope, receive, send):
        await self.encoded.send(scope, send)
