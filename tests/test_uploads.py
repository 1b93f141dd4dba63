"""The Train tab's uploaded files (explorer/app/uploads.py): kept by content id, bounded, refused by name."""

from __future__ import annotations

import pytest

from explorer.app.uploads import MAX_UPLOAD_BYTES, UnknownUpload, Uploads, UploadTooLarge
from explorer.interpret.request import UserError


def test_a_file_is_kept_under_its_content_id_and_read_back():
    uploads = Uploads()
    first = uploads.add(b"I see.\tIch sehe.\n")
    assert uploads.add(b"I see.\tIch sehe.\n") == first and len(first) == 32  # the same bytes, the same id
    assert uploads.path(first).read_bytes() == b"I see.\tIch sehe.\n"
    assert uploads.path(first).parent == uploads.folder  # a folder of the server's own


def test_the_oldest_upload_goes_first_and_its_file_with_it():
    uploads = Uploads(max_files=2)
    a, b = uploads.add(b"a"), uploads.add(b"b")
    uploads.add(b"a")  # used again: b is now the oldest
    c = uploads.add(b"c")
    file_b = uploads.folder / f"{b}.tsv"
    assert not file_b.exists() and {uploads.path(a).name, uploads.path(c).name} == {f"{a}.tsv", f"{c}.tsv"}
    with pytest.raises(UnknownUpload, match=f"No upload '{b}' on this server"):
        uploads.path(b)


@pytest.mark.parametrize("sent", ["/etc/passwd", "../" + "0" * 32, {"path": "/etc/passwd"}, None, 7, "A" * 32])
def test_anything_but_an_id_is_refused_by_name(sent):
    with pytest.raises(UserError, match="is not an upload id") as refused:
        Uploads().path(sent)
    assert str(sent)[:20] in str(refused.value)


def test_an_empty_or_oversized_file_is_refused():
    with pytest.raises(UserError, match="empty"):
        Uploads().add(b"")
    with pytest.raises(UploadTooLarge, match="2,097,152 bytes"):
        Uploads().add(b"x" * (MAX_UPLOAD_BYTES + 1))
