"""The per-session logic without a browser: traces through the shared cache, ablation, export, positional figures."""

import contextlib
import json

import numpy as np
import pytest
import torch

from explorer.app.positional import positional_figures
from explorer.app.session import ExplorerSession
from explorer.app.trace_cache import TraceCache
from explorer.interpret.handle import ModelHandle
from explorer.interpret.inputs import UserError, clean_text, parse_request
from explorer.model.config import ModelConfig
from explorer.model.transformer import Transformer

TEXT = "The dog sees the cat."


@pytest.fixture
def handle(mini_tokenizer):
    torch.manual_seed(0)
    config = ModelConfig(
        vocab_size=mini_tokenizer.vocab_size,
        d_model=32,
        n_heads=4,
        n_encoder_layers=2,
        n_decoder_layers=2,
        d_ff=64,
        dropout=0.0,
        max_len=48,
    )
    return ModelHandle("tiny", Transformer(config).eval(), mini_tokenizer, {}, ("cross", 1, "2"))


@pytest.fixture
def session(handle):
    return ExplorerSession(handle)


def fig_json(fig):
    return json.loads(fig.to_json())


def test_sessions_share_one_cache_and_a_trained_model_gets_its_own_entries(handle, mini_tokenizer):
    cache = TraceCache()
    a, b = ExplorerSession(handle, cache), ExplorerSession(handle, cache)
    request = parse_request(TEXT)
    first = a.trace(request)
    assert b.trace(request) is first and cache.computed == 1  # a class on one example costs one decode
    torch.manual_seed(1)
    own = ModelHandle("own", Transformer(handle.config).eval(), mini_tokenizer)
    assert own.fingerprint != handle.fingerprint
    b.set_own_model(own)
    assert "own" in b.choose_model(True)
    theirs = b.trace(request, use_own=True)
    assert cache.computed == 2 and theirs["model"]["name"] == "own" and a.trace(request) is first


def test_clean_text_messages():
    assert clean_text("  The\tdog  ") == "The dog"
    for text, message in [
        ("", "empty"),
        ("\x00\x01", "empty"),
        ("x" * 1001, "1,001 characters"),
        (None, "Type an English"),
    ]:
        with pytest.raises(UserError, match=message):
            clean_text(text)


def test_ablation_comparison_is_stateless_per_call(handle):
    a, b = ExplorerSession(handle), ExplorerSession(handle)
    heads = [("cross", layer, head) for layer in range(2) for head in range(4)]
    before, after, note = a.compare_ablation(TEXT, heads)
    assert before == b.translate(TEXT) == a.translate(TEXT)  # nothing stays switched off in either session
    assert a.translate(TEXT, heads) == after
    assert note.endswith("changed the translation.") == (before != after)
    with pytest.raises(UserError, match="head 4 out of range"):
        a.compare_ablation(TEXT, [("cross", 0, 4)])


def test_export_npz_has_every_tensor_up_to_the_step_with_tokens(session, tmp_path):
    request = parse_request(TEXT)
    wire = session.trace(request)
    data = np.load(session.export_npz(request, 3))
    S = len(wire["source_ids"])
    assert data["encoder_self_weights"].shape == (2, 4, S, S)
    assert data["decoder_self_weights"].shape == (2, 4, 3, 3) and data["decoder_self_scores"].shape == (2, 4, 3, 3)
    assert data["cross_weights"].shape == (2, 4, 3, S)
    assert list(data["source_tokens"]) == wire["source_tokens"]
    assert list(data["target_tokens"]) == wire["target_tokens"][:3] and int(data["step"]) == 3
    np.testing.assert_allclose(data["cross_weights"].sum(-1), 1.0, atol=1e-3)
    with pytest.raises(UserError, match="Step 999 does not exist"):
        session.export_npz(request, 999)
    second = session.export_npz(request, 2)
    assert [p.name for p in second.parent.iterdir()] == ["attention_step2.npz"]  # one export per session on disk
    session.close()
    assert not second.exists() and not second.parent.exists()


def test_positional_figures_read_the_model_buffer(session, handle):
    heat, waves, sim = positional_figures(session.handle(), 20, 16, "0, 1, 10")
    z = np.array(fig_json(heat)["data"][0]["z"])
    np.testing.assert_allclose(z, handle.model.pos_encoding.pe[:20, :16].numpy(), atol=1e-3)
    assert len(waves.data) == 3
    with pytest.raises(UserError, match="Wave dimensions must be numbers"):
        positional_figures(session.handle(), 20, 16, "abc")
    with pytest.raises(UserError, match="Positions 500 is out of range: choose 2 to 48"):
        positional_figures(session.handle(), 500, 16, "0")


