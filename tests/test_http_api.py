"""The viewer's plain routes (explorer/app/http_api.py) through HTTP, on a tiny model: the trace and its cache,
the questions, the .npz, the schema refusals of every field, one browser's fair share."""

from __future__ import annotations

import asyncio
import io
import json
import time

import numpy as np
import pytest
import torch
from starlette.applications import Starlette
from starlette.testclient import TestClient

from explorer.app import http_api
from explorer.app.callers import Caller, ClientIds, address_of, caller_of, trusted_proxies
from explorer.app.models import ModelRegistry
from explorer.app.questions import ANSWERS, QUESTIONS
from explorer.app.rate_limits import ADDRESS_IN_FLIGHT, MAX_IN_FLIGHT, Busy, Fairness, Rates, shares
from explorer.app.schemas import Refusal, Translation, Wire
from explorer.app.wire import WEIGHT_ERROR, unpack
from explorer.errors import UserError
from explorer.interpret.handle import ModelHandle
from explorer.interpret.request import TraceRequest
from explorer.model.transformer import Transformer
from explorer.server.body_limit import BodyLimit

TEXT = "The dog sees the cat."


@pytest.fixture
def handle(mini_handle):
    return mini_handle


@pytest.fixture
def models(handle):
    return ModelRegistry(handle)


@pytest.fixture
def client(models):
    return TestClient(Starlette(routes=http_api.routes(models)), headers={"x-ae-client": "test"})


def ask(client, question, **trace):
    """POST the question to its own route (/ae/api/ask/WHAT); a question without a known `what` to "explain"."""
    body = {"trace": {"sentence": TEXT} | trace, "question": question}
    what = question.get("what") if question.get("what") in QUESTIONS else "explain"
    return client.post(f"/ae/api/ask/{what}", json=body)


def test_identical_requests_are_computed_once_and_a_changed_option_is_a_new_entry(client, models):
    first = client.get("/ae/api/trace", params={"sentence": TEXT})
    assert first.status_code == 200 and first.json()["request"]["sentence"] == TEXT
    assert first.json()["model_key"] == "shipped"
    again = client.get(
        "/ae/api/trace", params={"sentence": "  The dog\tsees the cat. "}
    )  # the same request, normalized
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]
    assert models.scheduler.computed == 1 and models.scheduler.hits >= 1
    current = client.get("/ae/api/trace", params={"sentence": TEXT}, headers={"if-none-match": first.headers["etag"]})
    assert current.status_code == 304 and current.content == b""
    sampled = client.get("/ae/api/trace", params={"sentence": TEXT, "strategy": "sample", "seed": "3"})
    assert sampled.status_code == 200 and models.scheduler.computed == 2
    ignored = client.get("/ae/api/trace", params={"sentence": TEXT, "seed": "9"})  # greedy ignores the seed: same entry
    assert ignored.headers["etag"] == first.headers["etag"] and models.scheduler.computed == 2


def test_a_hit_is_sent_as_it_was_compressed_once(client):
    plain = client.get("/ae/api/trace", params={"sentence": TEXT}, headers={"accept-encoding": "identity"})
    br = client.get("/ae/api/trace", params={"sentence": TEXT}, headers={"accept-encoding": "br"})
    assert "content-encoding" not in plain.headers and br.headers["content-encoding"] == "br"
    assert br.json() == plain.json()  # the client decoded the brotli body
    assert int(br.headers["content-length"]) < len(plain.content)


