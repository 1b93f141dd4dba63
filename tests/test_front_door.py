"""The middleware (explorer/server/middleware.py) around a stand-in app: static files from memory, one render per page
address and from the key's headers alone, aliases, bodies and closed routes, through HTTP."""

from __future__ import annotations

from starlette.testclient import TestClient

from explorer.app.encoded import IMMUTABLE
from explorer.server.middleware import KEPT, AppMiddleware, kept_as


class App:
    """Renders the page with the host and root headers it was given, serves `/assets/chunk-1.js` and
    `/own/chunk-abc.js` and a 404 for other files; counts its renders."""

    def __init__(self):
        self.renders, self.seen = 0, []

    async def __call__(self, scope, receive, send):
        self.renders += 1
        self.seen.append(dict(scope["headers"]))
        status, content_type = 200, b"text/html"
        if scope["path"].startswith(("/assets/", "/static/", "/own/")):
            files = {"/assets/chunk-1.js": b"export const one = 1;" * 50, "/own/chunk-abc.js": b"console.log(1);" * 99}
            found = scope["path"] in files
            status, content_type = (200, b"text/javascript") if found else (404, b"text/plain")
            status = 500 if scope["path"] == "/static/broken.js" else status  # what a folder's URL got from Gradio
            body = files[scope["path"]] if found else b"Not Found"
        else:
            root = dict(scope["headers"]).get(b"x-gradio-server", dict(scope["headers"]).get(b"host", b"?"))
            body = b"<html>root=" + root + b" " + b"x" * 2000 + b"</html>"
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})
        await send({"type": "http.response.body", "body": body})


def door(tmp_path):
    app = App()
    return app, TestClient(AppMiddleware(app, upload_bytes=1000, kept=KEPT | {"/own/": IMMUTABLE}))


def test_a_static_file_is_compressed_once_and_an_alias_is_not_served_from_memory(tmp_path):
    app, client = door(tmp_path)
    first = client.get("/own/chunk-abc.js", headers={"accept-encoding": "br"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "br" and app.renders == 1
    assert "immutable" in first.headers["cache-control"]
    assert client.get("/own/chunk-abc.js", headers={"if-none-match": first.headers["etag"]}).status_code == 304
    assert client.get("/own/chunk-abc.js").text == "console.log(1);" * 99 and app.renders == 1  # from memory
    for alias in ("/own/./chunk-abc.js", "/own//chunk-abc.js", "/own/x/../chunk-abc.js", "/own/a\x00.js"):
        assert kept_as(alias, client.app.kept) is None, alias  # never kept: one file, one cache entry
    assert list(client.app.files) == [("/own/chunk-abc.js", b"")]
    missing = client.get("/own/missing.js")  # not there: a 404 in the one shape, not the app's own
    assert missing.status_code == 404 and "error" in missing.json() and app.renders == 2


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
    assert client.get("/?page=2").status_code == 200 and app.renders == 2  # the page, whatever Gradio query it names
    assert client.get("/?v=2").status_code == 200 and app.renders == 3  # the theme's version is another address


def test_a_request_body_is_capped_and_a_get_is_not_counted(tmp_path):
    app, client = door(tmp_path)
    refused = client.post("/ae/api/ask/explain", content=b"x" * 70_000)
    assert refused.status_code == 413 and list(refused.json()) == ["error"] and app.renders == 0


def test_only_the_api_and_the_pages_own_routes_reach_the_app(tmp_path):
    app, client = door(tmp_path)
    for method, path in [("POST", "/gradio_api/queue/join"), ("GET", "/gradio_api/info"), ("POST", "/"), ("GET", "/x")]:
        closed = client.request(method, path)
        assert closed.status_code == 404 and "/ae/api" in closed.json()["error"], (method, path)
    assert app.renders == 0
    assert client.get("/ae/api/models").status_code == 200 and client.get("/config").status_code == 200
    assert app.renders == 2


def test_gradios_files_are_fetched_from_gradio_once_and_kept_compressed(tmp_path):
    app, client = door(tmp_path)
    first = client.get("/assets/chunk-1.js", headers={"accept-encoding": "br", "cookie": "a=b"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "br" and app.renders == 1
    assert first.text == "export const one = 1;" * 50 and "immutable" in first.headers["cache-control"]
    asked = app.seen[-1]  # asked for by its path alone: no visitor's cookie or host reaches what is kept
    assert b"cookie" not in asked and asked[b"host"] == b"testserver" and asked[b"accept-encoding"] == b"identity"
    again = client.get("/assets/chunk-1.js", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and app.renders == 1  # from memory
    for missing in ("/assets/missing.js", "/static/font.woff2"):
        answer = client.get(missing)  # not kept, and said in the one shape
        assert answer.status_code == 404 and "error" in answer.json(), missing
    assert list(client.app.files) == [("/assets/chunk-1.js", b"")]
    for alias in ("/assets/./chunk-1.js", "/assets//chunk-1.js", "/assets/x/../chunk-1.js", "/assets/a\x00.js"):
        assert kept_as(alias) is None, alias  # left to Gradio: one file, one entry


def test_an_alias_a_folder_or_a_failure_of_a_kept_file_is_a_404_in_words_and_never_kept(tmp_path):
    """From a review: `x.js/` was served (and kept) as a second copy of `x.js`; a kept path the app behind answered
    with neither 200 nor 404 (Gradio's folder URLs) crashed the middleware with a plain-text 500; `/ae/api` itself
    reached Gradio's own 404."""
    app, client = door(tmp_path)
    for path in ("/assets/chunk-1.js/", "/static/broken.js", "/ae/api"):
        answer = client.get(path)
        assert answer.status_code == 404 and list(answer.json()) == ["error"], (path, answer.text[:100])
    assert not client.app.files  # nothing kept


def test_one_peer_has_a_bounded_number_of_new_page_addresses_rendered(tmp_path):
    """From a review of issue 51: each new Host (or forwarded header) made Gradio render the page again (~75 ms of
    CPU), and 160 of them pushed the real page out of the kept ones. A peer gets `RENDER_RATE` new ones a minute;
    the kept ones it asks again cost nothing."""
    from explorer.server.middleware import RENDER_RATE

    app, client = door(tmp_path)
    assert RENDER_RATE == "20/minute"
    for i in range(20):
        assert client.get("/", headers={"host": f"h{i}.example"}).status_code == 200
    refused = client.get("/", headers={"host": "h20.example"})
    assert refused.status_code == 429 and "Too many addresses of the page" in refused.json()["error"]
    assert app.renders == 20 and client.get("/", headers={"host": "h3.example"}).status_code == 200  # kept


def test_behind_a_trusted_proxy_the_page_renders_are_counted_by_the_visitors_address():
    """A second review of issue 51: on a Space every visitor's peer is the proxy, and 20 new page addresses asked by
    one visitor had the page refused (429) to every other visitor for a minute."""
    from ipaddress import ip_network

    app = App()
    client = TestClient(
        AppMiddleware(app, upload_bytes=1000, proxies=[ip_network("127.0.0.0/8")]), client=("127.0.0.1", 9)
    )
    script = {"x-forwarded-for": "203.0.113.66"}
    for i in range(20):
        assert client.get(f"/?v={i}", headers=script).status_code == 200
    assert client.get("/?v=20", headers=script).status_code == 429
    assert client.get("/", headers={"x-forwarded-for": "198.51.100.7"}).status_code == 200  # another visitor
    forged = client.get("/?v=21", headers={"x-forwarded-for": "198.51.100.7, 203.0.113.66"})  # the proxy's entry last
    assert forged.status_code == 429
