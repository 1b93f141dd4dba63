"""The API: one FastAPI app, mounted at `/ae/api`, that the viewer, the classroom and API users all call.

Every operation is one typed function: its request is a pydantic model (`schemas.py`) that FastAPI validates and
documents, its answer a pydantic model too (documented; the tests hold the answers to them). The OpenAPI document
is FastAPI's own, at `/ae/api/openapi.json` (and `/ae/api/docs`).

- `GET /trace?sentence=...&strategy=...`: the decode trace (`schemas.Wire`). The request is the URL (a deep link's
  names are the same), so identical requests share one cache entry and one ETag; a hit is sent from the bytes the
  cache compressed when it computed the trace. Misses are batched (`TraceCache`).
- `GET /translate?sentence=...`: the greedy translation (a trace, cached and batched the same way).
- `POST /ask/{explain,heads,attribution,beam_tree,compare,maskless,value_path,qk_space,no_position,lens}`: a
  question about a trace -> its answer.
- `GET /npz?...&step=N`: the attention tensors up to step N, as a .npz download, made in memory.
- `GET /positional?positions=N`: the model's positional-encoding table.
- `GET /timelapse?sentence=...`: an example's traces at the recorded points of training (`timelapse.py`).
- `POST /uploads`: a training file (the body, as is) kept under an id the Train tab's run names it by (`uploads.py`);
  each address keeps its own last few, at most `UPLOAD_RATE`.
- `POST /client`: a client id for a browser tab, signed by the server (`callers.py`), at most `ISSUE_RATE` per address.
- `/room/...`: the classroom, a lecturer's view followed live by students (`room_api.py`).

One error wrapper (`refusals.Guarded`): a refusal is a 4xx `{"error": message}` (`schemas.Refusal`) naming the value,
from a validation error, a `UserError` or an unknown route alike; a bug is logged and answered with a generic one.
One limiter (`fairness.py`, shared with the Gradio tabs' events): a request counts against its address (behind a trusted
proxy, the client's: `callers.py`), at most `ADDRESS_IN_FLIGHT` (a lecture hall shares one), and against the client id
the server issued its browser tab, at most `MAX_IN_FLIGHT`; more are refused at once.
"""

# no `from __future__ import annotations`: FastAPI reads the routes' annotations, some made in a loop (ask_route)

import io
import os
from typing import Annotated

import numpy as np
from fastapi import APIRouter, Depends, FastAPI, Query, Request
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount

from ..interpret.request import UserError
from . import room_api
from .callers import ClientIds, Rates, address_of, trusted_proxies
from .encoded import Encoded
from .export import attention_arrays
from .models import ModelRegistry
from .positional import positional_table
from .probes import trace_lens
from .refusals import REFUSED, Limited, unrouted
from .rooms import Rooms
from .schemas import (
    ANSWERS,
    ASKS,
    NpzQuery,
    Positional,
    PositionalQuery,
    ServedModel,
    TraceQuery,
    Translation,
    Upload,
    Wire,
)
from .timelapse import TimeLapse

PREFIX = "/ae/api"
UPLOAD_RATE = "20/minute"  # training files one address may upload


class UnknownSentence(UserError):
    """A sentence the time-lapse did not record (404)."""

    status = 404


