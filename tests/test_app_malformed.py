"""Every endpoint of the running app, one malformed field at a time, sent as raw JSON (NaN and Infinity included).

What must hold: the server answers each with a message that is not Gradio's bare "Error" nor the app's generic
one, a numeric field's message names the value it got, and the server stays healthy. The endpoints and their
fields are read from the app's own API description, so a new endpoint or field is covered without editing this.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest
from raw_api import call_raw, get_json, join

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
TINY = "tiny (d_model 64, 2+2 layers, 4 heads)"
# /train with valid values that cannot start a training run by themselves (the upload is missing, which is checked
# last, so this message means the field under test was accepted)
TRAIN_ACCEPTED = "Choose a TSV file to upload"
TRAIN_BASE = {
    "corpus": '"upload"',
    "upload": "null",
    "preset": json.dumps(TINY),
    "minutes": "0.2",
    "seed": "0",
    "presentation": "false",
}


def api_info(app_url) -> dict:
    """The page's own Gradio events that take values (the API is /ae/api; the Train tab's events are the page's)."""
    return get_json(app_url, "gradio_api/info?all_endpoints=true")["named_endpoints"]


def defaults(spec: dict) -> list[str]:
    return [
        json.dumps(p["parameter_default"]) if p.get("parameter_has_default") else "null" for p in spec["parameters"]
    ]


def is_numeric(parameter: dict) -> bool:
    return parameter["python_type"]["type"] in ("float", "int")


def cases(app_url):
    for api, spec in api_info(app_url).items():
        for i, parameter in enumerate(spec["parameters"]):
            for literal in MALFORMED:
                yield api, spec, i, parameter, literal


def test_every_endpoint_and_field_answers_a_malformed_value_by_name(app_url):
    checked, refused, failures = 0, 0, []
    for api, spec, i, parameter, literal in cases(app_url):
        name = parameter["parameter_name"]
        if api == "/train":
            base = dict(TRAIN_BASE)
            if name == "corpus" and literal != "null":
                base["upload"] = "null"
            literals = [base[p["parameter_name"]] for p in spec["parameters"]]
        else:
            literals = defaults(spec)
        literals[i] = literal
        kind, data = call_raw(app_url, api, literals, session=f"malformed-{api.strip('/')}-{i}-{checked}")
        checked += 1
        message = data if isinstance(data, str) else (data or {}).get("error") if isinstance(data, dict) else None
        if kind == "complete" or (api == "/train" and name != "upload" and TRAIN_ACCEPTED in str(message)):
            if kind == "complete" and api == "/train":
                failures.append(f"{api} {name}={literal}: started a training run")
            continue
        refused += 1
        if not message or any(g in message for g in GENERIC):
            failures.append(f"{api} {name}={literal}: {message!r}")
        elif is_numeric(parameter) and MALFORMED[literal] and MALFORMED[literal].lower() not in message.lower():
            failures.append(f"{api} {name}={literal}: the message does not name the value: {message!r}")
    assert not failures, f"{len(failures)} of {checked} calls:\n" + "\n".join(failures)
    assert checked >= 7 * 12 and refused >= checked // 2  # every event and field was tried, most values refused
    kind, data = call_raw(app_url, "/choose_model", ["false"], session="malformed-healthy")
    assert kind == "complete" and data[0].startswith("Exploring")


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


def gradio_detail(answer: dict) -> str:
    """The message of a refusal in Gradio's shapes: a string, or (422) the `gr.validate` results."""
    detail = answer.get("detail")
    return detail if isinstance(detail, str) else " ".join(d["message"] for d in detail if not d["is_valid"])


