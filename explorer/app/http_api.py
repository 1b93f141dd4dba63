"""The API: one FastAPI app, mounted at `/ae/api`, that the viewer, the classroom and API users all call.

Every operation is one typed function, described by its docstring in FastAPI's own OpenAPI document
(`/ae/api/openapi.json`, `/ae/api/docs`): its request a pydantic model (`schemas.py`) that FastAPI validates, its
answer a pydantic model too. The classroom's routes are `room_api.py`'s, training's `training_job.py`'s work.
Every refusal is `{"error": message}` (`errors.py`); every route but the event streams takes its turn from one
limiter (`rate_limits.ADMITTED`), and who a caller is, is `callers.py`'s to say.
"""

# no `from __future__ import annotations`: FastAPI reads the routes' annotations, some made in a loop (ask_route)

import asyncio
import math
from typing import Annotated

from fastapi import APIRouter, FastAPI, Path, Query, Request
from plotly.io.json import to_json_plotly
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount

from ..errors import UserError
from ..interpret.request import TraceRequest
from . import room_api
from .api_docs import docs_page
from .callers import ClientIds, address_of, trusted_proxies
from .encoded import Encoded
from .errors import REFUSED, answer_errors
from .export import attention_arrays, lens_arrays, lens_of_answer, npz_bytes
from .figures import NORMAL_FONT, PRESENTATION_FONT
from .models import ModelRegistry
from .positional import positional_figures, positional_table
from .questions import ANSWERS, ASKS, Ask
from .rate_limits import ADMITTED, Admitted, Rates, rate_setting
from .rooms import Rooms
from .schemas import (
    NpzQuery,
    Positional,
    PositionalFigures,
    PositionalQuery,
    ServedModel,
    TrainingStarted,
    TrainRequest,
    Translation,
    Upload,
    Wire,
)
from .timelapse import TimeLapse
from .training_job import TrainingRuns

