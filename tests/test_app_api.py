"""The running app through its API (`/ae/api`, plain HTTP as the README shows it and as the page sends it): what a
person would see, bad inputs, training, concurrency.

One real server (`python app.py` on a tiny random-weight checkpoint, see app_fixtures.py) serves the whole
module; each test gets its own API user (its own `X-AE-Client` id).
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from app_fixtures import REPO, Refused, app_env

pytestmark = pytest.mark.slow  # about 80 s on a busy 2-core machine: a real server, subprocesses and two trainings

TEXT = "The dog sees the cat."
TINY = "tiny"


# ----- helpers ---------------------------------------------------------------------------------
def trace(
    api,
    text=TEXT,
    strategy="greedy",
    temperature=1.0,
    top_k=0,
    seed=0,
    beam_size=4,
    alpha=0.6,
    prefix="",
    ablation=(),
    model="shipped",
):
    """GET /ae/api/trace with every option given (the API's own defaults are tested separately)."""
    options = dict(strategy=strategy, temperature=temperature, top_k=top_k, seed=seed, beam_size=beam_size)
    return api.get("/trace", sentence=text, alpha=alpha, prefix=prefix, ablation=list(ablation), model=model, **options)


def translate(api, text=TEXT, **options) -> str:
    return api.get("/translate", sentence=text, **options)["translation"]


def source_pieces(tokenizer, text) -> list[str]:
    return tokenizer.pieces(tokenizer.encode(text)) + ["</s>"]


def weights(wire, kind) -> np.ndarray:
    from explorer.app.wire import unpack

    return unpack(wire["attention"][kind])


def expect_app_error(call, *needles) -> str:
    """The call fails with a human-readable refusal (`{"error"}`) naming every needle; returns the message."""
    with pytest.raises(Refused) as info:
        call()
    message = str(info.value)
    assert "Something went wrong" not in message
    assert "&#x27;" not in message and "&quot;" not in message  # quotes reach API clients as typed
    for needle in needles:
        assert needle.lower() in message.lower(), message
    return message


def assert_healthy(c, tokenizer):
    """A normal trace still works for this client after whatever happened before."""
    assert trace(c)["source_tokens"] == source_pieces(tokenizer, TEXT)


# ----- the decode trace ------------------------------------------------------------------------
def test_trace_with_only_a_sentence_uses_the_apps_defaults(api, tiny_tokenizer):
    wire = api.get("/trace", sentence=TEXT)
    assert {"source_tokens", "target_tokens", "steps", "attention"} <= set(wire)
    assert set(wire["attention"]) == {"encoder_self", "decoder_self", "cross"}
    assert wire["source_tokens"] == source_pieces(tiny_tokenizer, TEXT)
    assert wire["request"]["strategy"] == "greedy" and wire["request"]["ablation"] == []
    T, S = len(wire["steps"]), len(wire["source_tokens"])
    assert wire["target_tokens"] == [s["token"] for s in wire["steps"]] and T > 0
    assert weights(wire, "encoder_self").shape == (2, 4, S, S)
    assert weights(wire, "decoder_self").shape == (2, 4, T, T) and weights(wire, "cross").shape == (2, 4, T, S)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(weights(wire, kind).sum(-1), 1.0, atol=1e-3)
    assert translate(api) == wire["outputs"][-1]


def test_trace_matches_the_core_on_the_same_checkpoint(api, tiny_checkpoint):
    from explorer.app.schemas import trace_request
    from explorer.interpret.handle import load_handle
    from explorer.interpret.trace import build_trace

    handle = load_handle(tiny_checkpoint)
    wire = trace(api, "The cat is small.", "sample", temperature=1.5, seed=3)
    local = build_trace(handle, trace_request("The cat is small.", "sample", temperature=1.5, seed=3))
    assert wire["target_ids"] == local.target_ids
    np.testing.assert_allclose(weights(wire, "cross"), local.cross, atol=1e-5)


def test_beam_search_trace_carries_the_ranked_beams(api):
    wire = trace(api, strategy="beam", beam_size=3)
    assert len(wire["beams"]) == 3 and wire["beams"][0]["score"] >= wire["beams"][-1]["score"]
    assert not any(s["forced"] for s in wire["steps"])  # the best beam is the model's choice, not a forced prefix
    assert wire["target_ids"][: len(wire["beams"][0]["ids"])] == wire["beams"][0]["ids"]


def test_sampling_with_a_seed_is_reproducible_across_users(make_api):
    a, b = make_api(), make_api()
    assert trace(a, strategy="sample", seed=7)["target_ids"] == trace(b, strategy="sample", seed=7)["target_ids"]


def test_a_german_prefix_forces_the_first_tokens(api, tiny_tokenizer):
    wire = trace(api, prefix="Der Hund")
    forced = tiny_tokenizer.encode("Der Hund")
    assert wire["target_ids"][: len(forced)] == forced and wire["steps"][0]["forced"]
    assert any("What-if" in n for n in wire["notes"])


EVERY_CROSS_HEAD = [f"cross.{layer}.{h}" for layer in range(2) for h in range(4)]


def test_ablated_heads_travel_with_the_request(api):
    plain = trace(api)
    off = trace(api, ablation=EVERY_CROSS_HEAD)
    assert off["request"]["ablation"] == [["cross", layer, h] for layer in range(2) for h in range(4)]
    assert any("8 head(s) switched off" in n for n in off["notes"])
    assert trace(api) == plain  # nothing stays switched off on the server


def test_a_translation_with_heads_switched_off_is_the_ablated_traces_output(api):
    baseline = translate(api)
    every = [
        f"{kind}.{layer}.{h}"
        for kind in ("encoder_self", "decoder_self", "cross")
        for layer in range(2)
        for h in range(4)
    ]
    after = translate(api, ablation=every)
    assert after != baseline and after == trace(api, ablation=every)["outputs"][-1]


def test_the_positional_encoding_is_the_models_own_table(api):
    from explorer.model.transformer import sinusoid_table

    table = api.get("/positional", positions=20)
    d = table["d_model"]
    assert len(table["encoding"]) == 20 and len(table["encoding"][0]) == d
    np.testing.assert_allclose(table["encoding"], sinusoid_table(table["max_len"], d)[:20].numpy(), atol=1e-6)
    expect_app_error(lambda: api.get("/positional", positions=table["max_len"] + 1), "out of range", "rows")
    expect_app_error(lambda: api.get("/positional", positions="abc"), "positions must be a whole number", "'abc'")


def test_a_model_or_a_run_the_server_no_longer_holds_is_said_in_words(api):
    # a page that still asks for the model it trained yesterday: told so in plain words
    gone = expect_app_error(
        lambda: trace(api, model="a-key-from-yesterday"), "not on the server any more", "one of the served models"
    )
    assert "'a-key-from-yesterday'" in gone and "tick" not in gone.lower()  # the model named whole; no checkbox
    assert trace(api)["request"]["sentence"] == TEXT  # and the shipped model goes on working
    for asked in (lambda: api.post("/train/no-such-run/stop"), lambda: list(api.events("/train/no-such-run/events"))):
        assert expect_app_error(asked, "No training run 'no-such-run'", "train a new model")


def test_the_page_names_the_checkpoint_by_its_directory_never_by_a_server_path(app_url, tiny_checkpoint):
    with urllib.request.urlopen(f"{app_url}config", timeout=30) as response:
        config = response.read().decode()
    assert "model: <b class='ae-model-name'>tiny</b>" in config  # no metadata name, no card title: the directory's
    assert str(tiny_checkpoint) not in config and str(tiny_checkpoint.parent) not in config


def fetch(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_a_first_visits_files_come_compressed_once_cached_by_hash_and_without_server_paths(app_url):
    import brotli

    from explorer.ui.viewer import BUNDLE, PLOTLY_JS, PLOTLY_URL, SCRIPT_URL, STYLE_URL

    status, headers, page = fetch(app_url)
    html = page.decode()
    assert status == 200 and SCRIPT_URL in html and STYLE_URL in html
    assert "/file=" not in html and str(REPO) not in html and "site-packages" not in html  # no filesystem path
    status, headers, body = fetch(app_url.rstrip("/") + SCRIPT_URL, {"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["content-encoding"] == "br" and "immutable" in headers["cache-control"]
    assert brotli.decompress(body) == BUNDLE[SCRIPT_URL][0]
    status, again, _ = fetch(app_url.rstrip("/") + SCRIPT_URL, {"If-None-Match": headers["etag"]})
    assert status == 304
    status, headers, body = fetch(app_url.rstrip("/") + PLOTLY_URL + PLOTLY_JS.name, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == PLOTLY_JS.read_bytes()
    status, headers, _ = fetch(app_url + "?s=x", {"Accept-Encoding": "br"})
    assert status == 200 and headers["content-encoding"] == "br" and headers["etag"]
    assert fetch(app_url.rstrip("/") + PLOTLY_URL + "../../../../etc/passwd")[0] == 404  # nothing outside its folder
    asset = re.search(r'/assets/[^"\']+\.js', html).group(0)
    status, headers, _ = fetch(app_url.rstrip("/") + asset, {"Accept-Encoding": "br"})
    assert status == 200 and "immutable" in headers["cache-control"] and headers["content-encoding"] == "br"


# ----- bad inputs ------------------------------------------------------------------------------
BAD_INPUTS = {
    "empty": (lambda c: trace(c, ""), ["empty"]),
    "whitespace only": (lambda c: trace(c, "  \t\n  "), ["empty"]),
    "10,000 characters": (lambda c: trace(c, "x" * 10_000), ["10,000 characters", "1,000"]),
    "300 words": (lambda c: trace(c, " ".join(["elephant"] * 300)), ["characters long"]),
    "control characters only": (lambda c: trace(c, "\x00\x01\x02"), ["empty"]),
    "strategy bogus": (lambda c: trace(c, strategy="bogus"), ["'bogus'"]),
    "beam size 99": (lambda c: trace(c, strategy="beam", beam_size=99), ["beam size 99 is out of range", "1 to 8"]),
    "temperature 0": (lambda c: trace(c, strategy="sample", temperature=0), ["temperature 0", "0.05 to 5"]),
    "seed 2**80": (lambda c: trace(c, strategy="sample", seed=2**80), ["seed", "out of range"]),
    "ablate layer 7": (lambda c: trace(c, ablation=["cross.7.0"]), ["layer 7"]),
    "translate empty": (lambda c: translate(c, ""), ["empty"]),
    "translate without heads empty": (lambda c: translate(c, "", ablation=["cross.0.0"]), ["empty"]),
    "ablate unknown head": (lambda c: translate(c, ablation=["encoder_self.5.0"]), ["layer 5", "encoder_self"]),
    "ablate malformed head": (lambda c: translate(c, ablation=["drop table"]), ["'drop table' is not a head"]),
    "no sentence": (lambda c: c.get("/trace", strategy="beam"), ["name a sentence", "sentence="]),
    "an option it does not take": (lambda c: c.get("/trace", sentence=TEXT, s=TEXT), ["'s' is not something"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_gets_a_clear_message_and_the_server_stays_healthy(case, api, tiny_tokenizer):
    call, needles = BAD_INPUTS[case]
    expect_app_error(lambda: call(api), *needles)
    assert_healthy(api, tiny_tokenizer)


def train(api, corpus="mini", upload="", preset=TINY, minutes=0.2, seed=0) -> str:
    """POST /ae/api/train as the Train tab sends it: the run's id."""
    body = dict(corpus=corpus, upload=upload, preset=preset, minutes=minutes, seed=seed)
    return api.post("/train", body)["run"]


@pytest.mark.parametrize(
    "sent, needles",
    [
        (dict(corpus="upload"), ["choose a tsv file"]),
        (dict(preset="huge"), ["Unknown model size 'huge'", "tiny, small"]),
        (dict(minutes=99), ["Training time (minutes) 99", "0.2 to 5"]),
        (dict(corpus="web"), ["The data", "'web'"]),
    ],
    ids=["no file", "size", "minutes", "corpus"],
)
def test_a_training_run_with_a_bad_option_is_refused_by_name(sent, needles, api, tiny_tokenizer):
    expect_app_error(lambda: train(api, **sent), *needles)
    assert_healthy(api, tiny_tokenizer)


@pytest.mark.parametrize(
    "call, needles",
    [
        (lambda c: trace(c, strategy="sample", temperature="abc"), ["temperature must be a number", "'abc'"]),
        (lambda c: trace(c, strategy="sample", seed="abc"), ["seed must be a whole number", "'abc'"]),
        (lambda c: c.get("/positional", positions="1e3"), ["positions must be a whole number", "'1e3'"]),
    ],
    ids=["trace temperature", "trace seed", "positional positions"],
)
def test_text_in_other_number_fields(call, needles, api, tiny_tokenizer):
    expect_app_error(lambda: call(api), *needles)
    assert_healthy(api, tiny_tokenizer)


@pytest.mark.parametrize("text", ["I ❤ 東京 שלום", "<script>alert(1)</script> <b>bold</b>"], ids=["unicode", "html"])
def test_unusual_text_comes_back_literally(text, api, tiny_tokenizer):
    shown = trace(api, text)["source_tokens"]
    assert shown == source_pieces(tiny_tokenizer, text)
    literal = "".join(shown[:-1]).replace("·", "").replace("\u2423", "")  # "␣": a bare word start, a space
    assert literal == text.replace(" ", "")  # every character comes back as itself, nothing escaped or dropped
    assert "<unk>" not in shown and not any("&lt;" in t or "&#" in t for t in shown)
    assert isinstance(translate(api, text), str)


def test_characters_outside_the_vocabulary_show_as_unk_with_a_note(api):
    wire = trace(api, "The dog 🙂 sees Ω.")
    unknown = [t for t in wire["source_tokens"] if t.startswith("<unk>")]
    assert any("outside the model" in n for n in wire["notes"])
    assert "<unk> 🙂" in unknown  # issue 66 #8: the chip names what it stands for


def test_an_over_long_sentence_is_truncated_with_a_note(api):
    text = " ".join(["the dog sees the cat and"] * 25)  # 150 words, under the 1,000-character limit, ~200 pieces
    wire = trace(api, text)
    assert len(wire["source_tokens"]) == 64 and wire["source_tokens"][-1] == "</s>"  # max_len 64: 63 pieces and </s>
    assert any("more tokens than the model accepts" in n and "first 63" in n for n in wire["notes"])


# ----- training uploads ------------------------------------------------------------------------
def upload(api, data: bytes) -> str:
    """The id the API keeps a training file under (POST /ae/api/uploads), as the Train tab's picker sends it."""
    answer = api.http.post("/uploads", content=data, headers={"content-type": "text/tab-separated-values"})
    if answer.status_code != 200:
        raise Refused(answer.status_code, answer.json()["error"])
    assert answer.json()["bytes"] == len(data)
    return answer.json()["upload"]


RANDOM_BYTES = bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8))
UPLOADS = {
    "binary": (RANDOM_BYTES, ["not text"]),
    "no tabs": (b"I am tired. Ich bin muede.\n" * 100, ["0 usable pair", "TAB"]),
    "latin-1": ("Good morning\tGrüß Gott\n".encode("latin-1") * 100, ["UTF-8"]),
}


@pytest.mark.parametrize("case", list(UPLOADS))
def test_bad_training_upload_gets_a_clear_message(case, api, tiny_tokenizer):
    data, needles = UPLOADS[case]
    upload_id = upload(api, data)
    assert upload(api, data) == upload_id  # the id is the content's
    expect_app_error(lambda: train(api, "upload", upload_id), *needles)
    assert_healthy(api, tiny_tokenizer)


def test_a_training_file_is_named_by_its_upload_id_never_by_a_path(app_url, api, tiny_tokenizer):
    """A hand-made call may send anything as its upload: a path, a file record, an id never issued. None of them
    makes the server read a file; each is refused by name, before any training."""
    own = REPO / "explorer" / "training" / "corpus" / "mini_en_de.tsv"  # a real TSV on the server, never uploaded
    sent = {
        str(own): "is not an upload id",
        "../" * 8 + "etc/passwd": "is not an upload id",
        "0" * 32: "No upload '00000000000000000000000000000000' on this server",
    }
    for value, needle in sent.items():
        expect_app_error(lambda value=value: train(api, "upload", value), needle)
    expect_app_error(lambda: train(api, "upload", {"path": str(own)}), "The upload id")  # not even a text
    assert_healthy(api, tiny_tokenizer)


def test_an_oversized_upload_is_refused(api, app_url, tiny_tokenizer):
    big = b"I am tired.\tIch bin muede.\n" * (2 * 2**20 // 26 + 100)
    assert len(big) > 2 * 2**20
    with pytest.raises(Refused) as refused:  # the API's own route
        upload(api, big)
    assert refused.value.status == 413 and "at most 2,097,152 bytes" in str(refused.value)
    assert_healthy(api, tiny_tokenizer)


# ----- several people at once ------------------------------------------------------------------
SENTENCES = [
    "I am tired.",
    "The dog is big.",
    "The cat is small.",
    "The house is old.",
    "The car is new.",
    "The book is good.",
    "The water is cold.",
    "The milk is warm.",
    "The coffee is hot.",
    "The door is open.",
]


def test_ten_users_at_once_each_get_their_own_sentence(make_api, tiny_tokenizer):
    n = len(SENTENCES)
    start = threading.Barrier(n, timeout=120)
    users = [make_api() for _ in range(n)]

    def person(i):
        c = users[i]
        start.wait()
        return [trace(c, SENTENCES[i]) for _ in range(2)]

    with ThreadPoolExecutor(n) as pool:
        results = list(pool.map(person, range(n)))
    for i, (first, second) in enumerate(results):
        assert first == second and first["source_tokens"] == source_pieces(tiny_tokenizer, SENTENCES[i]), f"client {i}"
        assert first["request"]["sentence"] == SENTENCES[i]


# ----- broken checkpoints ----------------------------------------------------------------------
def _garbage_config(ckpt, d):
    bad = d / "garbage-config"
    bad.mkdir()
    for f in ckpt.iterdir():
        (bad / f.name).write_bytes(f.read_bytes())
    (bad / "config.json").write_text("this is { not json", encoding="utf-8")
    return bad


def _truncated_weights(ckpt, d):
    bad = d / "truncated-weights"
    bad.mkdir()
    for f in ckpt.iterdir():
        (bad / f.name).write_bytes(f.read_bytes())
    (bad / "model.safetensors").write_bytes((ckpt / "model.safetensors").read_bytes()[:1000])
    return bad


BROKEN = {
    "garbage config.json": (_garbage_config, "not valid JSON"),
    "missing directory": (lambda ckpt, d: d / "does-not-exist", "is not a directory"),
    "truncated weights": (_truncated_weights, "safetensors"),
}


@pytest.fixture(scope="module")
def broken_runs(tiny_checkpoint, tmp_path_factory):
    """`python app.py --checkpoint BAD` for every broken case, all started at once (each pays the torch import)."""
    d = tmp_path_factory.mktemp("broken")
    procs = {
        case: subprocess.Popen(
            [sys.executable, "app.py", "--checkpoint", str(make(tiny_checkpoint, d)), "--port", "1"],
            cwd=REPO,
            env=app_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for case, (make, _) in BROKEN.items()
    }
    results = {}
    for case, proc in procs.items():
        out, err = proc.communicate(timeout=180)
        results[case] = (proc.returncode, out, err)
    return results


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_checkpoint_exits_with_one_error_line(case, broken_runs):
    code, out, err = broken_runs[case]
    lines = err.strip().splitlines()
    assert code == 2, (out, err)
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "Traceback" not in err and BROKEN[case][1] in lines[0]


# ----- training (slow: really trains) ----------------------------------------------------------
@pytest.mark.slow
def test_train_streams_progress_then_the_trained_model_can_be_explored(make_api, tmp_path):
    from explorer.interpret.decoding import beam_search, prepare_source
    from explorer.model.checkpoint import load_checkpoint

    api = make_api()
    started = time.monotonic()
    run = train(api)
    states = list(api.events(f"/train/{run}/events"))
    print(f"\ntraining for 0.2 min took {time.monotonic() - started:.1f} s end to end, {len(states)} states")
    assert len(states) >= 3 and states[0]["step"] == 0 and not states[0]["done"]
    assert any(s["message"].startswith("Training on") for s in states)
    assert [s["fraction"] for s in states] == sorted(s["fraction"] for s in states)  # progress only grows
    last = states[-1]
    assert last["done"] and last["message"].startswith("Done (") and "Explore my trained model" in last["message"]
    assert all(not s["checkpoint"] and s["model"] is None for s in states[:-1])  # the model comes with the last
    loss = last["loss"]  # the loss curve's numbers, which the browser draws
    assert len(loss["train"]) >= 2 and loss["train"][-1][1] < loss["train"][0][1] and 0 < loss["floor"] < 2
    snapshot = last["snapshot"]  # the probe pair's cross-attention: a row per target token, each a distribution
    weights_ = np.array(snapshot["weights"])
    assert weights_.shape == (len(snapshot["rows"]), len(snapshot["columns"])) and snapshot["rows"][-1] == "</s>"
    np.testing.assert_allclose(weights_.sum(1), 1.0, atol=2e-3)

    archive = api.http.get(f"/train/{run}/checkpoint.zip")
    assert archive.status_code == 200 and archive.headers["content-type"] == "application/zip"
    (tmp_path / "trained.zip").write_bytes(archive.content)
    with zipfile.ZipFile(tmp_path / "trained.zip") as z:
        assert {"model.safetensors", "config.json", "tokenizer.model"} <= set(z.namelist())
        z.extractall(tmp_path / "trained")
    trained = load_checkpoint(tmp_path / "trained")

    key = last["model"]  # the trained model, named for the API
    assert f"model={key}" in last["message"]
    other = make_api()  # any page the key is given to: a deep link, a room's view
    wire = trace(other, "The dog is big.", model=key)
    assert wire["source_tokens"] == source_pieces(trained.tokenizer, "The dog is big.") and wire["model"][
        "name"
    ].startswith("your model")
    source = prepare_source(trained.tokenizer, "The dog is big.", trained.model.config.max_len)
    expected = trained.tokenizer.decode(beam_search(trained.model, source.ids, beam_size=1, alpha=0.0)[0].ids)
    assert translate(other, "The dog is big.", model=key) == expected  # the server now runs the zip's model
    table = other.get("/positional", positions=5, model=key)  # and every route takes the key
    assert table["model"].startswith("your model") and table["d_model"] == 64


@pytest.mark.slow
def test_a_second_trainer_is_told_to_wait_and_stop_ends_a_job_early(make_api, tiny_tokenizer):
    a, b = make_api(), make_api()
    started = time.monotonic()
    run = train(a, minutes=2)
    states = a.events(f"/train/{run}/events")
    while next(states)["step"] == 0:  # until it reports its first steps
        assert time.monotonic() - started < 120, "training never reported progress"

    t = time.monotonic()
    busy = expect_app_error(lambda: train(b), "Another person is training")
    assert time.monotonic() - t < 10  # told at once, not queued behind the running job
    assert "s left" in busy
    assert_healthy(b, tiny_tokenizer)  # exploring works meanwhile

    assert "Stopping" in a.post(f"/train/{run}/stop")["message"]
    last = [s for s in states][-1]
    assert last["done"] and "stopped early" in last["message"] and last["checkpoint"] and last["model"]
    assert time.monotonic() - started < 100  # far less than the 2 minutes asked for
    assert "not training any more" in a.post(f"/train/{run}/stop")["message"]


# ----- oversized requests ----------------------------------------------------------------------
def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def test_a_50_mb_request_is_refused_unread_with_a_message_naming_the_limit(app_server, api, tiny_tokenizer):
    import httpx

    url, proc = app_server
    rss_before = _rss_mb(proc.pid)
    body = b'{"sentence": "' + b"x" * (50 * 2**20) + b'"}'
    response = httpx.post(
        f"{url}ae/api/ask/explain", content=body, headers={"Content-Type": "application/json"}, timeout=60
    )
    message = response.json()["error"]
    assert response.status_code == 413 and f"{len(body):,} bytes" in message and "at most 65,536 bytes" in message
    assert _rss_mb(proc.pid) - rss_before < 20  # the body was never held in memory
    # without a Content-Length (chunked), it is cut off once it passes the limit
    chunks = iter([b"x" * 2**16] * 16)
    response = httpx.post(
        f"{url}ae/api/ask/explain", content=chunks, headers={"Content-Type": "application/json"}, timeout=60
    )
    assert response.status_code == 413 and "at most 65,536 bytes" in response.json()["error"]
    assert_healthy(api, tiny_tokenizer)


def test_one_browser_cannot_run_more_than_its_share_at_once(make_api, tiny_tokenizer):
    from explorer.app.rate_limits import MAX_IN_FLIGHT

    flood, victim = make_api(), make_api()
    long = " ".join(["the dog sees the cat and"] * 25)  # ~200 pieces: each decode takes the model's whole max_len
    with ThreadPoolExecutor(5 * MAX_IN_FLIGHT) as pool:
        jobs = [pool.submit(translate, flood, f"{long} {i}") for i in range(5 * MAX_IN_FLIGHT)]
        outcomes = []
        for job in jobs:
            try:
                outcomes.append(isinstance(job.result(timeout=120), str))
            except Refused as exc:
                assert exc.status == 429 and f"already has {MAX_IN_FLIGHT} requests running" in str(exc)
                outcomes.append(False)
    assert MAX_IN_FLIGHT <= sum(outcomes) < len(jobs)  # some were served, the rest told to wait
    assert_healthy(victim, tiny_tokenizer)
