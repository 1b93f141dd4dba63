"""The front door (explorer/ui/front_door.py) around a stand-in app: static files from memory, one render per page
address and from the key's headers alone, aliases and bodies, through HTTP."""

from __future__ import annotations

from starlette.testclient import TestClient

from explorer.ui.front_door import FrontDoor
from explorer.ui.static_files import AssetStore


class App:
    """Renders the page with the host and root headers it was given; counts its renders."""

    def __init__(self):
        self.renders, self.seen = 0, []

    async def __call__(self, scope, receive, send):
        self.renders += 1
        self.seen.append(dict(scope["headers"]))
        root = dict(scope["headers"]).get(b"x-gradio-server", dict(scope["headers"]).get(b"host", b"?"))
        body = b"<html>root=" + root + b" " + b"x" * 2000 + b"</html>"
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": body})


def door(tmp_path):
    (tmp_path / "chunk-abc.js").write_text("console.log('hi');" * 100)
    app = App()
    store = AssetStore({"/assets/": tmp_path}, immutable_prefixes=("/assets/",))
    return app, TestClient(FrontDoor(app, store, upload_bytes=1000))


def test_a_static_file_is_compressed_once_and_an_alias_is_not_served_from_memory(tmp_path):
    app, client = door(tmp_path)
    first = client.get("/assets/chunk-abc.js", headers={"accept-encoding": "br"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "br"
    assert "immutable" in first.headers["cache-control"] and app.renders == 0  # the app behind never saw it
    assert client.get("/assets/chunk-abc.js", headers={"if-none-match": first.headers["etag"]}).status_code == 304
    store = client.app.store
    for alias in ("/assets/./chunk-abc.js", "/assets//chunk-abc.js", "/assets/x/../chunk-abc.js", "/assets/a\x00.js"):
        assert not store.serves(alias), alias  # the app behind answers aliases: one file, one cache entry
    assert list(store.assets) == ["/assets/chunk-abc.js"]
    assert client.get("/assets/missing.js").status_code == 200 and app.renders == 1  # the app answers what is not there


def test_the_page_is_rendered_once_per_address_from_the_key_headers_alone(tmp_path):
    app, client = door(tmp_path)
    a = client.get("/?s=One+sentence.", headers={"accept-encoding": "br"})
    b = client.get("/?s=Another.&step=3", headers={"accept-encoding": "gzip"})
    assert app.renders == 1 and b.headers["etag"] == a.headers["etag"]  # a deep link's s=... is the browser's
    assert a.headers["content-encoding"] == "br" and a.content.startswith(b"<html>root=testserver")  # decoded
    poisoned = client.get("/", headers={"x-gradio-server": "https://evil.example", "cookie": "a=b"})
    assert b"evil" not in poisoned.content and all(b"x-gradio-server" not in h for h in app.seen)
    client.get("/", headers={"host": "other.example"})
    assert app.renders == 2  # another host is another address
    assert client.get("/?page=2").status_code == 200 and app.renders == 3  # a Gradio page is another address


def test_a_request_body_is_capped_and_a_get_is_not_counted(tmp_path):
    app, client = door(tmp_path)
    refused = client.post("/gradio_api/queue/join", content=b"x" * 70_000)
    assert refused.status_code == 413 and app.renders == 0
