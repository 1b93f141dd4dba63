"""The running app through gradio_client: every named endpoint, what a person would see, bad inputs, concurrency.

One real server (`python app.py` on a tiny random-weight checkpoint, see app_fixtures.py) serves the whole
module; each test gets its own Client, hence its own browser-like session.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from gradio_client import handle_file
from gradio_client.exceptions import AppError

from app_fixtures import REPO, app_env

pytestmark = pytest.mark.slow  # about 80 s on a busy 2-core machine: a real server, subprocesses and two trainings

TEXT = "The dog sees the cat."
TINY = "tiny (d_model 64, 2+2 layers, 4 heads)"
GENERIC = "upstream Gradio app has raised an exception"
Step = namedtuple("Step", "source target status slider topk attention output")
Start = namedtuple("Start", Step._fields + ("beams",))


# ----- helpers ---------------------------------------------------------------------------------
def start(
    c, text=TEXT, strategy="greedy", temperature=1.0, top_k=0, seed=0, beam_size=4, alpha=0.6, prefix="",
    kind="cross", layer="1", head="mean",
) -> Start:
    args = (text, strategy, temperature, top_k, seed, beam_size, alpha, prefix, kind, layer, head)
    return Start(*c.predict(*args, api_name="/start"))


def act(c, name, *args, kind="cross", layer="1", head="mean") -> Step:
    """/next_token, /previous, /run_to_end, /reset (and /seek with its position as the first arg)."""
    return Step(*c.predict(*args, kind, layer, head, api_name=name))


def tokens(chips) -> list[str]:
    return [chip["token"] for chip in chips]


def classes(chips) -> list:
    return [chip["class_or_confidence"] for chip in chips]


def figure(plot) -> dict:
    assert plot is not None and plot["type"] == "plotly"
    return json.loads(plot["plot"])


def esc(text: str) -> str:
    """How a token must appear in plotly tick text to be drawn literally."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def source_pieces(tokenizer, text) -> list[str]:
    return tokenizer.pieces(tokenizer.encode(text)) + ["</s>"]


def assert_rows_sum_to_one(z):
    for row in z:
        values = [v for v in row if v is not None]
        assert values, "a query row with no visible key"
        assert sum(values) == pytest.approx(1.0, abs=2e-3)


def expect_app_error(call, *needles) -> str:
    """The call fails with a human-readable AppError naming every needle; returns the message."""
    with pytest.raises(AppError) as info:
        call()
    message = str(info.value)
    assert GENERIC not in message
    assert "&#x27;" not in message and "&quot;" not in message  # quotes reach API clients as typed
    for needle in needles:
        assert needle.lower() in message.lower(), message
    return message


def assert_healthy(c, tokenizer):
    """A normal Start still works for this client after whatever happened before."""
    out = start(c)
    assert tokens(out.source) == source_pieces(tokenizer, TEXT)


# ----- Translate & step ------------------------------------------------------------------------
def test_start_shows_the_tokenized_sentence_and_the_start_token(api_client, tiny_tokenizer):
    out = start(api_client)
    assert tokens(out.source) == source_pieces(tiny_tokenizer, TEXT)
    assert tokens(out.source)[-1] == "</s>"
    assert out.target == [{"token": "<s>", "class_or_confidence": "start"}]
    assert out.slider["value"] == 0
    assert "press **Next token**" in out.status
    assert out.attention is None and out.topk is None  # cross-attention has no row before the first step
    assert out.output == ""
    assert out.beams["visible"] is False