@pytest.mark.parametrize(
    "params, needle",
    [
        ({}, "Name a sentence"),
        ({"sentence": " "}, "the box is empty"),
        ({"sentence": "x" * 5000}, "5,000 characters long"),
        ({"sentence": TEXT, "strategy": "bogus"}, "Strategy 'bogus' is not one of the choices"),
        ({"sentence": TEXT, "strategy": "sample", "temperature": "abc"}, "Temperature must be a number (got 'abc')"),
        (
            {"sentence": TEXT, "strategy": "sample", "temperature": "9"},
            "Temperature 9 is out of range: choose 0.05 to 5",
        ),
        ({"sentence": TEXT, "strategy": "sample", "top_k": "1.5"}, "Top-k must be a whole number (got '1.5')"),
        (
            {"sentence": TEXT, "strategy": "sample", "seed": "-1"},
            "Seed -1 is out of range: choose 0 to 2,147,483,647",
        ),
        ({"sentence": TEXT, "strategy": "beam", "beam_size": "99"}, "Beam size 99 is out of range: choose 1 to 8"),
        ({"sentence": TEXT, "strategy": "beam", "alpha": "7"}, "Length penalty α 7 is out of range: choose 0 to 2"),
        ({"sentence": TEXT, "prefix": "y" * 5000}, "The target prefix is 5,000 characters long"),
        ({"sentence": TEXT, "forced_ids": "a,b"}, "Forced token ids must be a whole number (got 'a,b')"),
        ({"sentence": TEXT, "forced_ids": "99999999"}, "Forced token id 99999999 is outside the vocabulary"),
        ({"sentence": TEXT, "ablation": "cross.1"}, "heads look like cross.2.1"),
        ({"sentence": TEXT, "ablation": "bogus.0.0"}, "'bogus' is not one of the choices"),
        ({"sentence": TEXT, "ablation": "cross.7.0"}, "layer 7"),
        ({"sentence": TEXT, "model": "../etc"}, "The model key '../etc' is not valid"),
        ({"sentence": TEXT, "model": "nosuchmodel"}, "is not on the server any more"),
    ],
)
def test_every_trace_field_is_refused_with_a_message_that_names_its_value(client, params, needle):
    answer = client.get("/ae/api/trace", params=params)
    assert answer.status_code in (400, 404) and needle in answer.json()["error"], answer.json()


@pytest.mark.parametrize(
    "question, needle",
    [
        ({"what": "explain"}, "Attention kind is missing"),
        ({"what": "explain", "kind": "bogus", "layer": 0, "head": 0, "row": 0, "column": 0}, "Attention kind 'bogus'"),
        ({"what": "explain", "kind": "cross", "layer": -1, "head": 0, "row": 0, "column": 0}, "Layer -1 is out of"),
        ({"what": "explain", "kind": "cross", "layer": 5, "head": 0, "row": 0, "column": 0}, "layer 5, which does not"),
        ({"what": "explain", "kind": "cross", "layer": 0, "head": 9, "row": 0, "column": 0}, "head 9, which does not"),
        ({"what": "explain", "kind": "cross", "layer": 0, "head": 0, "row": 99, "column": 0}, "row 99, which does not"),
        ({"what": "explain", "kind": "cross", "layer": 0, "head": 0, "row": 0}, "Column is missing"),
        ({"what": "explain", "kind": "cross", "layer": "x", "head": 0, "row": 0, "column": 0}, "Layer must be a whole"),
        ({"what": "attribution", "step": 0, "layer": 0, "head": 0}, "Step 0 is out of range"),
        ({"what": "attribution", "step": 1, "layer": 0, "head": "max"}, "Head must be a whole number (got 'max')"),
        ({"what": "heads", "extra": 1}, "'extra' is not something this request takes"),
        ({"what": "compare", "model": "neither!"}, "The model key 'neither!' is not valid"),
        ({"what": "compare", "model": "other"}, "no other model to compare with"),
        ({"what": "compare", "model": "own"}, "no model trained on this page"),
        ({"what": "compare", "sentence": "z" * 5000}, "5,000 characters long"),
    ],
)
def test_every_question_field_is_refused_with_a_message_that_names_its_value(client, question, needle):
    answer = ask(client, question)
    assert answer.status_code == 400 and needle in answer.json()["error"], answer.json()


def test_a_question_body_that_is_not_json_or_too_large_is_refused(client, models):
    sent = {"headers": {"content-type": "application/json"}}
    assert "not JSON" in client.post("/ae/api/ask/heads", content=b"{", **sent).json()["error"]
    untyped = client.post("/ae/api/ask/heads", content=b'{"trace": {}}', headers={"content-type": "text/plain"})
    assert "content-type: application/json" in untyped.json()["error"]
    assert "The trace request is missing" in client.post("/ae/api/ask/heads", json={}).json()["error"]
    nope = client.post("/ae/api/ask/nope", json={})  # no such question: no such route
    assert nope.status_code == 404 and "no API route /ae/api/ask/nope" in nope.json()["error"]
    served = TestClient(BodyLimit(Starlette(routes=http_api.routes(models))))  # the served app's cap, in front of it
    huge = served.post("/ae/api/ask/heads", content=b" " * (70 * 1024), **sent)
    assert huge.status_code == 413 and "at most 65,536" in huge.json()["error"]


