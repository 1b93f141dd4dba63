"""Every place the explorer relies on Gradio beyond its documented API, held to what the code assumes: after a Gradio
upgrade, the test of a touch point that moved fails with a message that names the file relying on it and what to
do. `requirements.txt` pins the minor version these ran on; the README's Space front matter names the same one."""

from __future__ import annotations

import re
from pathlib import Path

import gradio as gr
import pytest

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


# Gradio's POST routes that take no event call, so the Gradio door lets them through unread
NOT_CALLS = {
    "/gradio_api/cancel",
    "/gradio_api/reset",
    "/gradio_api/upload",
    "/gradio_api/login",
    "/gradio_api/process_recording",
    "/gradio_api/profiling/clear",
    "/gradio_api/run-history/connect",
    "/gradio_api/stream/{event_id}",
    "/gradio_api/stream/{event_id}/close",
    "/gradio_api/vibe-edit",
    "/gradio_api/undo-vibe-edit",
    "/gradio_api/vibe-code",
    "/gradio_api/vibe-starter-queries",
    "/login",
}


def gradio_post_routes(door) -> set[str]:
    """The POST routes of the Gradio app behind the Gradio door, as its own OpenAPI document lists them."""
    from starlette.testclient import TestClient

    with TestClient(door.app) as gradio:
        paths = gradio.get("/openapi.json").json()["paths"]
    return {path.rstrip("/") for path, operations in paths.items() if "post" in operations}


def test_every_gradio_route_that_takes_a_call_is_one_the_gradio_door_checks(mini_handle):
    from explorer.ui.gradio_door import CALL
    from explorer.ui.server import build_app

    door, _ = build_app(mini_handle)
    where = "explorer/ui/gradio_door.py (CALL)"
    calls = gradio_post_routes(door) - NOT_CALLS
    known = {
        "queue/join",
        "call/{api_name}",
        "call/v2/{api_name}",
        "run/{api_name}",
        "api/{api_name}",
        "component_server",
    }
    assert {f"/gradio_api/{path}" for path in known} <= calls, relied_on("the routes that take an event call", where)
    for path in sorted(calls):
        example = path.replace("{api_name}", "some_name")
        assert CALL.fullmatch(example), relied_on(f"its POST routes (a new one: {path}; does it take a call?)", where)


def test_what_the_gradio_door_reads_is_what_gradio_publishes(mini_handle):
    """The door learns the page's events from Gradio's `/config` and `/gradio_api/info`, by these fields."""
    from starlette.testclient import TestClient

    from explorer.ui.gradio_door import Events
    from explorer.ui.server import build_app

    door, demo = build_app(mini_handle)
    where = "explorer/ui/gradio_door.py (Events.of)"
    with TestClient(door.app) as gradio:
        config = gradio.get("/config").json()
        info = gradio.get("/gradio_api/info", params={"all_endpoints": "true"}).json()
    assert all(isinstance(page, list) and isinstance(page[0], str) for page in config["pages"]), relied_on(
        "/config's pages", where
    )
    for dep in config["dependencies"]:
        assert {"id", "inputs", "backend_fn", "api_name"} <= set(dep), relied_on("/config's dependencies", where)
    for spec in info["named_endpoints"].values():
        for parameter in spec["parameters"]:
            assert {"parameter_name", "parameter_has_default"} <= set(parameter), relied_on("/info's parameters", where)
    events = Events.of(config, info)
    assert events.inputs["/choose_model"] == 2 and events.parameters["/choose_model"][0]["parameter_name"] == "use_own"
    assert len(events.takes) == sum(1 for dep in config["dependencies"] if dep["backend_fn"]) >= 5
    assert events.pages == {""} and events.page_refusal("") is None


def test_gradios_front_end_is_served_under_the_prefixes_the_front_door_keeps(mini_handle):
    """The front door keeps Gradio's files as Gradio serves them (`front_door.KEPT`): the page's scripts and
    stylesheets are under `/assets/`, named by a content hash (kept for a year), and answered as plain files."""
    from starlette.testclient import TestClient

    from explorer.ui.front_door import KEPT
    from explorer.ui.server import build_app

    door, _ = build_app(mini_handle)
    where = "explorer/ui/front_door.py (KEPT)"
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
    """FrontDoor renders the page and the theme once per address and serves that copy to everyone: Gradio itself
    (behind the front door, not its cache) must render them from the address alone, the same bytes each time."""
    from starlette.testclient import TestClient

    from explorer.ui.server import build_app

    door, _ = build_app(mini_handle)
    with TestClient(door.app) as gradio:  # the app behind the front door: Gradio renders every request
        first = gradio.get(path, headers={"x-ae-client": "one", "cookie": "a=1"})
        second = gradio.get(path, headers={"x-ae-client": "two", "user-agent": "another browser"})
    assert first.status_code == second.status_code == 200 and first.content, (path, first.status_code)
    assert first.content == second.content, relied_on(
        f"the page at {path} (now different per visitor)", "explorer/ui/front_door.py"
    )


# what the explorer takes from inside Gradio (beyond `import gradio as gr` and its documented API), each held by a
# test above; issue 37 took out set_event_trigger, get_blocks_context, the Api component, state_session_capacity,
# route_utils' build paths (the front door keeps Gradio's files as Gradio serves them), gradio.utils' upload
# folder (the Train tab's file comes through the API) and the preprocess_data override (the Gradio door checks a
# call's values beside Gradio)
INTERNAL_IMPORTS: dict[str, set[str]] = {}
OVERRIDES: set[str] = set()  # the last one, preprocess_data, gave way to explorer/ui/gradio_door.py


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
