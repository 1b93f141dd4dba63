"""Refuse oversized HTTP request bodies before anything reads them: an ASGI middleware around the Gradio app.

No event of the explorer needs a large body (a sentence is at most `MAX_CHARS` characters), so every request
may carry at most `MAX_REQUEST_BYTES`; the upload routes (the API's, for the Train tab's TSV, and Gradio's own)
get the upload limit plus room for Gradio's multipart framing. A request whose Content-Length says more is
answered 413 at once and its connection closed, its body never read; one that sends more than the limit without
saying so (chunked) is answered 413 as soon as it passes it, and the app behind sees a disconnected client.
"""

from __future__ import annotations

import json

from ..app.limits import MAX_REQUEST_BYTES
from ..interpret.request import MAX_CHARS

UPLOAD_ROUTES = ("/ae/api/uploads",)
MULTIPART_SLACK = 64 * 1024  # boundaries and part headers around an uploaded file


def too_large(size: int | None, limit: int, upload_limit: int | None = None) -> str:
    """The refusal, naming the limit: of an upload (`upload_limit`, the file's own limit) or of any other request."""
    said = f"{size:,} bytes" if size is not None else "larger than that"
    if upload_limit is not None:
        return (
            f"This upload is {said}; the explorer accepts files of up to {upload_limit:,} bytes. Upload a smaller file."
        )
    return (
        f"This request is {said}; the explorer accepts at most {limit:,} bytes per request "
        f"(a sentence is at most {MAX_CHARS:,} characters). Send a shorter text."
    )


class BodyLimit:
    """`app` with every request body capped at `max_bytes` (`upload_bytes` for the upload routes)."""

    def __init__(self, app, max_bytes: int = MAX_REQUEST_BYTES, upload_bytes: int = MAX_REQUEST_BYTES):
        self.app = app
        self.max_bytes = max_bytes
        self.upload_bytes = upload_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        upload = scope["path"].endswith(UPLOAD_ROUTES)
        limit = self.upload_bytes + MULTIPART_SLACK if upload else self.max_bytes
        refusal = (
            (lambda size: too_large(size, limit, self.upload_bytes))
            if upload
            else (lambda size: too_large(size, limit))
        )
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            return await _refuse(send, refusal(declared))

        received, started, refused = 0, False, False

        async def limited_receive():
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit and not started:
                    refused = True
                    await _refuse(send, refusal(None))
                    return {"type": "http.disconnect"}
            return message

        async def tracked_send(message):
            nonlocal started
            if refused:
                return  # the app's answer to a body it never got: the client already has the 413
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, limited_receive, tracked_send)


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    # close the connection after the answer: the server never reads (or even receives) the rest of the body
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