def test_next_previous_seek_run_to_end_reset(api_client):
    c = api_client
    start(c)
    for n in (1, 2, 3):
        out = act(c, "/next_token")
        assert out.slider["value"] == n
    assert len(out.target) == 4
    assert classes(out.target) == ["start", "produced", "produced", "current"]
    assert f"Step **3**" in out.status
    figure(out.topk)  # the next-token chart is there from the first step on
    third = out.target[3]["token"]

    back = act(c, "/previous")
    assert back.slider["value"] == 2 and len(back.target) == 3 and classes(back.target)[-1] == "current"
    again = act(c, "/next_token")
    assert again.target[3]["token"] == third  # stepping forward again replays the same token

    seek = act(c, "/seek", 2)
    assert seek.slider["value"] == 2 and tokens(seek.target) == tokens(out.target)[:3]

    end = act(c, "/run_to_end")
    assert "finished" in end.status.lower()
    n_steps = len(end.target) - 1
    assert end.slider["value"] == n_steps == end.slider["maximum"]
    assert tokens(end.target)[:4] == tokens(out.target)

    reset = act(c, "/reset")
    assert reset.slider["value"] == 0 and tokens(reset.target) == ["<s>"]
    assert reset.slider["maximum"] == n_steps  # computed steps are kept for replay

    # the one-click greedy translation equals stepping greedily to the end
    assert c.predict(TEXT, api_name="/translate") == end.output


def test_negative_seek_clamps_to_zero_and_a_large_one_to_the_end(api_client):
    c = api_client
    start(c)
    act(c, "/next_token")
    assert act(c, "/seek", -5).slider["value"] == 0
    far = act(c, "/seek", 10_000)
    assert "finished" in far.status.lower() and far.slider["value"] == len(far.target) - 1


def test_cross_attention_heatmap_has_target_rows_and_source_columns(api_client, tiny_tokenizer):
    c = api_client
    source = source_pieces(tiny_tokenizer, TEXT)
    start(c)
    for _ in range(3):
        out = act(c, "/next_token")
    produced = tokens(out.target)[1:]
    for plot in (out.attention, c.predict("cross", "0", "2", api_name="/attention")):
        fig = figure(plot)
        assert fig["layout"]["yaxis"]["ticktext"] == [esc(t) for t in produced]
        assert fig["layout"]["xaxis"]["ticktext"] == [esc(t) for t in source]
        assert fig["layout"]["xaxis"]["ticktext"][-1] == "&lt;/s&gt;"
        (trace,) = fig["data"]
        assert len(trace["z"]) == 3 and all(len(row) == len(source) for row in trace["z"])
        assert_rows_sum_to_one(trace["z"])


def test_decoder_self_attention_masks_the_future(api_client):
    c = api_client
    start(c)
    for _ in range(3):
        out = act(c, "/next_token", kind="decoder_self", layer="0", head="mean")
    produced = tokens(out.target)[1:]
    for plot in (out.attention, c.predict("decoder_self", "1", "3", api_name="/attention")):
        fig = figure(plot)
        assert fig["layout"]["yaxis"]["ticktext"] == [esc(t) for t in produced]
        assert fig["layout"]["xaxis"]["ticktext"] == [esc(t) for t in ["<s>"] + produced[:-1]]
        masked, weights = fig["data"]  # the grey masked layer under the weights
        assert masked["name"] == "masked" and weights["name"] == "weights"
        for i in range(3):
            for j in range(3):
                future = j > i
                assert (weights["z"][i][j] is None) == future
                assert (masked["z"][i][j] is not None) == future
        assert_rows_sum_to_one(weights["z"])


def test_encoder_self_attention_and_the_all_heads_mosaic(api_client, tiny_tokenizer):
    c = api_client
    source = source_pieces(tiny_tokenizer, TEXT)
    start(c)
    fig = figure(c.predict("encoder_self", "0", "1", api_name="/attention"))
    assert fig["layout"]["xaxis"]["ticktext"] == fig["layout"]["yaxis"]["ticktext"] == [esc(t) for t in source]
    assert_rows_sum_to_one(fig["data"][0]["z"])

    act(c, "/next_token")
    act(c, "/next_token")
    mosaic = figure(c.predict("cross", "1", "all", api_name="/attention"))
    (trace,) = mosaic["data"]
    k = len(source)
    assert len(trace["z"]) == 2 and len(trace["z"][0]) == 4 * (k + 1) - 1  # 2 queries; 4 head tiles with gaps
    head_titles = [a["text"] for a in mosaic["layout"]["annotations"] if a["text"].startswith("head")]
    assert head_titles == [f"head {h}" for h in range(4)]
    assert trace["x"][k - 1] == "H0 · &lt;/s&gt; [%d]" % (k - 1)


