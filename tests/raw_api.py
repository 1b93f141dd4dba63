"""Gradio's HTTP protocol spoken by hand, for what gradio_client cannot send: raw JSON (NaN, Infinity), events that
have no API name (the viewer's .npz export), chosen session ids. Talks to 127.0.0.1 only; every read has a timeout.
"""

from __future__ import annotations

import json
import urllib.request


def get_json(app_url: str, path: str):
    with urllib.request.urlopen(f"{app_url}{path}", timeout=30) as response:
        return json.load(response)


def _events(response):
    """(event name, data) pairs of a server-sent event stream."""
    kind = None
    for raw in response:
        line = raw.decode().rstrip("\n")
        if line.startswith("event:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            yield kind, json.loads(line[5:].strip())


def call_raw(app_url: str, api: str, literals: list[str], session: str) -> tuple[str, object]:
    """POST /gradio_api/call/<api> with a body written by hand; returns ("complete" | "error", data)."""
    body = f'{{"session_hash": "{session}", "data": [{", ".join(literals)}]}}'.encode()
    request = urllib.request.Request(
        f"{app_url}gradio_api/call{api}", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        event = json.load(response)["event_id"]
    with urllib.request.urlopen(f"{app_url}gradio_api/call{api}/{event}", timeout=180) as stream:
        for kind, data in _events(stream):
            if kind in ("complete", "error"):
                return kind, data
    return "closed", None


def dependency(app_url: str, component_elem_id: str, trigger: str) -> tuple[int, int]:
    """(fn_index, component id) of the event `trigger` of the component with `elem_id`."""
    config = get_json(app_url, "config")
    ids = [c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == component_elem_id]
    for index, dep in enumerate(config["dependencies"]):
        for target_id, event in dep["targets"]:
            if target_id in ids and event == trigger:
                return dep.get("id", index), target_id
    raise LookupError(f"no {trigger} event on #{component_elem_id}")


def join(app_url: str, fn_index: int, data: list, session: str, event_data=None, trigger_id: int | None = None):
    """One event through the queue as the browser sends it; returns ("complete" | "error", output or message)."""
    body = {
        "data": data,
        "fn_index": fn_index,
        "session_hash": session,
        "event_data": event_data,
        "trigger_id": trigger_id,
    }
    request = urllib.request.Request(
        f"{app_url}gradio_api/queue/join", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        event_id = json.load(response)["event_id"]
    with urllib.request.urlopen(f"{app_url}gradio_api/queue/data?session_hash={session}", timeout=300) as stream:
        for _, message in _events(stream):
            if message.get("event_id") == event_id and message.get("msg") == "process_completed":
                if message.get("success"):
                    return "complete", message["output"]["data"]
                return "error", message["output"].get("error")
    return "closed", None
