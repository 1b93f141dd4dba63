"""The server's middleware: the ASGI app uvicorn runs, in front of the API and Gradio's page.

A first visit fetches the page and about a hundred files. Here, without entering Gradio's middleware:
- the files under `kept` (Gradio's front end, its asset chunks and fonts; the explorer's own, the viewer bundle and
  plotly.js, which Starlette's `FileResponse` serves behind) are fetched from the app behind through their served
  URLs (an in-process `httpx.ASGITransport` client) the first time anyone asks for one, then kept in memory,
  compressed once with brotli and gzip at their best settings, with a strong ETag: a first visit's hundred files
  cost a lookup each (Starlette's per-response compression gzipped plotly.js again for every visitor);
- the page itself and the theme's stylesheet are rendered by Gradio once per distinct address (host, forwarded
  headers, the query parameters Gradio reads), from those alone, then kept compressed (`PAGES` of them at most) and
  revalidated by ETag (`bench/class_open.py`: what 200 students opening the page at once cost);
- a request body is capped (`BodyLimit`) on the methods that carry one; a GET costs it nothing;
- Gradio serves the page and nothing else: no event of the page runs on the server (every one runs in the browser,
  which asks the API), so every other Gradio route (its event queue, calls, uploads, files) is closed, answered
  404 `{"error"}` like every refusal. Only the API (`API_PREFIX`) and `GRADIO_GETS` reach the app behind.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qsl, urlencode

import httpx
from cachetools import LRUCache
from starlette.requests import Request

from ..app.callers import address_of
from ..app.encoded import IMMUTABLE, REVALIDATE, Encoded
from ..app.errors import error
from ..app.http_api import PREFIX as API_PREFIX
from ..app.rate_limits import Rates, TooFast
from .body_limit import BodyLimit

PAGES = 64  # distinct rendered pages kept (one per address and Gradio page)
# Gradio's front end, kept as Gradio serves it: its chunks' names carry a content hash (cached for a year), its
# fonts and images do not; only a plain 200 is kept, so only files that exist, at most `FILES` of them
KEPT = {"/assets/": IMMUTABLE, "/static/": REVALIDATE}
FILES = 4096
RENDERED = ("/", "/theme.css")  # what Gradio renders the same way for every visitor at one address
# request headers that change what Gradio renders (the root URL it writes into the page comes from them); the page
# is rendered from these alone, each at its first occurrence, so what is cached is exactly what its key says
PAGE_KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-forwarded-proto", b"x-forwarded-port", b"x-forwarded-prefix")
PAGE_KEY_QUERY = ("v",)  # the query parameter Gradio reads (a deep link's sentence=... is the browser's)
GRADIO_GETS = ("/", "/theme.css", "/config", "/favicon.ico", "/manifest.json")  # what the page asks Gradio, + KEPT
# pages one address may have rendered anew (a new host or forwarded header): each costs ~75 ms of CPU, and a script
# that varied its Host pushed the real page out of the kept ones (a review of issue 51); a class behind one proxy asks
# one. Counted by the caller's address (behind a trusted proxy, the client's), never the proxy's: that let one visitor
# of a Space have the page refused to everyone for a minute (a second review)
RENDER_RATE = "20/minute"


class AppMiddleware:
    """`app` (the API, the static files and Gradio's page) behind a cache of its files and rendered pages, a
    request-body cap and Gradio's closed routes; `kept`: the URL prefixes whose files are kept, with their caching
    (`KEPT` and the explorer's own); `proxies`: the trusted proxies (`callers.trusted_proxies`; none by default)."""

    def __init__(self, app, upload_bytes: int, kept: dict[str, bytes] = KEPT, proxies: list | None = ()):
        self.app, self.proxies = app, proxies
        self.limited = BodyLimit(app, upload_bytes=upload_bytes)
        self.kept = kept
        self.pages: LRUCache[tuple, Encoded] = LRUCache(PAGES)  # rendered pages, by key
        self.files: LRUCache[tuple, Encoded] = LRUCache(FILES)  # the kept files, by key
        self.rendering: dict[tuple, asyncio.Future] = {}
        self.renders = Rates()

    def keep(self, url: str, data: bytes, content_type: str) -> None:
        """Keep a file from the start (compressed now): the viewer's bundle is there for the first visitor at once."""
        self.files[file_key(url)] = Encoded.of(data, content_type, kept_as(url, self.kept) or REVALIDATE)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        api = path.startswith(API_PREFIX + "/")
        if scope["method"] not in ("GET", "HEAD"):
            return await (self.limited(scope, receive, send) if api else closed(scope, send))
        key = file_key(path)
        kept = self.files.get(key)  # most of a first visit: files kept already
        if kept is not None:
            return await kept.send(scope, send)
        if path in RENDERED or kept_as(path, self.kept) is not None:
            try:
                page = await self._page(scope)
            except TooFast as exc:
                return await error(str(exc), 429)(scope, receive, send)
            if isinstance(page, int):  # not there (a folder, a missing file): said in the one shape
                return await closed(scope, send)
            return await (page.send(scope, send) if page is not None else self.app(scope, receive, send))
        if api or path in GRADIO_GETS:
            return await self.app(scope, receive, send)
        return await closed(scope, send)

    async def _page(self, scope) -> Encoded | None:
        """The page or Gradio file this request's key names: kept, or rendered by Gradio once however many ask."""
        key = page_key(scope)
        kept = self.pages if scope["path"] in RENDERED else self.files
        page = kept.get(key)
        if page is not None:
            return page
        future = self.rendering.get(key)
        if future is None:
            if kept is self.pages:
                who = address_of(Request(scope), self.proxies)
                self.renders.hit(RENDER_RATE, "new addresses of the page", who, "Too many addresses of the page asked.")
            future = self.rendering[key] = asyncio.get_running_loop().create_future()
            try:
                page = await self._render(scope)
                if isinstance(page, Encoded):
                    kept[key] = page  # the least recently used goes beyond PAGES or FILES
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

    async def _render(self, scope) -> Encoded | int | None:
        """The app's own answer for the key's address alone, uncompressed, kept only if it is a plain 200; else its
        status, or None if it cannot be kept."""
        path, query, *values = page_key(scope)
        headers = [(name, value) for name, value in zip(PAGE_KEY_HEADERS, values) if value is not None]
        transport = httpx.ASGITransport(app=self.app, client=tuple(scope.get("client") or ("127.0.0.1", 0)))
        host = "{}:{}".format(*scope["server"]) if scope.get("server") else "localhost"
        async with httpx.AsyncClient(transport=transport, base_url=f"{scope['scheme']}://{host}") as client:
            headers.append((b"accept-encoding", b"identity"))  # kept as sent, compressed here once
            answer = await client.get(path + ("?" + query.decode() if query else ""), headers=headers)
        body = answer.content
        if answer.status_code != 200:
            return answer.status_code
        if "set-cookie" in answer.headers or "content-encoding" in answer.headers:
            return None
        if int(answer.headers.get("content-length", len(body))) != len(body):
            return None  # cut short: never keep half a file
        content_type = answer.headers.get("content-type", "text/html").split(";")[0]
        caching = kept_as(path, self.kept) or REVALIDATE
        # brotli's best quality on a page of a few hundred KB takes a while: not on the event loop
        return await asyncio.to_thread(Encoded.of, body, content_type, caching)


def kept_as(path: str, kept: dict[str, bytes] = KEPT) -> bytes | None:
    """The caching of a file kept at `path` (a plain path under a `kept` prefix), else None."""
    if not plain_path(path):
        return None
    return next((caching for prefix, caching in kept.items() if path.startswith(prefix)), None)


def plain_path(path: str) -> bool:
    """A URL path with no `.`, `..` or empty segments (a trailing `/` included), no NUL or backslash: every file has
    one such URL, so one cache entry (an alias is left to the app behind)."""
    parts = path.split("/")
    return not ("\x00" in path or "\\" in path or "" in parts[1:] or any(part in (".", "..") for part in parts))


def file_key(path: str) -> tuple:
    """The key a file is kept by: its path alone."""
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


async def closed(scope, send) -> None:
    """A route the server does not serve: 404 `{"error"}`, naming what it does serve."""
    message = (
        f"This server has no route {scope['method']} {scope['path'][:200]}: the page is at /, and everything it does "
        f"is in the API, {API_PREFIX} (its routes: {API_PREFIX}/docs)."
    )
    await error(message, 404)(scope, None, send)