def test_overview_of_every_kind_stays_small(api_client, tiny_tokenizer):
    c = api_client
    text = "When I was a child, I often went to the big garden."
    n_source = len(source_pieces(tiny_tokenizer, text))
    assert n_source >= 15
    start(c, text)
    act(c, "/seek", 15)
    sizes = {}
    for kind in ("encoder_self", "decoder_self", "cross"):
        plot = c.predict(kind, api_name="/overview")
        sizes[kind] = len(plot["plot"].encode())
        (trace,) = figure(plot)["data"]
        queries = n_source if kind == "encoder_self" else 15
        assert len(trace["z"]) == 2 * (queries + 1) - 1  # two layers stacked with a gap row
        assert sizes[kind] < 300_000
    print(f"\noverview payloads for a {n_source}-token sentence at step 15: {sizes}")


def test_mask_endpoint_returns_the_mask_and_three_stages(api_client):
    c = api_client
    start(c)
    for _ in range(3):
        act(c, "/next_token")
    mask_plot, stages_plot = c.predict("1", "2", api_name="/mask")
    mask = figure(mask_plot)
    assert mask["data"][0]["z"] == np.tril(np.ones((4, 4), dtype=int)).tolist()  # <s> + 3 produced tokens
    assert mask["layout"]["xaxis"]["ticktext"][0] == "&lt;s&gt;"
    stages = figure(stages_plot)
    assert len(stages["data"]) == 5 and {"xaxis", "xaxis2", "xaxis3"} <= set(stages["layout"])
    weights = stages["data"][-1]["z"]
    assert all(weights[i][j] is None for i in range(4) for j in range(i + 1, 4))
    assert_rows_sum_to_one(weights)


def test_positional_encoding_figures_and_bad_wave_dims(api_client, app_url):
    c = api_client
    heat, waves, similarity = (figure(p) for p in c.predict(20, 16, "0, 1, 4", api_name="/positional"))
    z = heat["data"][0]["z"]
    assert len(z) == 20 and len(z[0]) == 16 and all(-1 <= v <= 1 for row in z for v in row)
    assert [t["name"].split()[1] for t in waves["data"]] == ["0", "1", "4"]
    assert len(similarity["data"][0]["z"]) == 20
    message = expect_app_error(
        lambda: c.predict(20, 16, "abc", api_name="/positional"), "wave dimensions must be numbers", "'abc'"
    )
    assert "&#x27;" not in message


def test_beam_search_shows_a_ranked_beams_table(api_client):
    c = api_client
    out = start(c, strategy="beam", beam_size=3)
    assert out.beams["visible"] is True
    rows = out.beams["value"]["data"]
    assert out.beams["value"]["headers"] == ["rank", "translation", "score", "log-prob", "finished"]
    assert [r[0] for r in rows] == [1, 2, 3]
    scores = [r[2] for r in rows]
    assert scores == sorted(scores, reverse=True)
    assert "Beam search" in out.status
    stepped = act(c, "/next_token")
    assert classes(stepped.target)[-1] == "current"
    end = act(c, "/run_to_end")
    assert set(classes(end.target)[1:-1]) == {"forced"}  # the best beam is replayed token by token
    assert end.output == rows[0][1]


def test_sampling_with_a_seed_is_reproducible_across_clients(make_client):
    outputs = []
    for c in (make_client(), make_client()):
        start(c, strategy="sample", temperature=1.5, top_k=20, seed=7)
        outputs.append(act(c, "/run_to_end"))
    assert tokens(outputs[0].target) == tokens(outputs[1].target)
    assert outputs[0].output == outputs[1].output
    assert "sampled" in outputs[0].status


