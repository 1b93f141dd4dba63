"""The Train tab's uploaded files (explorer/app/uploads.py): kept by content id, bounded, refused by name."""

from __future__ import annotations

import pytest

from explorer.app.uploads import MAX_UPLOAD_BYTES, UnknownUpload, Uploads, UploadTooLarge
from explorer.errors import UserError


def test_a_file_is_kept_under_its_content_id_and_read_back():
    uploads = Uploads()
    first = uploads.add(b"I see.\tIch sehe.\n")
    assert uploads.add(b"I see.\tIch sehe.\n") == first and len(first) == 32  # the same bytes, the same id
    assert uploads.path(first).read_bytes() == b"I see.\tIch sehe.\n"
    assert uploads.path(first).parent == uploads.folder  # a folder of the server's own


def test_the_oldest_upload_goes_first_and_its_file_with_it():
    uploads = Uploads(per_owner=2)
    a, b = uploads.add(b"a"), uploads.add(b"b")
    uploads.add(b"a")  # used again: b is now the oldest
    c = uploads.add(b"c")
    file_b = uploads.folder / f"{b}.tsv"
    assert not file_b.exists() and {uploads.path(a).name, uploads.path(c).name} == {f"{a}.tsv", f"{c}.tsv"}
    with pytest.raises(UnknownUpload, match=f"No upload '{b}' on this server"):
        uploads.path(b)


def test_one_address_uploading_many_files_never_pushes_out_anothers():
    """Issue 51: uploads were one list of 64 for everyone, so one script's 64 uploads evicted every student's file."""
    uploads = Uploads(per_owner=4, max_owners=8)
    mine = uploads.add(b"I see.\tIch sehe.\n", "10.0.0.7")
    for n in range(200):  # a script from one address
        uploads.add(f"flood {n}\tFlut\n".encode(), "10.0.0.66")
    assert uploads.path(mine).read_bytes() == b"I see.\tIch sehe.\n"
    assert len(list(uploads.folder.iterdir())) == 5  # the script keeps its own newest 4; nothing else grew
    shared = uploads.add(b"same\tgleich\n", "10.0.0.66")
    assert uploads.add(b"same\tgleich\n", "10.0.0.7") == shared  # one file held by two addresses
    for n in range(4):  # the script's own newest push its copy out: the other address still holds the file
        uploads.add(f"more {n}\tmehr\n".encode(), "10.0.0.66")
    assert uploads.path(shared).exists() and uploads.path(mine).exists()


def test_the_least_recent_address_goes_with_the_files_only_it_held():
    uploads = Uploads(per_owner=2, max_owners=2)
    first = uploads.add(b"first\tzuerst\n", "10.0.0.1")
    both = uploads.add(b"both\tbeide\n", "10.0.0.1")
    assert uploads.add(b"both\tbeide\n", "10.0.0.2") == both
    uploads.add(b"third\tdritte\n", "10.0.0.3")  # a third address: 10.0.0.1 uploaded least recently
    assert not (uploads.folder / f"{first}.tsv").exists() and uploads.path(both).exists()
    with pytest.raises(UnknownUpload):
        uploads.path(first)
    assert sorted(p.name for p in uploads.folder.iterdir()) == sorted(f"{u}.tsv" for u in uploads.holders)


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
