"""The server's front door: the ASGI app uvicorn runs, in front of Gradio, answering what a first visit asks for.

A first visit fetches the page and about a hundred files. Here, without entering Gradio's middleware:
- static files (Gradio's asset chunks and fonts, the viewer bundle, plotly.js) come from `AssetStore`, in
  memory and compressed once;
- the page itself and the theme's stylesheet are rendered by Gradio once per distinct address (host, forwarded
  headers, query string), then kept compressed (`PAGES` of them at most) and revalidated by ETag;
- a request body is capped (`BodyLimit`) on the methods that carry one; a GET costs it nothing.
Everything else goes to the app behind unchanged.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from ..app.encoded import REVALIDATE, Encoded
from .body_limit import BodyLimit
from .static_files import AssetStore

PAGES = 64  # distinct rendered pages kept (one per deep link a class opens together, say)
RENDERED = ("/", "/theme.css")  # what Gradio renders the same way for every visitor at one address
# request headers that change what Gradio renders: the root URL it writes into the page comes from them
PAGE_KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-prefix")


class FrontDoor:
    """`app` behind a static-file store, a rendered-page cache and a request-body cap."""

    def __init__(self, app, store: AssetStore, upload_bytes: int):
        self.app = app
        self.limited = BodyLimit(app, upload_bytes=upload_bytes)
        self.store = store
        self.pages: OrderedDict[tuple, Encoded] = OrderedDict()
        self.rendering: dict[tuple, asyncio.Future] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["method"] not in ("GET", "HEAD"):
            return await self.limited(scope, receive, send)
        path = scope["path"]
        if self.store.serves(path):
            asset = await self.store.get(path)
            if asset is not None:
                return await asset.send(scope, send)
        elif path in RENDERED:
            page = await self._page(scope)
            if page is not None:
                return await page.send(scope, send)
        return await self.app(scope, receive, send)

    async def _page(self, scope) -> Encoded | None:
        headers = dict(scope["headers"])
        key = (scope["path"], scope["query_string"], *(headers.get(name) for name in PAGE_KEY_HEADERS))
        page = self.pages.get(key)
        if page is not None:
            self.pages.move_to_end(key)
            return page
        future = self.rendering.get(key)
        if future is None:
            future = self.rendering[key] = asyncio.get_running_loop().create_future()
            try:
                page = await self._render(scope)
                if page is not None:
                    self.pages[key] = page
                    while len(self.pages) > PAGES:
                        self.pages.popitem(last=False)
                future.set_result(page)
            except Exception as exc:  # noqa: BLE001 - the waiters fall back to the app itself
                future.set_exception(exc)
            finally:
                del self.rendering[key]
        try:
            return await asyncio.shield(future)
        except Exception:  # noqa: BLE001
            return None

    async def _render(self, scope) -> Encoded | None:
        """Gradio's own answer for this address, uncompressed, kept only if it is a plain 200."""
        plain = dict(scope, method="GET", headers=[(k, v) for k, v in scope["headers"] if k != b"accept-encoding"])
        start, chunks = {}, []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(plain, receive, capture)
        headers = dict(start.get("headers", []))
        if start.get("status") != 200 or b"set-cookie" in headers or b"content-encoding" in headers:
            return None
        content_type = headers.get(b"content-type", b"text/html").split(b";")[0].decode()
        return Encoded.of(b"".join(chunks), content_type, REVALIDATE)