def test_a_german_prefix_forces_the_first_tokens(api_client, tiny_tokenizer):
    c = api_client
    prefix = tiny_tokenizer.pieces(tiny_tokenizer.encode("Der Hund"))
    out = start(c, prefix="Der Hund")
    assert "forced from your prefix" in out.status
    for _ in range(len(prefix) + 1):
        out = act(c, "/next_token")
    assert tokens(out.target)[1 : 1 + len(prefix)] == prefix
    assert classes(out.target)[1 : 1 + len(prefix)] == ["forced"] * len(prefix)
    assert classes(out.target)[-1] == "current"


def test_ablation_then_clearing_it(api_client):
    c = api_client
    baseline = c.predict(TEXT, api_name="/translate")
    heads = [f"L{l} H{h}" for l in range(2) for h in range(4)]
    before, after, note = c.predict(TEXT, [], heads, heads, api_name="/ablate")
    assert before == baseline
    assert ("did not change" in note) == (before == after) and "16 head(s)" in note
    assert c.predict(TEXT, api_name="/translate") == after  # the ablation stays on
    assert start(c).status.count("switched off") == 1
    assert c.predict(api_name="/clear_ablation") == ([], [], [], "All heads on.")
    assert c.predict(TEXT, api_name="/translate") == baseline


def test_export_npz_holds_consistent_tensors(api_client, tiny_tokenizer):
    c = api_client
    source = source_pieces(tiny_tokenizer, TEXT)
    start(c)
    for _ in range(3):
        out = act(c, "/next_token")
    path = Path(c.predict(api_name="/export_npz"))
    assert path.suffix == ".npz" and path.is_file()
    with np.load(path) as z:
        S, T = len(source), 3
        assert z["encoder_self_weights"].shape == (2, 4, S, S)
        assert z["decoder_self_weights"].shape == (2, 4, T, T)
        assert z["cross_weights"].shape == (2, 4, T, S)
        assert z["source_tokens"].tolist() == source
        assert z["target_tokens"].tolist() == tokens(out.target)[1:]
        assert int(z["step"]) == T
        assert np.allclose(z["cross_weights"].sum(-1), 1, atol=1e-5)
        assert np.all(np.triu(z["decoder_self_weights"], k=1) == 0)


def test_presentation_mode_enlarges_figure_fonts(api_client):
    c = api_client
    start(c)
    act(c, "/next_token")
    assert c.predict(True, api_name="/presentation") == ()
    assert figure(c.predict("cross", "1", "mean", api_name="/attention"))["layout"]["font"]["size"] == 20
    c.predict(False, api_name="/presentation")
    assert figure(c.predict("cross", "1", "mean", api_name="/attention"))["layout"]["font"]["size"] == 13


def test_new_key_gives_a_fresh_session(api_client):
    """/new_key is the page-load event of the session key: calling it starts afresh (nothing to step)."""
    c = api_client
    start(c)
    act(c, "/next_token")
    assert c.predict(api_name="/new_key") == ()
    expect_app_error(lambda: act(c, "/next_token"), "press start")


def test_choose_own_model_before_training_is_refused(api_client):
    expect_app_error(lambda: api_client.predict(True, api_name="/choose_model"), "not trained a model")
    assert "Exploring" in api_client.predict(False, api_name="/choose_model")


def test_stop_training_without_a_job(api_client):
    assert api_client.predict(api_name="/stop_training") == "No training is running in this session."


# ----- bad inputs ------------------------------------------------------------------------------
def _started(c):
    start(c)
    act(c, "/next_token")
    return c