def build_api(
    models: ModelRegistry, timelapse: TimeLapse | None = None, rooms: Rooms | None = None, proxies: list | None = ()
) -> FastAPI:
    """The API app, to mount at `PREFIX` (before Gradio's catch-all); the classroom's routes too. `proxies`: the
    trusted proxies (`callers.trusted_proxies`; the default, (), reads `AE_TRUSTED_PROXIES`)."""
    timelapse = timelapse or TimeLapse(None)
    rooms = rooms if rooms is not None else Rooms()
    proxies = trusted_proxies() if proxies == () else proxies
    rates = Rates()
    clients = ClientIds(rates)

    async def turn():
        yield

    # a question can cost a second of CPU (integrated gradients): as many run at once as there are cores, so a burst
    # of them waits its turn here, not in threads, and uses every core while no trace waits; a trace that arrives
    # takes the next model slot before any waiting question (trace_cache.Slots: priority 0 before 1;
    # bench/class_questions.py: one core against both)
    questions = Depends(turn, scope="function", max_concurrency=os.cpu_count() or 1)
    router = APIRouter(route_class=Limited, responses=REFUSED)

    @router.get("/trace", responses={200: {"model": Wire}})
    async def trace(request: Request, query: Annotated[TraceQuery, Query()]) -> Response:
        """The decode trace of a sentence: tokens, steps, every attention map, packed (`explorer/app/wire.py`)."""
        handle = models.get(query.model)
        cached = models.cache.peek((handle.fingerprint, models.key_of(handle), query.to_request()))
        encoded = cached[1] if cached is not None else None
        if encoded is None:  # in the model's line (trace_cache: fair between addresses), no thread parked meanwhile
            encoded = await models.atrace_encoded(handle, query.to_request())
        return EncodedResponse(encoded)

    @router.get("/models")
    async def served_models() -> list[ServedModel]:
        """The models the server serves to everyone, the default first: pass a `key` as `model=`."""
        return models.listing()

    @router.get("/translate")
    async def translate(query: Annotated[TraceQuery, Query()]) -> Translation:
        """The translation of a sentence (the decode `trace` would show, without its attention)."""
        return await models.atranslation(query)

    def ask_route(what: str):
        body = ASKS[what]

        async def ask(asked: body) -> JSONResponse:  # type: ignore[valid-type]
            return JSONResponse(await models.aanswer(asked))

        ask.__doc__ = body.__doc__
        return ask

    for what in ASKS:
        router.add_api_route(
            f"/ask/{what}",
            ask_route(what),
            methods=["POST"],
            name=what,
            dependencies=[questions],
            responses={200: {"model": ANSWERS[what]}},
        )

    @router.get("/npz", response_class=Response, responses={200: {"content": {"application/octet-stream": {}}}})
    async def npz(query: Annotated[NpzQuery, Query()]) -> Response:
        """The attention tensors of a trace up to `step`, as a numpy .npz download."""
        handle = models.get(query.model)
        traced = await models.atraced(handle, query.to_request())
        lens = await run_in_threadpool(trace_lens, handle, traced.trace)
        arrays = attention_arrays(traced.trace, query.step, lens)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **arrays)
        name = f"attention_step{int(arrays['step'])}.npz"
        return Response(
            buffer.getvalue(),
            media_type="application/octet-stream",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    @router.get("/positional")
    async def positional(query: Annotated[PositionalQuery, Query()]) -> Positional:
        """The first rows of a model's positional-encoding table (the buffer the model adds to its embeddings)."""
        return positional_table(models.get(query.model), query)

    @router.get("/timelapse", responses={200: {"description": "{steps, traces}"}})
    async def training_steps(sentence: Annotated[str, Query(max_length=4000)]) -> Response:
        """An example's traces at the recorded points of training (the shipped checkpoint's time-lapse)."""
        encoded = timelapse.encoded.get(sentence)
        if encoded is None:
            recorded = "; ".join(timelapse.sentences) or "none: this checkpoint has no time-lapse"
            raise UnknownSentence(f"No training time-lapse was recorded for {sentence[:80]!r}. Recorded: {recorded}.")
        return EncodedResponse(encoded)

    @router.post(
        "/uploads",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"text/tab-separated-values": {"schema": {"type": "string", "format": "binary"}}},
            }
        },
    )
    async def upload(request: Request) -> Upload:
        """Keep a training file (English TAB German per line, the body as is, up to 2 MB) under an id made from its
        content; the Train tab's run names it by that id (a path never crosses the wire). Each address keeps its own
        last few: one person's uploads never push out another's."""
        address = address_of(request, proxies)
        rates.hit(UPLOAD_RATE, "uploads", address, "Too many uploads from one address.")
        data = await request.body()
        return Upload(upload=await run_in_threadpool(models.uploads.add, data, address), bytes=len(data))

    @router.post("/client")
    async def client(request: Request) -> dict:
        """A client id for one browser tab, made and signed by the server: send it as `X-AE-Client`, and the tab
        gets its own share of the server (an id the server did not make counts for nothing)."""
        return {"client": clients.issue(address_of(request, proxies))}

    api = FastAPI(
        title="Attention Explorer API",
        summary="Trace an English→German decode, ask about it, follow a classroom.",
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    api.include_router(router)
    api.include_router(room_api.router(rooms))
    api.state.fairness = models.fairness  # the one limiter, which `Limited` routes take their turn from
    api.state.clients, api.state.proxies, api.state.rates = clients, proxies, rates  # who a caller is; rate limits

    api.add_exception_handler(HTTPException, unrouted)
    return api


def routes(
    models: ModelRegistry, timelapse: TimeLapse | None = None, rooms: Rooms | None = None, proxies: list | None = ()
) -> list[Mount]:
    """The API mounted at `PREFIX`, for a Starlette or FastAPI app's routes (before Gradio's catch-all)."""
    return [Mount(PREFIX, app=build_api(models, timelapse, rooms, proxies))]


class EncodedResponse(Response):
    """An `Encoded` body sent as the browser prefers (304 while its ETag matches)."""

    def __init__(self, encoded: Encoded):
        self.encoded = encoded
        super().__init__(status_code=200)

    async def __call__(self, scope, receive, send):
        await self.encoded.send(scope, send)