PREFIX = "/ae/api"
UPLOAD_RATE = "20/minute"  # training files one address may upload
# minutes of training one address may ask for (`limits` notation): it holds the server's one slot at most half the
# time, however its runs are cut; a run that does not start is not counted
TRAIN_RATE = rate_setting("AE_TRAIN_RATE", "30/hour")
POLL_S = 0.25  # how often a training run's event stream looks for a change
RunId = Annotated[str, Path(max_length=64, description="the run's id, from POST /train")]


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
    runs = TrainingRuns(models, idle_s=models.own.ttl)  # a run lives as long as the model it trained

    # a question (up to a second of CPU: integrated gradients) waits in the model's line like a trace, after the traces
    # (scheduler.Scheduler: priority 1 after 0) and fair between addresses: one address's burst never holds another's
    # question back (a review of issue 51: behind a server-wide gate of two, a victim's waited 15 s behind 90)
    router = APIRouter(dependencies=[ADMITTED], responses=REFUSED)
    streams = APIRouter(responses=REFUSED)  # open for as long as what they follow: not counted

    @router.get("/trace", responses={200: {"model": Wire}})
    async def trace(query: Annotated[TraceRequest, Query()], caller: Admitted) -> Response:
        """The decode trace of a sentence: tokens, steps, every attention map, packed (`explorer/app/wire.py`)."""
        handle = models.get(query.model)
        cached = models.scheduler.peek(models.cache_key(handle, query))
        encoded = cached[1] if cached is not None else None
        if encoded is None:  # in the model line (scheduler.py: fair between addresses), no thread parked meanwhile
            encoded = await models.atrace_encoded(handle, query, caller)
        return EncodedResponse(encoded)

    @router.get("/models")
    async def served_models() -> list[ServedModel]:
        """The models the server serves to everyone, the default first: pass a `key` as `model=`."""
        return models.listing()

    @router.get("/translate")
    async def translate(query: Annotated[TraceRequest, Query()], caller: Admitted) -> Translation:
        """The translation of a sentence (the decode `trace` would show, without its attention)."""
        return await models.atranslation(query, caller)

    def ask_route(what: str):
        body = ASKS[what]

        async def ask(asked: body, caller: Admitted) -> Response:  # type: ignore[valid-type]
            return EncodedResponse(await models.aanswer(asked, caller))

        ask.__doc__ = body.__doc__
        return ask

    for what in ASKS:
        router.add_api_route(
            f"/ask/{what}",
            ask_route(what),
            methods=["POST"],
            name=what,
            responses={200: {"model": ANSWERS[what]}},
        )

    @router.get("/npz", response_class=Response, responses={200: {"content": {"application/octet-stream": {}}}})
    async def npz(query: Annotated[NpzQuery, Query()], caller: Admitted) -> Response:
        """The attention tensors of a trace up to `step`, as a numpy .npz download."""
        handle = models.get(query.model)
        traced = await models.atraced(handle, query.trace(), caller)
        # the logit lens is the registered question it is: computed in the model line (never beside it), once, and
        # shared with the viewer's own Logit lens
        arrays = attention_arrays(traced.trace, query.step)  # a step the trace lacks is refused before any lens
        asked = Ask.model_validate({"trace": query.trace().model_dump(), "question": {"what": "lens"}})
        lens, _ = await models.aanswered(asked, caller)
        arrays |= lens_arrays(lens_of_answer(lens), query.step)
        packed = await run_in_threadpool(npz_bytes, arrays)  # ~3 MB compressed: off the event loop, as every stream
        name = f"attention_step{int(arrays['step'])}.npz"
        return Response(
            packed,
            media_type="application/octet-stream",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    @router.get("/positional")
    async def positional(query: Annotated[PositionalQuery, Query()]) -> Positional:
        """The first rows of a model's positional-encoding table (the buffer the model adds to its embeddings)."""
        return positional_table(models.get(query.model), query)

    @router.get("/positional/figures", responses={200: {"description": "{heatmap, waves, similarity}"}})
    async def positional_charts(query: Annotated[PositionalFigures, Query()]) -> Response:
        """The Positional encoding tab's charts of a model's table, as Plotly figures: heatmap, waves, similarity."""
        font = PRESENTATION_FONT if query.presentation else NORMAL_FONT
        charts = await run_in_threadpool(
            positional_figures, models.get(query.model), query.positions, query.dims, query.waves, font
        )
        named = dict(zip(("heatmap", "waves", "similarity"), (chart.to_plotly_json() for chart in charts)))
        return Response(to_json_plotly(named), media_type="application/json")

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

    @router.post("/train", status_code=201)
    async def train(request: Request, asked: TrainRequest) -> TrainingStarted:
        """Train a fresh small model on the mini corpus or an upload (one run at a time per server, 409 while another
        trains; `TRAIN_RATE` minutes per address). Follow it at `/train/{run}/events`; the run's id is its owner's
        secret."""
        who, minutes = address_of(request, proxies), math.ceil(asked.minutes)
        rates.allows(TRAIN_RATE, "training minutes", who, "Too many minutes of training from one address.", minutes)
        run = await run_in_threadpool(runs.start, asked, who)
        rates.count(TRAIN_RATE, "training minutes", who, minutes)
        return TrainingStarted(run=run.id)

    @router.post("/train/{run}/stop")
    async def stop_training(run: RunId) -> dict:
        """Stop a run after its current step; it ends as a finished run does, its model registered."""
        return {"message": runs.get(run).stop()}

    @router.get("/train/{run}/checkpoint.zip", response_class=FileResponse)
    async def checkpoint(run: RunId) -> FileResponse:
        """The trained checkpoint (model.safetensors, its tokenizer and metadata), zipped, once the run is done."""
        archive = runs.get(run).archive
        if archive is None:
            raise UserError("This run has no checkpoint yet: it is still training, or it failed.")
        return FileResponse(archive, filename="trained-checkpoint.zip", media_type="application/zip")

    @streams.get("/train/{run}/events", response_class=EventSourceResponse)
    async def training_events(run: RunId) -> EventSourceResponse:
        """Server-sent events: the run's state (`step`, `fraction`, `message`, `loss` and `snapshot` as Plotly
        figures, `done`, then `model`: the trained model's key), now and at every change, until it is done."""
        training = runs.get(run)
        training.follow()  # at most `training_job.MAX_FOLLOWERS` streams at once, each left when its answer ends

        async def states():
            sent = -1
            while True:
                if training.version != sent:
                    runs.keep(training)  # followed: it lives
                    sent, data = await run_in_threadpool(training.state_json)
                    yield {"event": "state", "data": data}
                    if training.state["done"] and sent == training.version:
                        return
                await asyncio.sleep(POLL_S)

        # left in the answer's background task: it runs when the stream ends, the client leaves, or (a HEAD) the
        # stream never starts
        left = BackgroundTask(training.leave)
        return EventSourceResponse(states(), ping=15, headers={"cache-control": "no-store"}, background=left)

    @router.post("/client")
    async def client(request: Request) -> dict:
        """A client id for one browser tab, made and signed by the server: send it as `X-AE-Client`, and the tab
        gets its own share of the server (an id the server did not make counts for nothing)."""
        return {"client": clients.issue(address_of(request, proxies))}

    api = FastAPI(
        title="Attention Explorer API",
        summary="Trace a translator's decode (English→German: the shipped models), ask about it, follow a classroom.",
        docs_url=None,  # FastAPI's page loads Swagger UI from a CDN: blank offline. Ours is plain HTML (api_docs.py)
        redoc_url=None,
        openapi_url="/openapi.json",
    )

    @api.get("/docs", include_in_schema=False, response_class=HTMLResponse)
    def docs() -> str:
        """The API's reference page, written from its OpenAPI document: no script, no CDN."""
        return docs_page(api.openapi(), PREFIX)

    api.include_router(router)
    api.include_router(streams)
    api.include_router(room_api.router(rooms))
    api.state.fairness = models.fairness  # the one limiter, which `ADMITTED` takes each route's turn from
    api.state.clients, api.state.proxies, api.state.rates = clients, proxies, rates  # who a caller is; rate limits
    api.state.runs = runs
    answer_errors(api)
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