BAD_INPUTS = {
    "empty": (lambda c: start(c, ""), ["empty"]),
    "whitespace only": (lambda c: start(c, "  \t\n  "), ["empty"]),
    "10,000 characters": (lambda c: start(c, "x" * 10_000), ["10,000 characters", "1,000"]),
    "300 words": (lambda c: start(c, " ".join(["elephant"] * 300)), ["characters long"]),
    "control characters only": (lambda c: start(c, "\x00\x01\x02"), ["empty"]),
    "next before start": (lambda c: act(c, "/next_token"), ["press start"]),
    "export before start": (lambda c: c.predict(api_name="/export_npz"), ["press start"]),
    "layer 7": (lambda c: _started(c).predict("cross", "7", "mean", api_name="/attention"), ["layer 7 does not exist", "0..1"]),
    "head 9": (lambda c: _started(c).predict("cross", "1", "9", api_name="/attention"), ["head 9 does not exist", "0..3"]),
    "kind bogus": (lambda c: _started(c).predict("bogus", "1", "mean", api_name="/attention"), ["unknown attention kind", "'bogus'"]),
    "overview kind bogus": (lambda c: _started(c).predict("bogus", api_name="/overview"), ["'bogus'"]),
    "seek abc": (lambda c: act(_started(c), "/seek", "abc"), ["'abc'", "not a number"]),
    "seek with layer 7": (lambda c: act(_started(c), "/seek", 1, layer="7"), ["layer 7 does not exist"]),
    "beam size 99": (lambda c: start(c, strategy="beam", beam_size=99), ["beam size 99 is out of range", "1 to 8"]),
    "translate empty": (lambda c: c.predict("", api_name="/translate"), ["empty"]),
    "ablate empty": (lambda c: c.predict("", ["L0 H0"], [], [], api_name="/ablate"), ["empty"]),
    "ablate unknown head": (lambda c: c.predict(TEXT, ["L5 H0"], [], [], api_name="/ablate"), ["layer 5 out of range", "encoder_self"]),
    "ablate malformed head": (lambda c: c.predict(TEXT, ["drop table"], [], [], api_name="/ablate"), ["'drop table' is not a head"]),
    "upload corpus without a file": (
        lambda c: c.predict("upload", None, TINY, 0.2, 0, api_name="/train"), ["choose a tsv file"]
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_gets_a_clear_message_and_the_server_stays_healthy(case, api_client, tiny_tokenizer):
    call, needles = BAD_INPUTS[case]
    expect_app_error(lambda: call(api_client), *needles)
    assert_healthy(api_client, tiny_tokenizer)


@pytest.mark.parametrize(
    "call, needles",
    [
        (lambda c: start(c, temperature="abc"), ["temperature must be a number", "'abc'"]),
        (lambda c: start(c, seed="abc"), ["seed must be a number", "'abc'"]),
        (lambda c: c.predict("abc", 16, "0", api_name="/positional"), ["positions must be a number", "'abc'"]),
    ],
    ids=["start temperature", "start seed", "positional positions"],
)
def test_text_in_other_number_fields(call, needles, api_client, tiny_tokenizer):
    expect_app_error(lambda: call(api_client), *needles)
    assert_healthy(api_client, tiny_tokenizer)


@pytest.mark.parametrize(
    "text", ["I ❤ 東京 שלום", "<script>alert(1)</script> <b>bold</b>"], ids=["unicode", "html"]
)
def test_unusual_text_is_shown_literally(text, api_client, tiny_tokenizer):
    c = api_client
    out = start(c, text)
    shown = tokens(out.source)
    assert shown == source_pieces(tiny_tokenizer, text)
    literal = "".join(shown[:-1]).replace("·", "").replace("\u2581", "")
    assert literal == text.replace(" ", "")  # every character comes back as itself, nothing escaped or dropped
    assert "<unk>" not in shown and not any("&lt;" in t or "&#" in t for t in shown)
    step = act(c, "/next_token")
    assert figure(step.attention)["layout"]["xaxis"]["ticktext"] == [esc(t) for t in shown]
    assert isinstance(c.predict(text, api_name="/translate"), str)


def test_characters_outside_the_vocabulary_show_as_unk_with_a_note(api_client):
    out = start(api_client, "The dog 🙂 sees Ω.")
    assert "<unk>" in tokens(out.source)
    assert "outside the model" in out.status


def test_an_over_long_sentence_is_truncated_with_a_note(api_client):
    text = " ".join(["the dog sees the cat and"] * 25)  # 150 words, under the 1,000-character limit, ~200 pieces
    out = start(api_client, text)
    assert len(out.source) == 64 and tokens(out.source)[-1] == "</s>"  # max_len 64: 63 pieces and </s>
    assert "more tokens than the model accepts" in out.status and "first 63" in out.status
    step = act(api_client, "/next_token")
    assert len(figure(step.attention)["layout"]["xaxis"]["ticktext"]) == 64


# ----- training uploads ------------------------------------------------------------------------
def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


RANDOM_BYTES = bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8))
UPLOADS = {
    "binary": (lambda d: _write(d / "random.tsv", RANDOM_BYTES), ["not text"]),
    "no tabs": (lambda d: _write(d / "notabs.tsv", b"I am tired. Ich bin muede.\n" * 100), ["0 usable pair", "TAB"]),
    "latin-1": (lambda d: _write(d / "latin1.tsv", "Good morning\tGrüß Gott\n".encode("latin-1") * 100), ["UTF-8"]),
}


