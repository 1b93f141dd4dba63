"""Static files served from memory, compressed once: a first visit's hundred files cost a dict lookup each.

Starlette's per-response compression gzipped (and Gradio's middleware brotli-compressed) plotly.js and every
asset chunk again for every visitor, streaming each file in thread hops. Here each file is read, compressed
with brotli and gzip at their best settings and given a strong ETag the first time anyone asks for it (one
thread does it, however many ask at once), then answered from memory: the encoding the browser accepts, a
304 for a matching If-None-Match, and a year of `immutable` caching for names that carry a content hash.
Only files under the folders given are served; anything else falls through to the app behind.
"""

from __future__ import annotations

import asyncio
import mimetypes
from pathlib import Path

from ..app.encoded import IMMUTABLE, REVALIDATE, Encoded


def content_type_of(path: str) -> str:
    if path.endswith((".js", ".mjs")):
        return "application/javascript"
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def plain_path(path: str) -> bool:
    """A URL path with no `.`, `..` or empty segments, no NUL or backslash: every file has one such URL, so one
    cache entry (an alias is left to the app behind)."""
    return not ("\x00" in path or "\\" in path or "//" in path or any(part in (".", "..") for part in path.split("/")))


class AssetStore:
    """Files under URL prefixes (each mapped to a folder), plus assets added from memory, kept compressed."""

    def __init__(self, folders: dict[str, Path], immutable_prefixes: tuple[str, ...] = ()):
        self.folders = {prefix: folder.resolve() for prefix, folder in folders.items()}
        self.immutable_prefixes = immutable_prefixes
        self.assets: dict[str, Encoded] = {}
        self.pending: dict[str, asyncio.Future] = {}

    def add(self, path: str, data: bytes, content_type: str, immutable: bool = True) -> None:
        self.assets[path] = Encoded.of(data, content_type, IMMUTABLE if immutable else REVALIDATE)

    def serves(self, path: str) -> bool:
        """A path this store answers: one of its assets, or a plain path under a folder's prefix."""
        if path in self.assets:
            return True
        return plain_path(path) and any(path.startswith(prefix) for prefix in self.folders)

    def file_for(self, path: str) -> Path | None:
        """The file a URL path names, only if it lies inside its prefix's folder."""
        for prefix, folder in self.folders.items():
            if path.startswith(prefix):
                candidate = (folder / path[len(prefix) :]).resolve()
                if candidate.is_relative_to(folder) and candidate.is_file():
                    return candidate
        return None

    async def get(self, path: str) -> Encoded | None:
        """The asset at a URL path, read and compressed on first use (once, however many wait for it)."""
        asset = self.assets.get(path)
        if asset is not None:
            return asset
        future = self.pending.get(path)
        if future is None:
            future = self.pending[path] = asyncio.get_running_loop().create_future()
            try:
                asset = await asyncio.to_thread(self._load, path)
                if asset is not None:
                    self.assets[path] = asset
                future.set_result(asset)
            except BaseException as exc:  # noqa: BLE001 - every waiter hears of it; the app behind answers instead
                future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            finally:
                del self.pending[path]
        return await asyncio.shield(future)

    def _load(self, path: str) -> Encoded | None:
        file = self.file_for(path)
        if file is None:
            return None
        immutable = any(path.startswith(prefix) for prefix in self.immutable_prefixes)
        return Encoded.of(file.read_bytes(), content_type_of(file.name), IMMUTABLE if immutable else REVALIDATE)
