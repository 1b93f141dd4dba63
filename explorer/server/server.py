"""The served app: the API, the explorer's files and the Gradio page behind the middleware, and uvicorn.

`build_app` returns the ASGI app `serve` runs: `AppMiddleware` (every file and the rendered page from memory, the
request-body cap, Gradio's closed routes) in front of a FastAPI app holding the API (`explorer.app.http_api`), the
explorer's own files (Starlette's `FileResponse`) and, at `/`, the Gradio Blocks that lays out the page. uvicorn
runs it with its fast parts (httptools, uvloop) where they are installed (`uvicorn[standard]`): they halve what a
visitor's hundred requests cost the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib.util

from fastapi import FastAPI
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from ..app import http_api
from ..app.callers import trusted_proxies
from ..app.encoded import IMMUTABLE
from ..app.errors import answer_errors
from ..app.models import MODEL_IDLE_S, ModelRegistry
from ..app.scheduler import Scheduler
from ..app.timelapse import TimeLapse
from ..app.uploads import MAX_UPLOAD_BYTES
from ..interpret.handle import ModelHandle
from ..ui import Page, build_demo, mount, viewer
from .middleware import KEPT, AppMiddleware


def build_app(
    shipped: ModelHandle | dict[str, ModelHandle],
    timelapse: TimeLapse | None = None,
    trained_idle_s: float = MODEL_IDLE_S,
    proxies: list | None = (),
    workers: int | None = None,
) -> tuple[AppMiddleware, Page]:
    """The ASGI app to serve, and the Gradio Blocks inside it; `shipped` is one model, or the served ones by key
    (the first opens); a model trained here is kept `trained_idle_s` after its last use; `proxies`: the trusted
    reverse proxies (`explorer.app.callers`; () reads the environment); `workers`: the model line's slots (default:
    the CPUs this process may use, `scheduler.available_cpus`)."""
    models = ModelRegistry(shipped, Scheduler(workers=workers), model_idle_s=trained_idle_s)
    proxies = trusted_proxies() if proxies == () else proxies
    timelapse = timelapse or TimeLapse(None)
    demo = build_demo(models.shipped, models=models)
    # the explorer's own files: plotly.js (its version in its URL) and the viewer's bundle (named by its hash)
    plotly_js = viewer.PLOTLY_URL + viewer.PLOTLY_JS.name  # that one file of plotly's package data, no other
    files = [Route(plotly_js, lambda request: FileResponse(viewer.PLOTLY_JS, media_type="application/javascript"))]
    files += [Route(url, bundled(data, kind)) for url, (data, kind) in viewer.BUNDLE.items()]
    routes = http_api.routes(models, timelapse, proxies=proxies) + files
    app = FastAPI(routes=routes, docs_url=None, redoc_url=None, openapi_url=None)
    answer_errors(app)  # a file that is not there: 404 {"error"}
    lifespan = warming(app.router.lifespan_context, models)  # ours: Gradio's would start its event queue (below)
    app = mount(app, demo, viewer.head(timelapse.settings(), [m.model_dump() for m in models.listing()]))
    # no event of the page runs on the server (the middleware closes Gradio's event routes), so Gradio's queue, which
    # `mount_gradio_app`'s lifespan starts, would only poll: its loops (one sleeps 1 ms while free) woke the event loop
    # 1,750 times a second, 2.4% of a core with nobody there and more in a class (bench/idle_cpu.py, bench/classroom.py)
    app.router.lifespan_context = lifespan
    kept = KEPT | {viewer.PLOTLY_URL: IMMUTABLE, viewer.ASSETS: IMMUTABLE}
    middleware = AppMiddleware(app, upload_bytes=MAX_UPLOAD_BYTES, kept=kept, proxies=proxies)
    for url, (data, content_type) in viewer.BUNDLE.items():
        middleware.keep(url, data, content_type)
    return middleware, demo


def warming(lifespan, models: ModelRegistry):
    """`lifespan`, with the served models' per-model answers (head roles) computed in the model line once it runs."""

    @contextlib.asynccontextmanager
    async def warmed(app):
        async with lifespan(app) as state:
            task = asyncio.create_task(models.awarm())
            try:
                yield state
            finally:
                task.cancel()

    return warmed


def bundled(data: bytes, content_type: str):
    """A route's endpoint answering one file of the viewer's bundle (the middleware keeps it compressed)."""

    async def endpoint(request) -> Response:
        return Response(data, media_type=content_type)

    return endpoint


def settle_heap() -> None:
    """Move what start-up made (torch, Gradio, the model, every module) out of the garbage collector's sight.

    None of it is ever garbage, yet each full collection walked all of it: with the API's modules loaded, a request
    that does nothing cost 183–187 µs of CPU instead of 130–131 (`bench/api_overhead.py`, its no-op floor).
    `gc.freeze` leaves the collector only what requests make."""
    gc.collect()
    gc.freeze()


def serve(app, host: str, port: int) -> None:
    """Run `app` with uvicorn until interrupted, with httptools and uvloop when they are installed, the heap made at
    start-up settled first."""
    import uvicorn

    settle_heap()

    fast = {
        "http": "httptools" if importlib.util.find_spec("httptools") else "h11",
        "loop": "uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
    }
    print(f"* Running on http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}", flush=True)
    # proxy_headers off: uvicorn would take X-Forwarded-For from any loopback peer; who a caller is, is decided in one
    # place, behind the proxies the operator named (explorer/app/callers.py)
    uvicorn.run(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2, proxy_headers=False, **fast
    )