def test_a_session_is_copied_blank_for_each_browser_session(handle, mini_tokenizer):
    import copy

    template = ExplorerSession(handle, idle_s=60)
    torch.manual_seed(1)
    template.set_own_model(ModelHandle("own", Transformer(handle.config).eval(), mini_tokenizer))
    fresh = copy.deepcopy(template)  # what Gradio does with a gr.State's initial value for every browser session
    assert fresh is not template and fresh.own is None and fresh.shipped is handle and fresh.cache is template.cache
    assert fresh.idle_s == 60


def test_choose_own_model_requires_training_and_says_when_the_session_expired(handle, mini_tokenizer):
    lost = ExplorerSession(handle, idle_s=7200)
    with lost.admit():  # the first event of a session already asks for a trained model: an earlier session expired
        with pytest.raises(UserError, match="Your session expired .* 2 hours"):
            lost.trace(parse_request(TEXT), use_own=True)
    with lost.admit(), pytest.raises(UserError, match="Your session expired"):
        lost.choose_model(True)
    fresh = ExplorerSession(handle)
    with fresh.admit():
        assert "tiny" in fresh.choose_model(False)
    with fresh.admit(), pytest.raises(UserError, match="not trained a model"):
        fresh.choose_model(True)
    with fresh.admit(), pytest.raises(UserError, match="must be true or false"):
        fresh.choose_model("yes")


def test_one_session_runs_a_bounded_number_of_events_at_once(session):
    from explorer.app.session import MAX_IN_FLIGHT

    with contextlib.ExitStack() as stack:
        for _ in range(MAX_IN_FLIGHT):
            stack.enter_context(session.admit())
        with pytest.raises(UserError, match=f"already has {MAX_IN_FLIGHT} requests running"):
            session.admit().__enter__()
    with session.admit():  # the slots come back
        pass


def test_close_deletes_the_sessions_files_and_model(session, handle):
    marker = session.files / "train-x" / "trained-checkpoint.zip"
    marker.parent.mkdir()
    marker.write_bytes(b"zip")
    session.set_own_model(handle)
    session.close()
    assert not marker.exists() and session.own is None
    session.set_own_model(handle)  # a training that finishes after its session ended installs nothing
    assert session.own is None


def test_compare_asks_for_another_sentence_or_the_other_model(handle, mini_tokenizer):
    session = ExplorerSession(handle, TraceCache())
    request = parse_request(TEXT)
    other = session.probe(request, {"what": "compare", "id": 7, "sentence": "The cat sees the dog.", "model": "same"})
    assert other["id"] == 7 and other["wire"]["request"]["sentence"] == "The cat sees the dog."
    assert other["wire"]["model"]["fingerprint"] == handle.fingerprint
    with pytest.raises(UserError, match="no other model to compare with"):
        session.probe(request, {"what": "compare", "model": "other"})
    torch.manual_seed(1)
    session.events = 2  # (a session that has been used: its trained model did not expire)
    session.set_own_model(ModelHandle("own", Transformer(handle.config).eval(), mini_tokenizer))
    shipped_side = session.probe(request, {"what": "compare", "model": "other"}, use_own=True)
    own_side = session.probe(request, {"what": "compare", "model": "other"}, use_own=False)
    assert shipped_side["wire"]["model"]["name"] == handle.name and own_side["wire"]["model"]["name"] == "own"
    assert own_side["wire"]["request"]["sentence"] == TEXT  # the same sentence, the other model


def plain(value) -> bool:
    """Only JSON's own types: Gradio sends a numpy scalar as a string, which the browser cannot compute with."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def test_every_answer_to_the_viewer_is_plain_json(handle):
    session = ExplorerSession(handle, TraceCache())
    request = parse_request(TEXT, ablation=[["cross", 1, 2]])
    questions = [
        {"what": "explain", "kind": "decoder_self", "layer": 1, "head": 0, "row": 2, "column": 1},
        {"what": "heads"},
        {"what": "attribution", "step": 2, "layer": 1, "head": "rollout"},
        {"what": "beam_tree"},
    ]
    for question in questions:
        answer = session.probe(request, question | {"id": 5})
        assert answer["id"] == 5 and plain(answer), question["what"]
    heads = session.probe(request, {"what": "heads"})
    assert heads["drops"]["cross"][1][2] is None  # switched off in the trace: no drop of its own
    with pytest.raises(UserError, match="step 0 has produced no token|Step 0 has produced no token"):
        session.probe(request, {"what": "attribution", "step": 0, "layer": 0, "head": 0})
