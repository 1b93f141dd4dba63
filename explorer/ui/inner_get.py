"""`inner_get`: a GET made in-process to the ASGI app behind, the way a client would make it, answer and all.

The front door renders Gradio's page with it, and the Gradio door reads what Gradio publishes about the page's events
(`/config`, `/gradio_api/info`): what Gradio serves, never what lies inside its package.
"""

from __future__ import annotations

import asyncio


async def inner_get(app, scope, path: str, query: bytes = b"", headers=()) -> tuple[int, dict, bytes]:
    """(status, headers, body) of `app`'s answer to GET `path`, asked with `scope`'s server and client but none of its
    headers except `headers`. The client stays until the whole answer is sent (a file is streamed, and a streaming
    response stops at the first disconnect it hears)."""
    # no server extensions: a file must come as body messages, not as a path for the server to send
    plain = dict(
        scope,
        method="GET",
        path=path,
        raw_path=path.encode(),
        headers=list(headers),
        query_string=query,
        extensions={},
    )
    start, chunks, asked, done = {}, [], [], asyncio.Event()

    async def receive():
        if asked:
            await done.wait()
            return {"type": "http.disconnect"}
        asked.append(True)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def capture(message):
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

    try:
        await app(plain, receive, capture)
    finally:
        done.set()
    return start.get("status", 0), dict(start.get("headers", [])), b"".join(chunks)