@pytest.mark.parametrize("case", list(UPLOADS))
def test_bad_training_upload_gets_a_clear_message(case, api_client, tmp_path, tiny_tokenizer):
    make, needles = UPLOADS[case]
    path = make(tmp_path)
    expect_app_error(lambda: api_client.predict("upload", handle_file(path), TINY, 0.2, 0, api_name="/train"), *needles)
    assert_healthy(api_client, tiny_tokenizer)


def test_an_oversized_upload_is_refused(api_client, app_url, tmp_path, tiny_tokenizer):
    big = tmp_path / "big.tsv"
    big.write_bytes(b"I am tired.\tIch bin muede.\n" * (2 * 2**20 // 26 + 100))
    assert big.stat().st_size > 2 * 2**20
    # gradio_client checks the server's max_file_size before uploading: a plain ValueError, not an AppError
    with pytest.raises(ValueError, match="exceeds the maximum file size of 2097152 bytes"):
        api_client.predict("upload", handle_file(str(big)), TINY, 0.2, 0, api_name="/train")
    # and the server refuses it too (what a browser or a hand-made request would meet)
    boundary = "----attention-explorer-test"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.tsv"\r\n\r\n'
    body = head.encode() + big.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        f"{app_url}gradio_api/upload", data=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=60)
    assert info.value.code == 413 and b"maximum allowed size" in info.value.read()
    assert_healthy(api_client, tiny_tokenizer)


# ----- several people at once ------------------------------------------------------------------
SENTENCES = [
    "I am tired.", "The dog is big.", "The cat is small.", "The house is old.", "The car is new.",
    "The book is good.", "The water is cold.", "The milk is warm.", "The coffee is hot.", "The door is open.",
]


def test_ten_clients_stepping_at_once_see_only_their_own_sentence(make_client, tiny_tokenizer):
    n = len(SENTENCES)
    clients = [None] * n
    rounds = threading.Barrier(n, timeout=120)

    def person(i):
        try:
            c = clients[i] = make_client()
            first = start(c, SENTENCES[i])
            rounds.wait()
            for r in range(n):  # one step per round for those still going: the calls interleave
                if r <= i:
                    last = act(c, "/next_token")
                rounds.wait()
            return first, last
        except BaseException:
            rounds.abort()
            raise

    with ThreadPoolExecutor(n) as pool:
        results = list(pool.map(person, range(n)))
    for i, (first, last) in enumerate(results):
        expected = source_pieces(tiny_tokenizer, SENTENCES[i])
        assert tokens(first.source) == tokens(last.source) == expected, f"client {i}"
        assert len(last.target) == i + 2 and last.slider["value"] == i + 1, f"client {i}"
        assert figure(last.attention)["layout"]["xaxis"]["ticktext"] == [esc(t) for t in expected]
    # and afterwards each session still holds its own stepper
    for i in (0, n - 1):
        again = act(clients[i], "/previous")
        assert tokens(again.source) == source_pieces(tiny_tokenizer, SENTENCES[i]) and again.slider["value"] == i


def test_one_clients_ablation_does_not_change_anothers_translation(make_client):
    a, b = make_client(), make_client()
    baseline = b.predict(TEXT, api_name="/translate")
    heads = [f"L{l} H{h}" for l in range(2) for h in range(4)]
    _, after, _ = a.predict(TEXT, heads, heads, heads, api_name="/ablate")
    assert after != baseline  # every head off: the translation must change, or this test shows nothing
    with ThreadPoolExecutor(2) as pool:
        theirs = pool.submit(lambda: [b.predict(TEXT, api_name="/translate") for _ in range(3)])
        mine = pool.submit(lambda: [a.predict(TEXT, api_name="/translate") for _ in range(3)])
        assert theirs.result() == [baseline] * 3
        assert mine.result() == [after] * 3


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
            cwd=REPO, env=app_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
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
def test_train_streams_progress_then_the_trained_model_can_be_explored(make_client, tmp_path):
    from explorer.checkpoint import load_checkpoint
    from explorer.decoding import beam_search, prepare_source

    c = make_client()
    started = time.monotonic()
    job = c.submit("mini", None, TINY, 0.2, 0, api_name="/train")
    updates = [tuple(update) for update in job]
    message, loss, snapshot, archive = job.result()
    print(f"\ntraining for 0.2 min took {time.monotonic() - started:.1f} s end to end, {len(updates)} updates")
    assert len(updates) >= 2 and updates[0][0].startswith("Training on")
    assert all(u[3] is None for u in updates[:-1])  # the zip comes with the last update only
    assert message.startswith("Done (") and "Explore my trained model" in message
    assert figure(loss)["data"][0]["y"] and figure(snapshot)["layout"]["yaxis"]["ticktext"]

    assert archive.endswith(".zip")
    with zipfile.ZipFile(archive) as z:
        assert {"model.safetensors", "config.json", "tokenizer.model"} <= set(z.namelist())
        z.extractall(tmp_path / "trained")
    trained = load_checkpoint(tmp_path / "trained")

    assert "your model" in c.predict(True, api_name="/choose_model")
    out = start(c, "The dog is big.")
    assert tokens(out.source) == source_pieces(trained.tokenizer, "The dog is big.")
    source = prepare_source(trained.tokenizer, "The dog is big.", trained.model.config.max_len)
    expected = trained.tokenizer.decode(beam_search(trained.model, source.ids, beam_size=1, alpha=0.0)[0].ids)
    assert c.predict("The dog is big.", api_name="/translate") == expected  # the session now runs the zip's model
    assert "Exploring" in c.predict(False, api_name="/choose_model")


@pytest.mark.slow
def test_a_second_trainer_is_told_to_wait_and_stop_ends_a_job_early(make_client, tiny_tokenizer):
    a, b = make_client(), make_client()
    started = time.monotonic()
    job = a.submit("mini", None, TINY, 2, 0, api_name="/train")
    while not job.outputs():
        assert not job.done(), job.exception()
        assert time.monotonic() - started < 120, "training never reported progress"
        time.sleep(0.2)

    t = time.monotonic()
    expect_app_error(lambda: b.predict("mini", None, TINY, 0.2, 0, api_name="/train"), "Another person is training")
    assert time.monotonic() - t < 10  # told at once, not queued behind the running job
    assert_healthy(b, tiny_tokenizer)  # exploring works meanwhile
    assert b.predict(api_name="/stop_training") == "No training is running in this session."

    assert "Stopping" in a.predict(api_name="/stop_training")
    message, _, _, archive = job.result(timeout=90)
    assert "stopped early" in message and archive.endswith(".zip")
    assert time.monotonic() - started < 100  # far less than the 2 minutes asked for
