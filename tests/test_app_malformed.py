"""Every endpoint of the running app, one malformed field at a time, sent as raw JSON (NaN and Infinity included).

What must hold: the server answers each with a message in the one refusal shape, `{"error"}`, that is not the app's
generic one, a numeric field's message names the value it got, and the server stays healthy. Gradio's own routes
are closed, in the same shape.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

pytestmark = pytest.mark.slow  # one real server (shared with test_app_api.py), a few hundred requests


@pytest.fixture(scope="module", autouse=True)
def log_before(app_log):
    """How long the shared app's log was before this module's requests (what they add is read at the end)."""
    return app_log.stat().st_size


GENERIC = ("has raised an exception", "Something went wrong")
# raw JSON literals (what a script can send; gradio_client itself refuses NaN and Infinity) -> what the message quotes
MALFORMED = {
    "null": None,
    '"abc"': "'abc'",
    "Infinity": "inf",
    "-Infinity": "-inf",
    "NaN": "nan",
    "1e999": "inf",
    "1208925819614629174706176": "120892581961462917470617",  # 2**80
    "-1180591620717411303424": "-118059162071741130342",  # -2**70
    "1.5": "1.5",
    "true": "True",
    "[1, 2]": "[1, 2]",
    '{"a": 1}': "{'a': 1}",
}
# POST /train with valid values that cannot start a run by themselves (the upload id names no file, which is checked
# after every field: a refusal that names it means the field under test was accepted)
TRAIN_BASE = {"corpus": '"upload"', "upload": '"' + "0" * 32 + '"', "preset": '"tiny"', "minutes": "0.2", "seed": "0"}
TRAIN_ACCEPTED = "No upload '000000"
TRAIN_NUMBERS = ("minutes", "seed")


def test_every_training_field_answers_a_malformed_value_by_name(app_url):
    """POST /ae/api/train, one field at a time set to each raw JSON literal (NaN and Infinity included): refused in
    words that name a number's value; no literal starts a run."""
    checked, failures = 0, []
    for name in TRAIN_BASE:
        for literal in MALFORMED:
            body = "{" + ", ".join(f'"{k}": {literal if k == name else v}' for k, v in TRAIN_BASE.items()) + "}"
            status, answer = plain_route(app_url, "/ae/api/train", body.encode())
            checked += 1
            message = answer.get("error", "")
            if status == 201:
                failures.append(f"{name}={literal}: started a training run")
            elif TRAIN_ACCEPTED in message:
                continue  # the value was accepted (a whole float as the seed, a number as the minutes)
            elif status != 400 or not message or any(g in message for g in GENERIC):
                failures.append(f"{name}={literal}: {status} {message!r}")
            elif name in TRAIN_NUMBERS and MALFORMED[literal] and MALFORMED[literal].lower() not in message.lower():
                failures.append(f"{name}={literal}: the message does not name the value: {message!r}")
    assert not failures, f"{len(failures)} of {checked} calls:\n" + "\n".join(failures)
    assert checked == len(TRAIN_BASE) * len(MALFORMED)


# ----- the API (explorer/app/http_api.py): every field of the trace URL and of a question ------
TRACE_FIELDS = [
    "sentence",
    "strategy",
    "temperature",
    "top_k",
    "seed",
    "beam_size",
    "alpha",
    "prefix",
    "forced_ids",
    "ablation",
    "model",
]
QUESTIONS = [
    {"what": "explain", "kind": "cross", "layer": 0, "head": 0, "row": 0, "column": 0},
    {"what": "attribution", "step": 1, "layer": 0, "head": 0},
    {"what": "compare", "sentence": "A cat.", "model": "same"},
]
URL_VALUES = ["", "abc", "inf", "nan", "-1", "1e999", "1.5", "99999999999999999999", "x" * 5000, "[1]", "<b>"]


