"""Training files people upload (the Train tab's own TSV), kept by the server under names it makes itself.

The browser sends the file's bytes to `POST /ae/api/uploads` and gets back an opaque id, the hash of the content;
the training run names the file by that id alone. A path never crosses the wire, so no request can make the
server read a file of its own, whatever the request says. Files live in a folder of their own, at most
`MAX_FILES` of them (the oldest go first), and are deleted with the folder when the server stops.
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

from ..interpret.request import UserError

MAX_UPLOAD_BYTES = 2 * 2**20  # what one upload may weigh (Gradio's upload limit says the same)
MAX_FILES = 64  # uploads kept at once: a class's worth; the oldest is dropped first
ID = re.compile(r"[0-9a-f]{32}")


class UploadTooLarge(UserError):
    """An upload over `MAX_UPLOAD_BYTES` (413)."""

    status = 413


class UnknownUpload(UserError):
    """An id the server holds no upload for (404)."""

    status = 404


class Uploads:
    """Uploaded files by content id, in a folder only this server writes."""

    def __init__(self, max_files: int = MAX_FILES):
        self.folder: Path | None = None  # made at the first upload
        self.max_files = max_files
        self.files: OrderedDict[str, Path] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, data: bytes) -> str:
        """Keep `data` and return its id (the same bytes get the same id)."""
        if len(data) > MAX_UPLOAD_BYTES:
            raise UploadTooLarge(f"The file is {len(data):,} bytes; uploads are limited to {MAX_UPLOAD_BYTES:,} bytes.")
        if not data:
            raise UserError("The file is empty: upload a TSV with one 'English TAB German' pair per line.")
        upload = hashlib.blake2b(data, digest_size=16).hexdigest()
        with self.lock:
            path = self.files.get(upload)
            if path is None:
                if self.folder is None:
                    self.folder = Path(tempfile.mkdtemp(prefix="ae-uploads-"))
                    atexit.register(shutil.rmtree, self.folder, ignore_errors=True)
                path = self.folder / f"{upload}.tsv"
                path.write_bytes(data)
                self.files[upload] = path
                while len(self.files) > self.max_files:
                    self.files.popitem(last=False)[1].unlink(missing_ok=True)
            self.files.move_to_end(upload)
        return upload

    def path(self, upload) -> Path:
        """The file of an id `add` returned, or a UserError naming what was sent."""
        if not isinstance(upload, str) or not ID.fullmatch(upload):
            raise UserError(f"{str(upload)[:80]!r} is not an upload id: upload the file first (POST /ae/api/uploads).")
        with self.lock:
            path = self.files.get(upload)
        if path is None:
            raise UnknownUpload(
                f"No upload {upload!r} on this server (it keeps the last {self.max_files}): upload the file again."
            )
        return path
