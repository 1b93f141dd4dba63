"""`GradioDoor`: a call to one of Gradio's event routes is checked against the page's own events before Gradio reads it.

Gradio takes an event call at `/gradio_api/queue/join` (the page and gradio_client, by event number),
`/gradio_api/call/NAME` (values in order) and `/gradio_api/call/v2/NAME` (values by keyword). It runs events
directly at `/gradio_api/run/NAME` and `/gradio_api/api/NAME`, a component's server function at
`/gradio_api/component_server`, and renders a page at `/?page=NAME`. Its own checks answer HTTP 500, with a
traceback in the log, when a request names no event, component or page, sends fewer values than the event takes,
or leaves out or adds a keyword. Beside Gradio, on the ASGI app it is mounted into, this door reads the request once
and refuses those in words, in Gradio's own shapes: a 422 of `gr.validate` messages (which gradio_client raises as a
`ValidationError` naming the parameter), or a 4xx `{"detail": ...}`; a body nested too deeply to read is refused
too. The direct routes, which skip the queue and answer every failure 500, are closed: the page and gradio_client
use the queue. A request the door lets through reaches Gradio byte for byte.

The page's events are what Gradio publishes for the page (`/config`) and for API users (`/gradio_api/info`), read
from the app behind at the first request that needs them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from pydantic import TypeAdapter, ValidationError

from .inner_get import inner_get

log = logging.getLogger("explorer.ui")
PREFIX = "/gradio_api/"
CALL = re.compile(
    r"/gradio_api/(?:(?P<route>queue)/join|(?P<server>component_server)|(?P<kind>call/v2|call|run|api)/(?P<name>[^/]+))/?"
)
DIRECT = ("run", "api")  # Gradio's routes that run an event outside the queue
EVENT_NUMBER = TypeAdapter(int)  # how Gradio reads a call's `fn_index` (its request model is pydantic's)
KEYWORDS_ALWAYS = {"oauth_token"}  # a keyword Gradio's /call/v2 takes for any endpoint


@dataclass(frozen=True)
class Refusal:
    status: int
    detail: object  # a message, or (422) Gradio's list of validation results

    async def send(self, send) -> None:
        body = json.dumps({"detail": self.detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def invalid(parameter: str, message: str) -> Refusal:
    """Gradio's refusal of a value (what a failed `gr.validate` answers), naming the parameter."""
    return Refusal(422, [{"__type__": "validate", "is_valid": False, "message": message, "parameter_name": parameter}])