def plain(value) -> bool:
    """Only JSON's own types: a numpy scalar would travel as a string the browser cannot compute with."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def test_every_answer_is_plain_json_held_to_its_schema_and_keeps_the_traces_switched_off_heads(client):
    questions = [
        {"what": "explain", "kind": "decoder_self", "layer": 1, "head": 0, "row": 2, "column": 1},
        {"what": "heads"},
        {"what": "attribution", "step": 2, "layer": 1, "head": "rollout"},
        {"what": "beam_tree"},
        {"what": "compare", "sentence": "The cat sees the dog.", "model": "same"},
    ]
    for question in questions:
        answer = ask(client, question, ablation=[["cross", 1, 2]])
        assert answer.status_code == 200 and answer.json()["what"] == question["what"], answer.json()
        assert plain(answer.json()), question["what"]
        ANSWERS[question["what"]].model_validate(answer.json())  # the documented schema, extra fields refused
    Wire.model_validate(client.get("/ae/api/trace", params={"sentence": TEXT}).json())
    Refusal.model_validate(client.get("/ae/api/trace", params={"sentence": ""}).json())
    heads = ask(client, {"what": "heads"}, ablation=[["cross", 1, 2]]).json()
    assert heads["drops"]["cross"][1][2] is None  # switched off in the trace: no drop of its own
    compared = ask(client, questions[-1]).json()
    assert compared["wire"]["request"]["sentence"] == "The cat sees the dog."


def test_compare_with_the_other_model_uses_the_sessions_key(client, models, handle, mini_tokenizer):
    torch.manual_seed(1)
    key = models.register(ModelHandle("own", Transformer(handle.config).eval(), mini_tokenizer))
    own = client.get("/ae/api/trace", params={"sentence": TEXT, "model": key}).json()
    assert own["model"]["name"] == "own" and own["model_key"] == key
    body = {"trace": {"sentence": TEXT}, "question": {"what": "compare", "model": "other"}, "own_model": key}
    other = client.post("/ae/api/ask/compare", json=body).json()
    assert other["wire"]["model"]["name"] == "own" and other["wire"]["request"]["sentence"] == TEXT
    back = {"trace": {"sentence": TEXT, "model": key}, "question": {"what": "compare", "model": "other"}}
    assert client.post("/ae/api/ask/compare", json=back).json()["wire"]["model"]["name"] == "tiny"
    models.unregister(key)
    gone = client.get("/ae/api/trace", params={"sentence": TEXT, "model": key})
    assert gone.status_code == 404 and "not on the server any more" in gone.json()["error"]


def test_the_npz_has_every_tensor_up_to_the_step_with_tokens(client):
    wire = client.get("/ae/api/trace", params={"sentence": TEXT}).json()
    answer = client.get("/ae/api/npz", params={"sentence": TEXT, "step": "3"})
    assert answer.status_code == 200 and 'filename="attention_step3.npz"' in answer.headers["content-disposition"]
    data = np.load(io.BytesIO(answer.content))
    S = len(wire["source_ids"])
    assert data["encoder_self_weights"].shape == (2, 4, S, S)
    assert data["decoder_self_weights"].shape == (2, 4, 3, 3) and data["decoder_self_scores"].shape == (2, 4, 3, 3)
    assert data["cross_weights"].shape == (2, 4, 3, S)
    assert list(data["source_tokens"]) == wire["source_tokens"]
    assert list(data["target_tokens"]) == wire["target_tokens"][:3] and int(data["step"]) == 3
    np.testing.assert_allclose(data["cross_weights"].sum(-1), 1.0, atol=1e-5)
    assert data["cross_weights"].dtype == np.float32  # the typed trace's weights, not the 16-bit wire form
    np.testing.assert_allclose(data["cross_weights"], unpack(wire["attention"]["cross"])[:, :, :3], atol=WEIGHT_ERROR)
    assert (
        "Step 999 does not exist" in client.get("/ae/api/npz", params={"sentence": TEXT, "step": "999"}).json()["error"]
    )
    assert "must be a whole number" in client.get("/ae/api/npz", params={"sentence": TEXT, "step": "x"}).json()["error"]


def test_one_browser_has_its_fair_share_of_requests_in_flight():
    fairness = Fairness()
    tab = [("client:a", MAX_IN_FLIGHT, "This browser"), ("address:10.0.0.7", ADDRESS_IN_FLIGHT, "This address")]
    for _ in range(MAX_IN_FLIGHT):
        fairness.enter(tab)
    with pytest.raises(Busy, match=f"already has {MAX_IN_FLIGHT} requests running"):
        fairness.enter(tab)
    other = [("client:b", MAX_IN_FLIGHT, "This browser"), ("address:10.0.0.7", ADDRESS_IN_FLIGHT, "This address")]
    fairness.enter(other)  # another browser in the same lecture hall (same address) is not affected
    fairness.leave(tab)
    fairness.enter(tab)
    assert fairness.running["address:10.0.0.7"] == MAX_IN_FLIGHT + 1


def request_from(peer: str, headers=(), query=b""):
    from starlette.requests import Request

    return Request({"type": "http", "headers": list(headers), "query_string": query, "client": (peer, 5)})


def test_every_request_counts_against_its_address_and_only_issued_client_ids_count_at_all(models):
    """Issue 51: a request naming itself (X-AE-Client) counted only against that id, never its address, so a script
    sending a fresh id with each request ran as many at once as it liked. Now ids are the server's, signed; an id it
    did not make counts for nothing, and every request counts against its address too (ADDRESS_IN_FLIGHT: a class of
    200 behind one router), so a fresh id per request buys nothing."""
    clients = ClientIds(Rates())
    issued = clients.issue("10.0.0.7")
    assert clients.valid(issued) and not clients.valid("tab-1") and not clients.valid(issued[:-2] + "xx")
    tab = caller_of(request_from("10.0.0.7", [(b"x-ae-client", issued.encode())]), clients, [])
    assert tab == Caller("10.0.0.7", issued)
    assert shares(tab) == [
        ("address:10.0.0.7", ADDRESS_IN_FLIGHT, "This address (10.0.0.7)"),
        (f"client:{issued}", MAX_IN_FLIGHT, "This browser"),
    ]
    link = caller_of(request_from("10.0.0.7", query=f"client={issued}".encode()), clients, [])
    assert link == tab  # a download link names its tab in its query
    forged = caller_of(request_from("10.0.0.7", [(b"x-ae-client", b"made-up-123")]), clients, [])
    assert forged == Caller("10.0.0.7", None) and len(shares(forged)) == 1  # the address alone
    assert ADDRESS_IN_FLIGHT >= 200 > MAX_IN_FLIGHT
    fairness = Fairness()
    for n in range(ADDRESS_IN_FLIGHT):  # a fresh (made-up or even issued) id per request: the address still fills
        fairness.enter(shares(Caller("10.0.0.66", clients.issue(f"10.0.1.{n % 2}"))))
    with pytest.raises(Busy, match=r"This address \(10.0.0.66\) already has 256"):
        fairness.enter(shares(Caller("10.0.0.66", clients.issue("10.0.2.1"))))
    fairness.enter(shares(Caller("10.0.0.7", None)))  # another address is not affected


def test_ids_are_issued_at_a_bounded_rate_per_address(models):
    client = TestClient(Starlette(routes=http_api.routes(models, proxies=[])))
    got = client.post("/ae/api/client")
    assert got.status_code == 200 and "." in got.json()["client"]
    rates = Rates()
    ids = ClientIds(rates, rate="3/minute")
    for _ in range(3):
        ids.issue("10.0.0.66")
    with pytest.raises(
        UserError,
        match=r"Too many client ids for one address. This address \(10.0.0.66\) may have 3 client ids per minute",
    ):
        ids.issue("10.0.0.66")
    ids.issue("10.0.0.7")  # another address is not affected


def test_behind_a_trusted_proxy_the_address_is_the_one_the_proxy_appended_never_one_the_client_wrote():
    """Issue 51: on a Space every connection comes from the proxy. The client writes X-Forwarded-For's left entries;
    the proxy appends the right-most, the client's real address. Untrusted peers' headers are ignored."""
    forged = [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.9")]  # the client wrote 6.6.6.6; the proxy appended .9
    assert address_of(request_from("10.1.2.3", forged), trusted_proxies("10.0.0.0/8")) == "203.0.113.9"
    assert address_of(request_from("10.1.2.3", forged), trusted_proxies("*")) == "203.0.113.9"
    assert address_of(request_from("198.51.100.4", forged), trusted_proxies("10.0.0.0/8")) == "198.51.100.4"
    assert address_of(request_from("10.1.2.3", forged), trusted_proxies("")) == "10.1.2.3"  # none trusted
    two = [(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"203.0.113.9")]  # a proxy that adds its own header
    assert address_of(request_from("10.1.2.3", two), trusted_proxies("*")) == "203.0.113.9"
    for home in range(11):  # a home's /56 holds 256 /64s (a review of issue 51: 17 of them took every room)
        sent = [(b"x-forwarded-for", f"2001:db8:1:{home}:aaaa::1".encode())]
        assert address_of(request_from("10.1.2.3", sent), trusted_proxies("*")) == "2001:db8:1::/56"
    neighbour = [(b"x-forwarded-for", b"2001:db8:1:100::1")]  # the next /56: another home
    assert address_of(request_from("10.1.2.3", neighbour), trusted_proxies("*")) == "2001:db8:1:100::/56"
    assert address_of(request_from("::ffff:198.51.100.4"), []) == "198.51.100.4"
    garbage = [(b"x-forwarded-for", b"203.0.113.9, not-an-address")]
    assert address_of(request_from("10.1.2.3", garbage), trusted_proxies("*")) == "10.1.2.3"
    with pytest.raises(ValueError, match="AE_TRUSTED_PROXIES='10.0.0.0/33'"):
        trusted_proxies("10.0.0.0/33")


def test_the_time_lapse_route_answers_recorded_sentences_only(models):
    from explorer.app.timelapse import TimeLapse

    wire = {"request": {"sentence": TEXT}, "attention": {}}
    lapse = TimeLapse({"sentences": [TEXT], "points": [{"step": 5, "traces": [wire]}, {"step": 9, "traces": [wire]}]})
    client = TestClient(Starlette(routes=http_api.routes(models, lapse)), headers={"x-ae-client": "test"})
    answer = client.get("/ae/api/timelapse", params={"sentence": TEXT})
    assert answer.status_code == 200 and answer.json() == {"sentence": TEXT, "steps": [5, 9], "traces": [wire, wire]}
    missing = client.get("/ae/api/timelapse", params={"sentence": "Another sentence."})
    assert missing.status_code == 404 and "No training time-lapse was recorded for 'Another sentence.'" in missing.text


def test_a_second_sentence_to_compare_is_checked_like_the_first(client):
    for sentence, needle in (("\u200b", "the box is empty"), ("z" * 1500, "1,500 characters long")):
        answer = ask(client, {"what": "compare", "sentence": sentence, "model": "same"})
        assert answer.status_code == 400 and needle in answer.json()["error"], answer.json()


def test_fastapis_own_openapi_document_names_what_the_routes_read_and_answer(client):
    """Issue 37: the schema documented `forced_ids` while the route read `forced`. Now FastAPI documents what it
    validates: the trace's query parameters are `TraceRequest`'s fields, each question's route takes its own body,
    every route documents its refusal, and a request built from the document alone is answered."""
    document = client.get("/ae/api/openapi.json").json()
    paths = document["paths"]
    names = {p["name"] for p in paths["/trace"]["get"]["parameters"]}
    assert names == set(TraceRequest.model_fields)
    assert {f"/ask/{what}" for what in QUESTIONS} | {"/translate", "/npz", "/positional", "/room"} <= set(paths)
    for what, answer in ANSWERS.items():
        post = paths[f"/ask/{what}"]["post"]
        body = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        question = document["components"]["schemas"][body]["properties"]["question"]["$ref"].rsplit("/", 1)[1]
        assert question == {
            "beam_tree": "BeamTree",
            "value_path": "ValuePathQuestion",
            "qk_space": "QKSpaceQuestion",
            "no_position": "NoPositionQuestion",
            "lens": "LensQuestion",
        }.get(what, what.capitalize())
        assert post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(answer.__name__)
        assert post["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith("Refusal")
    docs = client.get("/ae/api/docs")  # a reference page that works offline: no script, nothing from a CDN
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    assert "<script" not in docs.text and "cdn" not in docs.text.lower() and "https://" not in docs.text
    for path in document["paths"]:
        assert f"<code>/ae/api{path}</code>" in docs.text.replace("&#x27;", "'"), path  # every route, by its path
    assert "<td>sentence</td><td>query</td>" in docs.text  # /trace's parameters, each with where it goes
    # what the document says, sent as it says: a repeated parameter per list item
    params = [("sentence", TEXT), ("strategy", "greedy"), ("ablation", "cross.0.1"), ("ablation", "encoder_self.1.0")]
    wire = client.get("/ae/api/trace", params=params).json()
    assert wire["request"]["ablation"] == [["cross", 0, 1], ["encoder_self", 1, 0]]
    translated = Translation.model_validate(client.get("/ae/api/translate", params=params).json())
    assert translated.translation == wire["outputs"][-1] and translated.model == wire["model"]["name"]


def test_a_question_is_computed_once_whoever_asks_and_however_many_ask_at_once(client, models, monkeypatch):
    """Issue 37: 200 students asking *Heads that matter* about the same example computed it 200 times (questions p95
    12-18 s at 200 in bench/class_open.py). Answers are kept like traces: one computation per (model, request,
    question); those who ask while it runs wait for that one; another question or sentence is its own."""
    import threading

    from explorer.app import questions
    from explorer.app.callers import Caller
    from explorer.app.schemas import validate

    calls, gate, STUDENT = [], threading.Event(), Caller("10.0.0.7", None)
    original = questions.answer

    def counted(handle, trace, question):
        calls.append(question.what)
        gate.wait(10)  # every student has asked before the first answer is done
        return original(handle, trace, question)

    monkeypatch.setattr(questions, "answer", counted)

    def asked(sentence=TEXT, what="heads"):
        return validate(questions.Ask, {"trace": {"sentence": sentence}, "question": {"what": what}})

    async def eight():  # the first asker computes; the others wait for its answer
        return await asyncio.gather(*(models.aanswer(asked(), STUDENT) for _ in range(8)))

    threading.Timer(0.5, gate.set).start()
    answers = asyncio.run(eight())  # each the answer serialised and compressed once, as the route sends it
    first = json.loads(answers[0].bodies[b"identity"])
    assert len(answers) == 8 and all(a is answers[0] for a in answers) and first["what"] == "heads"
    assert calls == ["heads"]  # eight asked, one computed
    assert asyncio.run(models.aanswer(asked(), STUDENT)) is answers[0] and calls == ["heads"]  # later: from memory
    assert ask(client, {"what": "heads"}).json() == first and calls == ["heads"]  # over HTTP too
    asyncio.run(models.aanswer(asked("The cat sees the dog."), STUDENT))  # another sentence: its own answer
    assert calls == ["heads", "heads"]


MALFORMED_BODIES = {
    "deep nesting": b"[" * 5000 + b"]" * 5000,
    "deep object": b'{"a":' * 5000 + b"1" + b"}" * 5000,
    "NaN": b'{"trace": {"sentence": NaN}, "question": {"what": "heads"}, "token": NaN, "pick": NaN}',
    "wrong types": b'{"trace": [1, 2], "question": "heads", "view": 7, "pick": "x", "token": {}}',
    "a string": b'"The dog sees the cat."',
    "3 MB": b'{"trace": {"sentence": "' + b"a" * (3 << 20) + b'"}}',
    "non-UTF-8": b'{"trace": {"sentence": "\xff\xfe\xfa"}}',
    "empty": b"",
}


@pytest.mark.slow
def test_every_plain_route_answers_any_malformed_body_or_header_in_words_never_a_5xx(client, caplog):
    """Issue 37: every route, every malformed body (deep nesting, NaN, wrong types, 3 MB, non-UTF-8 bytes) and a
    non-ASCII header: a 4xx whose message is words, no 5xx, and nothing logged as a failure (no traceback)."""
    import logging

    caplog.set_level(logging.WARNING)
    created = client.post("/ae/api/room", content=b"{}")
    assert created.status_code == 200, created.text[:200]
    code = created.json()["code"]
    posts = [f"/ae/api/ask/{what}" for what in QUESTIONS] + ["/ae/api/room", "/ae/api/uploads", "/ae/api/client"]
    posts += [f"/ae/api/room/{code}/{action}" for action in ("view", "question", "reveal", "end", "answer")]
    posts += ["/ae/api/train", "/ae/api/train/NORUN/stop"]  # no malformed body starts a run
    failures = []
    for path in posts:
        for name, body in MALFORMED_BODIES.items():
            for headers in ({"x-ae-client": "fuzz"}, {"x-ae-client": "é∂ 学生".encode()}):
                answer = client.post(path, content=body, headers=headers | {"content-type": "application/json"})
                said = answer.json().get("error") if "json" in answer.headers.get("content-type", "") else None
                if answer.status_code >= 500 or (answer.status_code >= 400 and not said):  # creating reads no body
                    failures.append(f"POST {path} {name}: {answer.status_code} {answer.text[:100]}")
    gets = ["/ae/api/trace", "/ae/api/translate", "/ae/api/npz", "/ae/api/positional", "/ae/api/timelapse"]
    gets += [f"/ae/api/room/{code}/qr.svg", "/ae/api/room/NOROOM/events"]  # a real room streams forever
    gets += ["/ae/api/positional/figures", "/ae/api/train/NORUN/events", "/ae/api/train/NORUN/checkpoint.zip"]
    for path in gets:
        for query in (
            "?sentence=%FF%FE",
            "?sentence=" + "a" * 5000,
            "?sentence=The+dog.&temperature=NaN&step=-1&beam_size=1e999",
            "?sentence[]=1",
            "?positions=x",
        ):
            answer = client.get(path + query, headers={"x-ae-client": "ñ 学生".encode()})
            if answer.status_code >= 500:
                failures.append(f"GET {path}{query[:30]}: {answer.status_code} {answer.text[:100]}")
    documented = {path for path, ops in client.get("/ae/api/openapi.json").json()["paths"].items() if "post" in ops}
    posted = {p.replace(code, "{code}").replace("NORUN", "{run}").removeprefix("/ae/api") for p in posts}
    assert posted == documented  # every POST route
    assert not failures, "\n".join(failures[:20])
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert logged == [], logged[:5]
    assert client.get("/ae/api/trace", params={"sentence": TEXT}).status_code == 200  # the server is healthy


def test_one_address_trains_a_bounded_number_of_minutes_an_hour(models, monkeypatch):
    """The server trains one model at a time: a script that started run after run would keep it from everyone. An
    address may ask for `TRAIN_RATE` minutes of training an hour (30: half the slot's time), however it cuts its runs;
    a run refused (a bad option, the slot busy) is not counted, and another address is not affected."""
    from types import SimpleNamespace

    from explorer.app.training_job import TrainingRuns

    def start(self, asked, owner):  # no training: a run starts, or (a size it does not have) is refused in the route
        if asked.preset == "huge":
            raise UserError("Unknown model size 'huge'")
        return SimpleNamespace(id="started")

    monkeypatch.setattr(TrainingRuns, "start", start)
    app = Starlette(routes=http_api.routes(models, proxies=[]))
    client, other = TestClient(app), TestClient(app, client=("10.0.0.9", 1234))
    assert http_api.TRAIN_RATE == "30/hour"
    for preset in ["x" * 65, "huge"] * 5:  # refused by the schema, or in the route before starting: never counted
        assert client.post("/ae/api/train", json={"preset": preset, "minutes": 5}).status_code == 400
    for minutes in (5, 5, 5, 5, 5, 4.5):  # 5 + 5 + 5 + 5 + 5 + 5 (4.5 counts whole) = 30
        assert client.post("/ae/api/train", json={"minutes": minutes}).status_code == 201
    refused = client.post("/ae/api/train", json={"minutes": 0.2})
    assert refused.status_code == 429 and "Too many minutes of training from one address" in refused.json()["error"]
    assert "may have 30 training minutes per hour" in refused.json()["error"]
    assert other.post("/ae/api/train", json={"minutes": 5}).status_code == 201


def test_a_stream_that_ends_or_never_starts_gives_its_follower_place_back(models):
    """A place is taken before the stream starts and given back in the answer's background task, which runs however
    the answer ends: a place given back in the generator would be lost where it never runs (sse-starlette's HEAD, a
    client gone first), and four such would lock the run's owner out."""
    from explorer.app.training_job import MAX_FOLLOWERS, TrainingRun

    api = http_api.build_api(models, proxies=[])
    run = TrainingRun()
    run.update(done=True, message="Done.")  # a finished run: its stream sends the state once and ends
    api.state.runs.keep(run)
    client = TestClient(api)
    for _ in range(2 * MAX_FOLLOWERS):
        assert client.head(f"/train/{run.id}/events").status_code == 405  # FastAPI's GET route: no place taken
        answer = client.get(f"/train/{run.id}/events")
        assert answer.status_code == 200 and '"message": "Done."' in answer.text
    assert run.followers == 0


@pytest.mark.slow
def test_a_burst_of_questions_from_one_address_never_holds_another_addresss_question_back(models):
    """A review of issue 51: behind a server-wide gate of two questions at a time, first come first served, a
    student's question waited for a script's whole burst (15 s behind 90). Each question now waits in the model's
    line, fair between addresses: of the burst's questions still unanswered when the student asks, most are answered
    after the student's."""
    import httpx

    app = Starlette(routes=http_api.routes(models))
    done: dict[str, float] = {}

    async def ask_from(address: str, sentence: str, name: str) -> None:
        transport = httpx.ASGITransport(app=app, client=(address, 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            body = {"trace": {"sentence": sentence}, "question": {"what": "heads", "method": "exact"}}
            answer = await client.post("/ae/api/ask/heads", json=body, timeout=120)
        assert answer.status_code == 200, answer.text
        done[name] = time.monotonic()

    async def burst_then_student() -> float:
        nouns = ["dog", "cat", "house", "car", "book", "tree", "bird", "child", "friend", "letter"]
        sentences = [f"The {a} and the old {b} see the {c} today." for a in nouns for b in nouns[:3] for c in nouns[:2]]
        burst = [asyncio.create_task(ask_from("10.0.0.1", s, f"burst {i}")) for i, s in enumerate(sentences)]
        while len(done) < 3:  # the burst is at the model
            await asyncio.sleep(0.01)
        asked = time.monotonic()
        await asyncio.gather(ask_from("10.0.0.2", TEXT, "student"), *burst)
        return asked

    asked = asyncio.run(burst_then_student())
    pending = [name for name, t in done.items() if t > asked and name != "student"]
    before = [name for name in pending if done[name] < done["student"]]
    assert len(done) == 61 and len(pending) > 20 and len(before) < len(pending) / 3, (len(before), len(pending))


@pytest.mark.parametrize(
    "method, path, sent, said",
    [
        (
            "get",
            "/ae/api/room/" + "A" * 20 + "/events",
            {},
            "The room code is 20 characters long; it may have at most 16.",
        ),
        ("post", "/ae/api/room/{room}/end", {"headers": {"x-ae-lecturer": "k" * 200}}, "The lecturer key is 200"),
        (
            "post",
            "/ae/api/train/" + "r" * 100 + "/stop",
            {},
            "The run id is 100 characters long; it may have at most 64.",
        ),
        ("post", "/ae/api/room/{room}/answer", {"json": {"question": 1, "pick": 0, "token": "t" * 65}}, "at most 64."),
        ("get", "/ae/api/trace", {"params": {"sentence": "a" * 4001}}, "takes up to 1,000 characters (a sentence"),
    ],
)
def test_a_string_too_long_is_refused_with_its_own_field_and_limit(client, method, path, sent, said):
    """A review of issue 51: every such refusal said "up to 1,000 characters", the sentence's limit, whatever the
    field's own; and most named no field."""
    room = client.post("/ae/api/room").json()["code"]
    answer = getattr(client, method)(path.format(room=room), **sent)
    assert answer.status_code == 400 and said in answer.json()["error"], answer.json()


def test_the_npz_asks_the_logit_lens_in_the_model_line_as_the_registered_question_it_is(client, monkeypatch):
    """Issue 67: /npz computed the lens beside the model line (a flood of downloads slowed a victim 4.4x). Now it asks
    the registered question: one computation, kept, that the viewer's Logit lens then reads from the cache."""
    from explorer.app.questions import lens as lens_question

    computed = []
    real = lens_question.trace_lens
    monkeypatch.setattr(lens_question, "trace_lens", lambda *a: computed.append(1) or real(*a))
    answer = client.get("/ae/api/npz", params={"sentence": "The bird sees the tree.", "step": "2"})
    assert answer.status_code == 200 and len(computed) == 1
    arrays = np.load(io.BytesIO(answer.content))
    body = {"trace": {"sentence": "The bird sees the tree."}, "question": {"what": "lens"}}
    asked = client.post("/ae/api/ask/lens", json=body).json()
    assert len(computed) == 1  # the viewer's question: the same answer, from the cache
    np.testing.assert_allclose(arrays["lens_top_probs"], np.asarray(asked["top_probs"])[:, :2], atol=1e-6)
    np.testing.assert_array_equal(arrays["lens_top_ids"], np.asarray(asked["top_ids"])[:, :2])
