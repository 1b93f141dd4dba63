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
from collections import OrderedDict
from pathlib import Path

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


class Uploads:
    """Uploaded files by content id, in a folder only this server writes, kept per owner (an address): an owner's
    uploads push out only its own older ones, and the owner that uploaded least recently goes first when
    `max_owners` have files. A file two owners uploaded is one file, deleted when neither holds it."""

    def __init__(self, per_owner: int = PER_OWNER, max_owners: int = MAX_OWNERS):
        self.folder: Path | None = None  # made at the first upload
        self.per_owner, self.max_owners = per_owner, max_owners
        self.owners: OrderedDict[str, OrderedDict[str, Path]] = OrderedDict()
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
            path = self.folder / f"{upload}.tsv"
            if self._held(upload) is None:
                path.write_bytes(data)
            files = self.owners.setdefault(owner, OrderedDict())
            self.owners.move_to_end(owner)
            files[upload] = path
            files.move_to_end(upload)
            dropped = []
            while len(files) > self.per_owner:
                dropped.append(files.popitem(last=False)[0])
            while len(self.owners) > self.max_owners:
                dropped.extend(self.owners.popitem(last=False)[1])
            for gone in dropped:
                if self._held(gone) is None:
                    (self.folder / f"{gone}.tsv").unlink(missing_ok=True)
        return upload

    def _held(self, upload: str) -> Path | None:
        return next((files[upload] for files in self.owners.values() if upload in files), None)

    def path(self, upload) -> Path:
        """The file of an id `add` returned, or a UserError naming what was sent."""
        if not isinstance(upload, str) or not ID.fullmatch(upload):
            raise UserError(f"{str(upload)[:80]!r} is not an upload id: upload the file first (POST /ae/api/uploads).")
        with self.lock:
            path = self._held(upload)
        if path is None:
            raise UnknownUpload(
                f"No upload {upload!r} on this server (each address keeps its last {self.per_owner}): upload the file "
                "again."
            )
        return path