def test_a_call_with_too_few_values_is_told_how_many_it_takes(app_url):
    """Gradio checks the count itself, after the call is queued, with a 500 and a traceback (at /call/v2, in the
    route): `explorer/ui/gradio_door.py` refuses it first, naming the parameter, in Gradio's own 422 shape."""
    takes = {api: [p["parameter_name"] for p in spec["parameters"]] for api, spec in api_info(app_url).items()}
    takes = {api: names for api, names in takes.items() if names}
    assert takes
    for api, names in takes.items():
        status, answer = plain_route(app_url, f"/gradio_api/call{api}", b'{"data": []}')
        said = f"This call sent 0 values; {api} takes {len(names)} (no {names[0]})."
        assert status == 422 and answer["detail"][0]["parameter_name"] == names[0], (api, status, answer)
        assert gradio_detail(answer) == said, (api, answer)
        status, answer = plain_route(app_url, f"/gradio_api/call/v2{api}", b"{}")
        required = [p for p in api_info(app_url)[api]["parameters"] if not p.get("parameter_has_default")]
        if required:  # every value has a default but /train's upload
            assert status == 422 and "needs a value for" in gradio_detail(answer), (api, status, answer)
    kind, data = call_raw(app_url, "/choose_model", ["false"], session="few-healthy")
    assert kind == "complete" and data[0].startswith("Exploring")


# (route, body) -> (status, words the refusal says): each was a 500 with a traceback in the log before the door
GRADIO_CALLS = {
    ("queue/join", '{"fn_index": 9999, "data": [], "session_hash": "m1"}'): (404, "no event number 9999"),
    ("queue/join", '{"fn_index": "9999", "data": [], "session_hash": "m1"}'): (404, "no event number 9999"),
    ("call/nowhere", '{"data": []}'): (404, "no endpoint /nowhere"),
    ("call/v2/nowhere", "{}"): (404, "no endpoint /nowhere"),
    ("call/v2/choose_model", '{"use_own": false, "nope": 1}'): (422, "has no parameter 'nope'"),
    ("call/v2/train", '{"corpus": "mini"}'): (422, "/train needs a value for upload"),
    ("run/choose_model", '{"data": [false]}'): (404, "direct route /gradio_api/run/choose_model is not served"),
    ("api/nowhere", '{"data": []}'): (404, "direct route /gradio_api/api/nowhere is not served"),
    ("component_server", '{"session_hash": "m1", "component_id": 99, "fn_name": "x", "data": null}'): (
        404,
        "No component of this page has server functions",
    ),
    ("queue/join", "[" * 5000 + "]" * 5000): (400, "nested too deeply"),
    ("call/choose_model", '{"data": ' + "[" * 5000 + "]" * 5000 + "}"): (400, "nested too deeply"),
}


@pytest.mark.parametrize("route, body", list(GRADIO_CALLS), ids=[r for r, _ in GRADIO_CALLS])
def test_a_call_gradio_would_answer_with_a_500_is_refused_in_words(app_url, route, body):
    status, answer = plain_route(app_url, f"/gradio_api/{route}", body.encode())
    expected, words = GRADIO_CALLS[route, body]
    assert status == expected and words in gradio_detail(answer), (status, answer)


@pytest.mark.parametrize("query", ["page=zz", "page=%00", "page=&page=x"])
def test_a_page_the_app_does_not_have_is_a_404_in_words(app_url, query):
    """Gradio renders `/?page=NAME` of a page it does not have with a 500 (a KeyError); the door refuses it first."""
    status, answer = plain_route(app_url, f"/?{query}")
    assert status == 404 and "This app has no page" in gradio_detail(answer), (query, status, answer)
    status, _ = plain_route(app_url, "/?page=")  # the first page, as a deep link may name it
    assert status == 200


def test_the_page_own_call_still_reaches_gradio_through_the_door(app_url):
    """What the door lets through is the call as sent: the page's event (by number, every input) and the API's."""
    (fn_index,) = [
        dep["id"] for dep in get_json(app_url, "config")["dependencies"] if dep["api_name"] == "choose_model"
    ]
    kind, data = join(app_url, fn_index, [False, None], session="door-page")
    assert kind == "complete", (kind, data)
    status, answer = plain_route(app_url, "/gradio_api/call/v2/stop_training", b"{}")
    assert status == 200 and answer["event_id"]


def test_no_malformed_request_left_a_traceback_or_a_500_in_the_log(app_log, log_before):
    """Issue 37: every malformed request above was refused in words; none reached the log as a failure. (Last in
    this module: it reads what the module's requests added to the shared server's log.)"""
    added = app_log.read_bytes()[log_before:].decode(errors="replace")
    assert "Traceback" not in added and " 500 " not in added and "Something went wrong" not in added, added[-3000:]
