"""A converted Marian model served by the app's routes, unchanged: the trace, every registered question, the .npz, the
positional table in Marian's layout, the language pair named, no German hand alignment for an English → French
model; and `python app.py` refusing a bad `--checkpoint` at start with a message (an `hf:` model offline)."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from app_fixtures import REPO, app_env
from starlette.applications import Starlette
from starlette.testclient import TestClient

from bench.random_marian import build
from explorer.app import http_api
from explorer.app.models import ModelRegistry, load_served
from explorer.app.questions import ANSWERS, REGISTRY
from explorer.app.schemas import Wire
from explorer.model.transformer import sinusoid_table
from explorer.training.data import MINI_CORPUS, clean, read_tsv

pytestmark = pytest.mark.slow  # a second or more each: CI runs them, `tests/run.py --fast` leaves them out

pytest.importorskip("transformers")

ALIGNED = "I know that he reads a book every day."  # hand-aligned with its German (explorer/app/alignments/)
QUESTIONS = {  # a valid body of every registered question, on the 2+2-layer, 4-head model below
    "attribution": {"step": 1, "layer": 1, "head": "rollout"},
    "beam_tree": {},
    "compare": {"sentence": "The cat sees the dog.", "model": "same"},
    "contributions": {},
    "explain": {"kind": "cross", "layer": 1, "head": 3, "row": 0, "column": 2},
    "heads": {"method": "exact"},
    "lens": {},
    "maskless": {},
    "no_position": {},
    "qk_space": {"kind": "encoder_self", "layer": 0, "head": 1},
    "roles": {},
    "value_path": {"kind": "encoder_self", "layer": 0, "head": 1, "row": 2},
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    pairs = clean(read_tsv(MINI_CORPUS))
    src, tgt = [p[0] for p in pairs], [p[1] for p in pairs]
    root = tmp_path_factory.mktemp("marian-app")
    common = dict(spm_size=100, eos_bias=8.0, init_std=1.0)
    return (
        build(root / "opus-mt-en-de", src, tgt, **common),
        build(root / "opus-mt-en-fr", src, tgt, languages=("en", "fr"), seed=1, **common),
    )


@pytest.fixture(scope="module")
def client(folders):
    served = load_served([str(f) for f in folders])  # each Marian folder converted on load, as app.py does
    return TestClient(Starlette(routes=http_api.routes(ModelRegistry(served))), headers={"x-ae-client": "test"})


def test_the_models_are_listed_with_their_language_pairs(client):
    listed = client.get("/ae/api/models").json()
    assert [(m["key"], m["languages"]["target_name"]) for m in listed] == [
        ("opus-mt-en-de", "German"),
        ("opus-mt-en-fr", "French"),
    ]
    assert listed[0]["name"] == "opus-mt-en-de (en→de, Marian)" and listed[0]["heads"] == 4


@pytest.mark.parametrize("model", ["opus-mt-en-de", "opus-mt-en-fr"])
def test_every_question_is_answered_on_a_converted_model(client, model):
    trace = {"sentence": "The dog sees the cat.", "model": model}
    wire = client.get("/ae/api/trace", params=trace).json()
    Wire.model_validate(wire)
    assert wire["model"]["languages"]["source_name"] == "English"
    assert set(QUESTIONS) == set(REGISTRY)  # a new question is added here too
    for what, question in QUESTIONS.items():
        answer = client.post(f"/ae/api/ask/{what}", json={"trace": trace, "question": {"what": what} | question})
        if what == "maskless":  # its companions are this project's own pair of models: said, not computed
            assert answer.status_code in (200, 400, 404), answer.json()
            continue
        assert answer.status_code == 200, (what, answer.json())
        ANSWERS[what].model_validate(answer.json())


def test_the_first_layers_input_is_the_scaled_embedding_plus_marians_positions(client):
    body = {
        "trace": {"sentence": "The dog sees the cat."},
        "question": {"what": "value_path"} | QUESTIONS["value_path"],
    }
    answer = client.post("/ae/api/ask/value_path", json=body).json()
    x = np.array(answer["embedding"]) + np.array(answer["position"])
    np.testing.assert_allclose(x, answer["x"], rtol=1e-3, atol=1e-4)  # post-LN: the layer reads x itself
    d = len(answer["position"])
    np.testing.assert_allclose(answer["position"], sinusoid_table(3, d, "halves")[2].numpy(), rtol=1e-3, atol=1e-5)


def test_the_positional_table_is_the_models_own_layout(client):
    table = client.get("/ae/api/positional", params={"positions": 20, "model": "opus-mt-en-fr"}).json()
    np.testing.assert_allclose(table["encoding"], sinusoid_table(20, table["d_model"], "halves").numpy(), atol=1e-6)
    params = {"positions": 20, "dims": 16, "waves": "0, 1, 8", "model": "opus-mt-en-fr"}
    figures = client.get("/ae/api/positional/figures", params=params).json()
    assert "halves" in figures["heatmap"]["layout"]["title"]["text"]


def test_the_npz_of_a_converted_model_has_its_tensors(client):
    answer = client.get(
        "/ae/api/npz", params={"sentence": "The dog sees the cat.", "model": "opus-mt-en-fr", "step": 1}
    )
    assert answer.status_code == 200
    arrays = np.load(io.BytesIO(answer.content))
    assert arrays["cross_weights"].shape[:2] == (2, 4)  # (layers, heads, ...)


def test_the_german_hand_alignment_is_offered_for_english_to_german_only(client):
    de = client.get("/ae/api/trace", params={"sentence": ALIGNED, "model": "opus-mt-en-de"}).json()
    fr = client.get("/ae/api/trace", params={"sentence": ALIGNED, "model": "opus-mt-en-fr"}).json()
    assert de["gold"] is not None and de["gold"]["target"].startswith("Ich weiß")
    assert fr["gold"] is None


def test_german_input_is_named_with_the_models_own_target_language(client):
    wire = client.get(
        "/ae/api/trace", params={"sentence": "Ich weiß, dass er das Buch liest.", "model": "opus-mt-en-fr"}
    )
    assert any("reads English and writes French" in note for note in wire.json()["notes"])


@pytest.mark.slow
def test_app_refuses_an_hf_model_offline_at_start_and_names_the_download(tmp_path):
    env = app_env() | {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "app.py", "--checkpoint", "hf:Helsinki-NLP/opus-mt-en-de", "--port", "9"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert (
        "error: cannot load the model: hf:Helsinki-NLP/opus-mt-en-de is not in the local Hugging Face cache"
        in done.stderr
    )
    assert "`hf download Helsinki-NLP/opus-mt-en-de" in done.stderr and "Traceback" not in done.stderr
