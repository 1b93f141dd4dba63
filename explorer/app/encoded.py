"""A response body encoded once: the bytes, their brotli and gzip forms and a strong ETag, ready to send.

Static files, rendered pages and cached traces are each serialized and compressed when they are made, not
for every visitor who asks (`explorer.server.middleware`, `explorer.app.scheduler`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass

import brotli

IMMUTABLE = b"public, max-age=31536000, immutable"  # the name changes when the content does
REVALIDATE = b"public, max-age=0, must-revalidate"  # ask again, and get a 304 while the ETag matches
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
MIN_COMPRESS_BYTES = 256  # smaller bodies gain nothing from an encoding
BEST, FAST = 11, 5  # brotli qualities: files compressed once for good; traces compressed as they are computed
BROTLI_BIG = 1 << 20  # brotli's best quality takes seconds on megabytes: 9 there


@dataclass(frozen=True)
class Encoded:
    """One response: its type, ETag and caching, and its body in each encoding it was compressed to."""

    content_type: bytes
    etag: bytes
    cache_control: bytes
    bodies: dict[bytes, bytes]  # b"br", b"gzip", b"identity" -> body

    @classmethod
    def of(cls, data: bytes, content_type: str, cache_control: bytes, quality: int = BEST) -> Encoded:
        bodies = {b"identity": data}
        if content_type.startswith(COMPRESSIBLE) and len(data) >= MIN_COMPRESS_BYTES:
            brotli_quality = min(quality, 9) if len(data) > BROTLI_BIG else quality
            level = 9 if quality == BEST else 6
            for name, body in (
                (b"br", brotli.compress(data, quality=brotli_quality)),
                (b"gzip", gzip.compress(data, level, mtime=0)),
            ):
                if len(body) < len(data):
                    bodies[name] = body
        etag = b'"' + hashlib.blake2b(data, digest_size=12).hexdigest().encode() + b'"'
        textual = content_type.startswith("text/") or content_type.endswith(("javascript", "json"))
        kind = content_type + ("; charset=utf-8" if textual else "")
        return cls(kind.encode(), etag, cache_control, bodies)

    @classmethod
    def json(cls, value, cache_control: bytes = REVALIDATE) -> Encoded:
        """`value` as compact JSON, compressed at the fast setting."""
        data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
        return cls.of(data, "application/json", cache_control, FAST)

    @property
    def size(self) -> int:
        return len(self.bodies[b"identity"])

    def encoding_for(self, accept: bytes) -> bytes:
        """The smallest body the browser accepts (`Accept-Encoding`; browsers send no q-values for these)."""
        for name in (b"br", b"gzip"):
            if name in self.bodies and name in accept:
                return name
        return b"identity"

    async def send(self, scope, send, status: int = 200, headers: tuple = ()) -> None:
        """Answer an ASGI GET or HEAD: 304 when the browser's copy is current, else the best encoding it accepts."""
        accept, if_none_match = b"", b""
        for name, value in scope["headers"]:
            if name == b"accept-encoding":
                accept = value
            elif name == b"if-none-match":
                if_none_match = value
        common = [(b"etag", self.etag), (b"cache-control", self.cache_control), (b"vary", b"accept-encoding"), *headers]
        if status == 200 and if_none_match and self.etag in if_none_match:
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        encoding = self.encoding_for(accept)
        body = self.bodies[encoding]
        common = [(b"content-type", self.content_type), (b"content-length", str(len(body)).encode()), *common]
        if encoding != b"identity":
            common.append((b"content-encoding", encoding))
        await send({"type": "http.response.start", "status": status, "headers": common})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
