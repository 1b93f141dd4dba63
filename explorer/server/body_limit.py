"""Refuse oversized HTTP request bodies before anything reads them: an ASGI middleware in front of the API.

No request of the explorer needs a large body (a sentence is at most `MAX_CHARS` characters), so a request may carry
at most `MAX_REQUEST_BYTES`; the upload route (the Train tab's TSV, sent as is) gets the upload limit. A request
whose Content-Length says more is answered 413 at once and its connection closed, its body never read; one that
sends more without saying so (chunked) is answered 413 as soon as it passes the limit, and the app behind sees a
disconnected client.
"""

from __future__ import annotations

from ..app.errors import error
from ..app.limits import MAX_REQUEST_BYTES
from ..interpret.request import MAX_CHARS

UPLOAD_ROUTES = ("/ae/api/uploads",)


class BodyLimit:
    """`app` with every request body capped at `max_bytes` (`upload_bytes` for the upload routes)."""

    def __init__(self, app, max_bytes: int = MAX_REQUEST_BYTES, upload_bytes: int = MAX_REQUEST_BYTES):
        self.app, self.max_bytes, self.upload_bytes = app, max_bytes, upload_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        upload = scope["path"].endswith(UPLOAD_ROUTES)
        limit = self.upload_bytes if upload else self.max_bytes
        what = "an uploaded file" if upload else f"a request (a sentence is at most {MAX_CHARS:,} characters)"
        declared = next((value for name, value in scope["headers"] if name == b"content-length"), b"")
        if declared.isdigit() and int(declared) > limit:
            return await refuse(
                scope, send, f"This request is {int(declared):,} bytes; {what} may be at most {limit:,} bytes."
            )
        received, started, refused = 0, False, False

        async def limited_receive():
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit and not started:
                refused = True
                await refuse(scope, send, f"This request is larger than that; {what} may be at most {limit:,} bytes.")
                return {"type": "http.disconnect"}
            return message

        async def tracked_send(message):
            nonlocal started
            if not refused:  # else the app's answer to a body it never got: the client already has the 413
                started = started or message["type"] == "http.response.start"
                await send(message)

        await self.app(scope, limited_receive, tracked_send)


async def refuse(scope, send, message: str) -> None:
    """413 `{"error"}`, closing the connection: the server never reads (or even receives) the rest of the body."""
    await error(message, 413, {"connection": "close"})(scope, None, send)
