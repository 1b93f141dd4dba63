"""The server's front door: the ASGI app uvicorn runs, in front of Gradio, answering what a first visit asks for.

A first visit fetches the page and about a hundred files. Here, without entering Gradio's middleware:
- the explorer's own files (the viewer bundle, plotly.js) come from `AssetStore`, in memory and compressed once;
- Gradio's front end (its asset chunks and fonts, under `KEPT`) is fetched from Gradio itself, through its served
  URLs, the first time anyone asks for a file, then kept compressed: Gradio's files are read only through what
  Gradio serves, never from inside its package;
- the page itself and the theme's stylesheet are rendered by Gradio once per distinct address (host, forwarded
  headers, the query parameters Gradio reads), from those alone, then kept compressed (`PAGES` of them at most) and
  revalidated by ETag;
- a request body is capped (`BodyLimit`) on the methods that carry one; a GET costs it nothing.
Everything else goes to the app behind unchanged.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from urllib.parse import parse_qsl, urlencode

from ..app.encoded import IMMUTABLE, REVALIDATE, Encoded
from .body_limit import BodyLimit
from .inner_get import inner_get
from .static_files import AssetStore, plain_path

PAGES = 64  # distinct rendered pages kept (one per address and Gradio page)
# Gradio's front end, kept as Gradio serves it: its chunks' names carry a content hash (cached for a year), its
# fonts and images do not; only a plain 200 is kept, so only files that exist, at most `FILES` of them
KEPT = {"/assets/": IMMUTABLE, "/static/": REVALIDATE}
FILES = 4096
RENDERED = ("/", "/theme.css")  # what Gradio renders the same way for every visitor at one address
# request headers that change what Gradio renders (the root URL it writes into the page comes from them); the page
# is rendered from these alone, each at its first occurrence, so what is cached is exactly what its key says
PAGE_KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-prefix")
PAGE_KEY_QUERY = ("page", "deep_link", "v")  # the query parameters Gradio reads (a deep link's s=... is the browser's)


class FrontDoor:
    """`app` behind a static-file store, a rendered-page cache and a request-body cap."""

    def __init__(self, app, store: AssetStore, upload_bytes: int):
        self.app = app
        self.limited = BodyLimit(app, upload_bytes=upload_bytes)
        self.store = store
        self.pages: OrderedDict[tuple, Encoded] = OrderedDict()  # rendered pages, by key
        self.files: OrderedDict[tuple, Encoded] = OrderedDict()  # Gradio's files, by key
        self.rendering: dict[tuple, asyncio.Future] = {}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["method"] not in ("GET", "HEAD"):
            return await self.limited(scope, receive, send)
        path = scope["path"]
        key = file_key(path)
        kept = self.files.get(key)  # most of a first visit: Gradio's files, kept already
        if kept is not None:
            self.files.move_to_end(key)
            return await kept.send(scope, send)
        if self.store.serves(path):
            try:
                asset = await self.store.get(path)
            except Exception:  # noqa: BLE001 - a file that cannot be read: the app behind answers (404)
                asset = None
            if asset is not None:
                return await asset.send(scope, send)
        elif path in RENDERED or kept_as(path) is not None:
            page = await self._page(scope)
            if page is not None:
                return await page.send(scope, send)
        return await self.app(scope, receive, send)

    async def _page(self, scope) -> Encoded | None:
        """The page or Gradio file this request's key names: kept, or rendered by Gradio once however many ask."""
        key = page_key(scope)
        kept, most = (self.pages, PAGES) if scope["path"] in RENDERED else (self.files, FILES)
        page = kept.get(key)
        if page is not None:
            kept.move_to_end(key)
            return page
        future = self.rendering.get(key)
        if future is None:
            future = self.rendering[key] = asyncio.get_running_loop().create_future()
            try:
                page = await self._render(scope)
                if page is not None:
                    kept[key] = page
                    while len(kept) > most:
                        kept.popitem(last=False)
                future.set_result(page)
            except BaseException as exc:  # noqa: BLE001 - the waiters fall back to the app itself
                future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            finally:
                del self.rendering[key]
        try:
            return await asyncio.shield(future)
        except Exception:  # noqa: BLE001
            return None

    async def _render(self, scope) -> Encoded | None:
        """Gradio's own answer for the key's address alone, uncompressed, kept only if it is a plain 200."""
        path, query, *values = page_key(scope)
        headers = [(name, value) for name, value in zip(PAGE_KEY_HEADERS, values) if value is not None]
        status, headers, body = await inner_get(self.app, scope, path, query, headers)
        if status != 200 or b"set-cookie" in headers or b"content-encoding" in headers:
            return None
        if int(headers.get(b"content-length", len(body))) != len(body):
            return None  # cut short: never keep half a file
        content_type = headers.get(b"content-type", b"text/html").split(b";")[0].decode()
        caching = kept_as(path) or REVALIDATE
        # brotli's best quality on a page of a few hundred KB takes a while: not on the event loop
        return await asyncio.to_thread(Encoded.of, body, content_type, caching)


def kept_as(path: str) -> bytes | None:
    """The caching of a Gradio file kept at `path` (a plain path under a `KEPT` prefix), else None."""
    if not plain_path(path):
        return None
    return next((caching for prefix, caching in KEPT.items() if path.startswith(prefix)), None)


def file_key(path: str) -> tuple:
    """The key a Gradio file is kept by: its path alone."""
    return (path, b"")


def page_key(scope) -> tuple:
    """(path, the query Gradio reads, each key header's first value): what a rendered page depends on. A Gradio
    file depends on its path alone."""
    if scope["path"] not in RENDERED:
        return file_key(scope["path"])
    first: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        if name in PAGE_KEY_HEADERS and name not in first:
            first[name] = value
    pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
    query = urlencode(sorted((k, v) for k, v in pairs if k in PAGE_KEY_QUERY)).encode()
    return (scope["path"], query, *(first.get(name) for name in PAGE_KEY_HEADERS))