@dataclass(frozen=True)
class Events:
    """The page's events as Gradio publishes them: how many values each takes, by number and by API name."""

    takes: dict[int, int]  # event number -> how many values a call sends it (every input, stateful ones too)
    parameters: dict[str, list[dict]]  # API name ("/train") -> its parameters, as /gradio_api/info lists them
    inputs: dict[str, int]  # API name -> how many values the event takes in all (its stateful inputs too)
    servers: dict[int, set[str]]  # component id -> the names of its server functions (`/component_server`)
    pages: set[str]  # the page routes `/?page=` may name ("" for the first page)

    @classmethod
    def of(cls, config: dict, info: dict) -> Events:
        """From Gradio's `/config` (the page's) and `/gradio_api/info` (the API's)."""
        takes = {dep["id"]: len(dep["inputs"]) for dep in config["dependencies"] if dep.get("backend_fn")}
        parameters = {name: spec["parameters"] for name, spec in info["named_endpoints"].items()}
        inputs = {f"/{dep['api_name']}": takes[dep["id"]] for dep in config["dependencies"] if dep["id"] in takes}
        servers = {c["id"]: set(c["server_fns"]) for c in config["components"] if c.get("server_fns")}
        pages = {page[0] for page in config["pages"]}
        return cls(takes, parameters, inputs, servers, pages)

    def page_refusal(self, page: str) -> Refusal | None:
        """Why Gradio must not render `/?page=page`: it answers a page it does not have with a 500."""
        if page in self.pages:
            return None
        return Refusal(404, f"This app has no page {page!r}; open / for the Attention Explorer.")

    def refusal(self, route: str, name: str | None, body: bytes) -> Refusal | None:
        """Why Gradio must not take this call, or None to let it through (a body that is not the JSON object a
        route takes is let through too: FastAPI's own validation refuses it with a 422)."""
        if route in DIRECT:
            return Refusal(
                404,
                f"Gradio's direct route /gradio_api/{route}/{name} is not served here: call /gradio_api/call/{name} "
                "(the result comes from /gradio_api/call/NAME/EVENT_ID), or use gradio_client.",
            )
        if route == "component_server" and not self.servers:
            return Refusal(404, "No component of this page has server functions.")
        try:
            call = json.loads(body)
        except RecursionError:
            return Refusal(400, "The request's JSON is nested too deeply to read; send the object the call takes.")
        except ValueError:
            return None
        if not isinstance(call, dict):
            return None
        if route == "queue":
            return self._joined(call)
        if route == "component_server":
            component, function = call.get("component_id"), call.get("fn_name")
            if (
                type(component) is not int
                or not isinstance(function, str)
                or function not in self.servers.get(component, ())
            ):
                return Refusal(404, f"No component {component!r} has a server function {function!r}.")
            return None
        if name is None or f"/{name}" not in self.parameters:
            listed = ", ".join(sorted(self.parameters)) or "none"
            return Refusal(404, f"The API has no endpoint /{name} (its endpoints: {listed}; /gradio_api/info).")
        parameters = self.parameters[f"/{name}"]
        if route == "call/v2":
            return self._keywords(name, parameters, call)
        return self._values(name, parameters, self.inputs.get(f"/{name}", len(parameters)), call)

    def _joined(self, call: dict) -> Refusal | None:
        data = call.get("data")
        try:  # the event number as Gradio's own validation reads it (a string of digits, a whole float)
            number = EVENT_NUMBER.validate_python(call.get("fn_index"))
        except ValidationError:
            return None  # Gradio's own validation answers (400 or 422)
        if not isinstance(data, list):
            return None
        if number not in self.takes:
            return Refusal(404, f"This page has no event number {number} that runs on the server.")
        if len(data) < self.takes[number]:
            return invalid("data", f"This call sent {values(len(data))}; event {number} takes {self.takes[number]}.")
        return None

    @staticmethod
    def _values(name: str, parameters: list[dict], inputs: int, call: dict) -> Refusal | None:
        data = call.get("data")
        # Gradio fills in the stateful inputs when a call sends exactly the API's values; a call may also send all
        if not isinstance(data, list) or len(data) == len(parameters) or len(data) >= inputs:
            return None
        sent = f"This call sent {values(len(data))}; /{name} takes {len(parameters)}"
        if len(data) > len(parameters):
            return invalid("data", f"{sent}.")
        missing = parameters[len(data)]["parameter_name"]
        return invalid(missing, f"{sent} (no {missing}).")

    @staticmethod
    def _keywords(name: str, parameters: list[dict], call: dict) -> Refusal | None:
        names = [p["parameter_name"] for p in parameters]
        for key in call:
            if key not in names and key not in KEYWORDS_ALWAYS:
                return invalid(key, f"/{name} has no parameter {key!r}; it takes {', '.join(names) or 'none'}.")
        for parameter in parameters:
            if not parameter.get("parameter_has_default") and parameter["parameter_name"] not in call:
                return invalid(parameter["parameter_name"], f"/{name} needs a value for {parameter['parameter_name']}.")
        return None


class GradioDoor:
    """`app` (the FastAPI app Gradio is mounted in, at `/`) with every call to Gradio's event routes checked first."""

    def __init__(self, app):
        self.app = app
        self.events: asyncio.Future | None = None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"] == "/" and scope["method"] in ("GET", "HEAD"):
            return await self._page(scope, receive, send)
        route = CALL.fullmatch(scope["path"]) if scope["method"] == "POST" else None
        if route is None:
            return await self.app(scope, receive, send)
        body = await read_body(receive)
        if body is None:
            return  # the client left (or the body limit refused it)
        name = route["name"]
        events = await self._events(scope)
        refusal = (
            events.refusal(route["route"] or route["server"] or route["kind"], name, body)
            if events is not None
            else None
        )
        if refusal is not None:
            return await refusal.send(send)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _page(self, scope, receive, send):
        """The page, unless its `page` parameter names none of the app's pages."""
        pages = [
            v for k, v in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True) if k == "page"
        ]
        events = await self._events(scope) if pages and pages[-1] else None  # the last one is the one Gradio reads
        refusal = events.page_refusal(pages[-1]) if events is not None else None
        if refusal is not None:
            return await refusal.send(send)
        return await self.app(scope, receive, send)

    async def _events(self, scope) -> Events | None:
        """The page's events, read from Gradio once (the requests that come meanwhile wait for the same reading);
        None if they could not be read (logged), so Gradio's own checks answer."""
        if self.events is None:
            self.events = asyncio.ensure_future(self._read(scope))
        try:
            return await asyncio.shield(self.events)
        except Exception:  # noqa: BLE001 - a bug here must not cost the request
            log.exception("could not read the page's events from Gradio")
            self.events = None  # read again at the next request
            return None

    async def _read(self, scope) -> Events:
        found = []
        for path, query in (("/config", b""), (PREFIX + "info", b"all_endpoints=true")):
            status, _, body = await inner_get(self.app, scope, path, query)
            if status != 200:
                raise RuntimeError(f"Gradio answered {status} to GET {path}")
            found.append(json.loads(body))
        return Events.of(*found)


def values(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


async def read_body(receive) -> bytes | None:
    """A request's whole body (the body limit in front bounds it), or None if the client left first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
