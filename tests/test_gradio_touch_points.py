"""Every place the explorer relies on Gradio beyond its documented API, held to what the code assumes: after a Gradio
upgrade, the test of a touch point that moved fails with a message that names the file relying on it and what to
do. `requirements.txt` pins the minor version these ran on; the README's Space front matter names the same one."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import gradio as gr
import pytest

pytestmark = pytest.mark.slow  # a second or more each: CI runs them, `tests/run.py --fast` leaves them out

ROOT = Path(__file__).resolve().parents[1]


def relied_on(what: str, where: str) -> str:
    return f"Gradio {gr.__version__} changed {what}, which {where} relies on: adapt {where} (or pin the old Gradio)."


def test_the_pinned_gradio_is_the_one_installed_and_the_space_names_it():
    pin = re.search(r"^gradio>=([\d.]+),<([\d.]+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pin, "requirements.txt pins gradio to one minor version: gradio>=X.Y.Z,<X.(Y+1)"
    space = re.search(r"^sdk_version: ([\d.]+)$", (ROOT / "README.md").read_text(), re.M).group(1)
    assert space == pin.group(1), f"the README's Space runs gradio {space}, requirements.txt pins {pin.group(1)}"
    major, minor = (int(x) for x in gr.__version__.split(".")[:2])
    low = tuple(int(x) for x in pin.group(1).split(".")[:2])
    assert (major, minor) == low, f"installed gradio {gr.__version__}, pinned {pin.group(1)}: the tests ran on the pin"


def test_gradios_front_end_is_served_under_the_prefixes_the_middleware_keeps(mini_handle):
    """The middleware keeps Gradio's files as Gradio serves them (`middleware.KEPT`): the page's scripts and
    stylesheets are under `/assets/`, named by a content hash (kept for a year), and answered as plain files."""
    from starlette.testclient import TestClient

    from explorer.server.middleware import KEPT
    from explorer.server.server import build_app

    door, _ = build_app(mini_handle)
    where = "explorer/server/middleware.py (KEPT)"
    with TestClient(door.app) as gradio:  # the app behind the front door
        page = gradio.get("/").text
        files = sorted(set(re.findall(r"/assets/[\w.-]+\.(?:js|css)\b", page)))
        assert files and all(name.startswith(tuple(KEPT)) for name in files), relied_on("the page's asset URLs", where)
        for name in files:
            assert re.search(r"-[\w-]{8}\.(js|css)$", name), relied_on(f"asset names ({name} has no hash)", where)
            answer = gradio.get(name, headers={"accept-encoding": "identity"})
            assert answer.status_code == 200 and "set-cookie" not in answer.headers, relied_on(f"{name}", where)
            assert "content-encoding" not in answer.headers and len(answer.content) > 1000, relied_on(name, where)


@pytest.mark.parametrize("path", ["/", "/theme.css"])
def test_the_page_gradio_renders_is_the_same_for_every_visitor_at_one_address(mini_handle, path):
    """The middleware renders the page and the theme once per address and serves that copy to everyone: Gradio
    itself (behind it, not its cache) must render them from the address alone, the same bytes each time."""
    from starlette.testclient import TestClient

    from explorer.server.server import build_app

    door, _ = build_app(mini_handle)
    with TestClient(door.app) as gradio:  # the app behind the middleware: Gradio renders every request
        first = gradio.get(path, headers={"x-ae-client": "one", "cookie": "a=1"})
        second = gradio.get(path, headers={"x-ae-client": "two", "user-agent": "another browser"})
    assert first.status_code == second.status_code == 200 and first.content, (path, first.status_code)
    assert first.content == second.content, relied_on(
        f"the page at {path} (now different per visitor)", "explorer/server/middleware.py"
    )


def test_gradios_event_queue_is_started_by_the_lifespan_mount_gradio_app_installs_which_the_server_leaves_out(
    mini_handle,
):
    """No event of the page runs on the server, so `server.build_app` keeps its own app's lifespan, not the one
    `mount_gradio_app` installs, which starts Gradio's queue (its loops poll the event loop every 1 ms while free).
    Served as the server serves it, the page is there, Gradio's route that starts the queue is closed and no task of
    Gradio's runs; mounted as Gradio would have it, its queue's tasks do (else this test would hold nothing)."""
    import asyncio

    import gradio as gr
    from fastapi import FastAPI
    from starlette.testclient import TestClient

    from explorer.server.server import build_app
    from explorer.ui import build_demo

    async def gradios_tasks() -> list[str]:
        codes = [getattr(task.get_coro(), "cr_code", None) for task in asyncio.all_tasks()]
        return sorted(code.co_qualname for code in codes if code and f"{os.sep}gradio{os.sep}" in code.co_filename)

    door, _ = build_app(mini_handle)
    with TestClient(door) as served:
        assert served.get("/").status_code == 200
        for path in ("/gradio_api/startup-events", "/startup-events"):  # Gradio's own way to start it: closed
            assert served.get(path).status_code == 404, path
        assert served.portal.call(gradios_tasks) == [], relied_on("where its queue starts", "explorer/server/server.py")
    with TestClient(gr.mount_gradio_app(FastAPI(), build_demo(mini_handle), path="/")) as mounted:
        assert mounted.portal.call(gradios_tasks), relied_on("its lifespan (it starts no queue now)", "this test")


# what the explorer takes from inside Gradio (beyond `import gradio as gr` and its documented API), each held by a
# test above; issue 37 took out set_event_trigger, get_blocks_context, the Api component, state_session_capacity,
# route_utils' build paths (the middleware keeps Gradio's files as Gradio serves them), gradio.utils' upload
# folder (the Train tab's file comes through the API) and the preprocess_data override; issue 51 took out every
# event that ran on the server, and with them what guarded Gradio's event routes (its /config and /gradio_api/info
# fields, the route grammar, the 422 body): the page's routes are all the middleware lets through to Gradio. One
# reliance came with it: Gradio's queue starts in the lifespan `mount_gradio_app` installs, which the server leaves
# out (its test above); should that move, the page still works and the server polls 1,750 times a second again
INTERNAL_IMPORTS: dict[str, set[str]] = {}
OVERRIDES: set[str] = set()


def test_the_page_needs_of_gradio_only_the_routes_the_middleware_lets_through(mini_handle):
    """What the page's assets ask Gradio for, beside `/assets/` and `/static/` (`middleware.KEPT`), is in
    `middleware.GRADIO_GETS`: the rendered page names no other Gradio route it would fetch (its API routes, queue,
    heartbeat, uploads), and asks for no `/config` of its own (the config is in the page)."""
    from starlette.testclient import TestClient

    from explorer.server.middleware import GRADIO_GETS
    from explorer.server.server import build_app

    door, _ = build_app(mini_handle)
    where = "explorer/server/middleware.py (GRADIO_GETS)"
    with TestClient(door.app) as gradio:
        page = gradio.get("/").text
    assert "window.gradio_config" in page, relied_on("the page's embedded config", where)
    config = json.loads(re.search(r"window\.gradio_config = (\{.*?\});\s*</script>", page, re.S).group(1))
    assert not [d for d in config["dependencies"] if d.get("backend_fn")], relied_on("events without a backend", where)
    # the page's script fetches its theme as /theme.css?v=<theme_hash> (what the middleware renders per address)
    assert config.get("theme_hash") and "/theme.css" in GRADIO_GETS, relied_on("the theme's URL", where)
    with TestClient(door) as served:
        assert served.get("/theme.css", params={"v": config["theme_hash"]}).status_code == 200


def test_the_gradio_internals_used_are_exactly_the_ones_tested_here():
    imports, overrides = {}, set()
    for path in [ROOT / "app.py", *sorted((ROOT / "explorer").rglob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        for module, names in re.findall(r"^from (gradio\.[\w.]+) import ([\w, ]+)$", text, re.M):
            imports.setdefault(module, set()).update(n.strip() for n in names.split(","))
        assert not re.search(r"^import gradio\.", text, re.M), f"{path}: imports a Gradio submodule"
        assert not re.search(r"\bgr\.(utils|route_utils|context|routes|queueing|blocks)\.", text), path
        if re.search(r"class \w+\(gr\.Blocks\)", text):
            overrides.update(re.findall(r"^    (?:async )?def (\w+)\(", text, re.M))
    assert imports == INTERNAL_IMPORTS, f"Gradio internals imported: {imports}; each needs its touch-point test"
    assert overrides == OVERRIDES, f"gr.Blocks methods overridden: {overrides}; each needs its touch-point test"