def plain_route(app_url: str, path: str, body: bytes | None = None) -> tuple[int, dict]:
    headers = {"x-ae-client": "malformed", "content-type": "application/json"}
    request = urllib.request.Request(app_url + path.lstrip("/"), data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.load(response) if "json" in response.headers["content-type"] else {}
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_every_plain_route_field_answers_a_malformed_value_by_name(app_url):
    failures, checked = [], 0
    for name in TRACE_FIELDS:
        for value in URL_VALUES:
            params = {"sentence": "The dog sees the cat.", "strategy": "sample"} | {name: value}
            status, answer = plain_route(app_url, "/ae/api/trace?" + urllib.parse.urlencode(params))
            checked += 1
            message = answer.get("error", "")
            if status == 200:
                continue  # an accepted value (a prefix "abc", a seed 1e999 is refused, "1.5" is a temperature)
            if status not in (400, 404) or not message or any(g in message for g in GENERIC):
                failures.append(f"trace {name}={value[:20]!r}: {status} {message!r}")
            elif name in ("temperature", "top_k", "seed", "beam_size", "alpha") and value[:20] not in message:
                failures.append(f"trace {name}={value[:20]!r}: the message does not name the value: {message!r}")
    for question in QUESTIONS:
        for field in question:
            for literal in MALFORMED:
                body = (
                    '{"trace": {"sentence": "The dog sees the cat."}, "question": '
                    + json.dumps(question).replace(f'"{field}": {json.dumps(question[field])}', f'"{field}": {literal}')
                    + "}"
                ).encode()
                status, answer = plain_route(app_url, f"/ae/api/ask/{question['what']}", body)
                checked += 1
                message = answer.get("error", "")
                if status == 200:
                    continue
                unknown_model = status == 404 and field == "model"  # a well-formed key no model has: 404
                if (status != 400 and not unknown_model) or not message or any(g in message for g in GENERIC):
                    failures.append(f"ask {question['what']}.{field}={literal}: {status} {message!r}")
                elif unknown_model and literal.strip('"') not in message:
                    failures.append(f"ask {question['what']}.{field}={literal}: the message does not name it")
    assert not failures, f"{len(failures)} of {checked} requests:\n" + "\n".join(failures)
    status, answer = plain_route(app_url, "/ae/api/trace?sentence=The+dog.")
    assert status == 200 and answer["target_tokens"]  # the server is healthy


def test_a_deeply_nested_body_is_refused_in_words_not_with_a_500(app_url):
    """Issue 37: `[[[[…]]]]` 5,000 levels deep on an ask route was HTTP 500 "Something went wrong" (RecursionError)."""
    for body in (b"[" * 5000 + b"]" * 5000, b'{"a":' * 5000 + b"1" + b"}" * 5000):
        for what in QUESTIONS:
            status, answer = plain_route(app_url, f"/ae/api/ask/{what['what']}", body)
            assert status == 400 and "nested too deeply" in answer["error"], (what["what"], status, answer)
    status, answer = plain_route(app_url, "/ae/api/trace?sentence=The+dog.")
    assert status == 200 and answer["target_tokens"]  # the server is healthy


# Gradio's routes, which the page no longer calls: each closed (`explorer/server/middleware.py`), in the one shape
GRADIO_ROUTES = [
    ("POST", "/gradio_api/queue/join", '{"fn_index": 0, "data": [], "session_hash": "m1"}'),
    ("POST", "/gradio_api/call/train", '{"data": []}'),
    ("POST", "/gradio_api/run/predict", '{"data": []}'),
    ("POST", "/gradio_api/upload", "x"),
    ("POST", "/gradio_api/component_server", "{}"),
    ("GET", "/gradio_api/queue/data?session_hash=m1", None),
    ("GET", "/gradio_api/info", None),
    ("GET", "/gradio_api/file=/etc/passwd", None),
    ("GET", "/gradio_api/heartbeat/m1", None),
    ("GET", "/no/such/page", None),
]


@pytest.mark.parametrize("method, path, body", GRADIO_ROUTES, ids=[f"{m} {p}" for m, p, _ in GRADIO_ROUTES])
def test_every_gradio_route_but_the_page_is_closed_in_the_one_shape(app_url, method, path, body):
    request = urllib.request.Request(app_url + path.lstrip("/"), data=body and body.encode(), method=method)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    answer = json.load(refused.value)
    assert refused.value.code == 404 and list(answer) == ["error"] and "/ae/api" in answer["error"], answer


@pytest.mark.parametrize("query", ["page=zz", "page=%00", "page=&page=x", "v=1"])
def test_the_page_is_the_page_whatever_gradio_query_it_names(app_url, query):
    """Gradio rendered `/?page=NAME` of a page it does not have with a 500; the page is rendered from the query
    parameter Gradio's theme needs alone, so any other is the page itself."""
    with urllib.request.urlopen(f"{app_url}?{query}", timeout=30) as page:
        assert page.status == 200 and b"AttentionExplorer" in page.read()


def test_the_page_runs_no_event_on_the_server(app_url):
    """Every event of the page runs in the browser (the API does the work): Gradio's /config lists none with a
    backend function, so no Gradio session, state or queue is ever made."""
    config = json.load(urllib.request.urlopen(f"{app_url}config", timeout=30))
    assert config["dependencies"] and not [d for d in config["dependencies"] if d.get("backend_fn")]


def test_every_refusal_of_every_route_is_one_shape(app_url):
    """Bad values, unknown routes and methods, a body too large, an unknown run: `{"error": message}` each."""
    sent = [
        ("/ae/api/trace", None),
        ("/ae/api/trace?sentence=x&top_k=-1", None),
        ("/ae/api/nope", None),
        ("/ae/api/trace", b"{}"),
        ("/ae/api/ask/explain", b"[1]"),
        ("/ae/api/ask/explain", b"x" * 70_000),
        ("/ae/api/train/unknown/events", None),
        ("/ae/api/train/unknown/checkpoint.zip", None),
        ("/ae/api/positional/figures?waves=1,2,x", None),
        ("/ae/api/room/NOPE/view", b"{}"),
        ("/ae/api/uploads", b""),
    ]
    for path, body in sent:
        status, answer = plain_route(app_url, path, body)
        assert 400 <= status < 500 and list(answer) == ["error"] and answer["error"], (path, status, answer)


def test_no_malformed_request_left_a_traceback_or_a_500_in_the_log(app_log, log_before):
    """Issue 37: every malformed request above was refused in words; none reached the log as a failure. (Last in
    this module: it reads what the module's requests added to the shared server's log.)"""
    added = app_log.read_bytes()[log_before:].decode(errors="replace")
    assert "Traceback" not in added and " 500 " not in added and "Something went wrong" not in added, added[-3000:]
