"""Training files people upload (the Train tab's own TSV), kept by the server under names it makes itself.

The browser sends the file's bytes to `POST /ae/api/uploads` and gets back an opaque id, the hash of the content;
the training run names the file by that id alone. A path never crosses the wire, so no request can make the
server read a file of its own, whatever the request says. Files live in a folder of their own, at most `PER_OWNER`
per address (its oldest go first; another address's never), and are deleted with the folder when the server stops.
"""

from __future__ import annotations

import atexit
import hashlib
import re
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from ..errors import UserError

MAX_UPLOAD_BYTES = 2 * 2**20  # what one upload may weigh
PER_OWNER = 4  # uploads one address keeps: its newest; the oldest of its own is dropped first
MAX_OWNERS = 64  # addresses with uploads kept at once (each a class's worth of people behind one router)
ID = re.compile(r"[0-9a-f]{32}")


class UploadTooLarge(UserError):
    """An upload over `MAX_UPLOAD_BYTES` (413)."""

    status = 413


class UnknownUpload(UserError):
    """An id the server holds no upload for (404)."""

    status = 404


class Dropping(LRUCache):
    """An `LRUCache` that tells `dropped(key, value)` what it evicts (cachetools' hook: its `popitem`)."""

    def __init__(self, maxsize: int, dropped: Callable[[Any, Any], None]):
        super().__init__(maxsize)
        self.dropped = dropped

    def popitem(self):
        key, value = super().popitem()
        self.dropped(key, value)
        return key, value


class Uploads:
    """Uploaded files by content id, in a folder only this server writes, kept per owner (an address): an owner's
    uploads push out only its own older ones, and the owner that uploaded least recently goes first when
    `max_owners` have files. A file two owners uploaded is one file, deleted when neither holds it."""

    def __init__(self, per_owner: int = PER_OWNER, max_owners: int = MAX_OWNERS):
        self.folder: Path | None = None  # made at the first upload
        self.per_owner = per_owner
        self.owners = Dropping(max_owners, lambda _, files: [self._release(u) for u in list(files.keys())])
        self.holders: Counter[str] = Counter()  # owners holding each upload
        self.lock = threading.Lock()

    def add(self, data: bytes, owner: str = "") -> str:
        """Keep `data` for `owner` and return its id (the same bytes get the same id)."""
        if len(data) > MAX_UPLOAD_BYTES:
            raise UploadTooLarge(f"The file is {len(data):,} bytes; uploads are limited to {MAX_UPLOAD_BYTES:,} bytes.")
        if not data:
            raise UserError("The file is empty: upload a TSV with one 'English TAB German' pair per line.")
        upload = hashlib.blake2b(data, digest_size=16).hexdigest()
        with self.lock:
            if self.folder is None:
                self.folder = Path(tempfile.mkdtemp(prefix="ae-uploads-"))
                atexit.register(shutil.rmtree, self.folder, ignore_errors=True)
            files = self.owners.get(owner)  # the owner is the most recent now
            if files is None:  # a new owner pushes out the least recent one, and the files only it held
                files = self.owners[owner] = Dropping(self.per_owner, lambda gone, _: self._release(gone))
            if upload not in files:
                if not self.holders[upload]:
                    (self.folder / f"{upload}.tsv").write_bytes(data)
                self.holders[upload] += 1
            files[upload] = None  # its newest: beyond `per_owner`, its oldest goes
        return upload

    def _release(self, upload: str) -> None:
        """One owner less holds `upload`; its file goes with the last."""
        self.holders[upload] -= 1
        if self.holders[upload] <= 0:
            del self.holders[upload]
            (self.folder / f"{upload}.tsv").unlink(missing_ok=True)

    def path(self, upload) -> Path:
        """The file of an id `add` returned, or a UserError naming what was sent."""
        if not isinstance(upload, str) or not ID.fullmatch(upload):
            raise UserError(f"{str(upload)[:80]!r} is not an upload id: upload the file first (POST /ae/api/uploads).")
        with self.lock:
            held = self.holders[upload] > 0
        if not held:
            raise UnknownUpload(
                f"No upload {upload!r} on this server (each address keeps its last {self.per_owner}): upload the file "
                "again."
            )
        return self.folder / f"{upload}.tsv"
