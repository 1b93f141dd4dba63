"""The explorer's handler logic without a browser: sessions, views, figures' labels, validation, export."""

import json

import numpy as np
import pytest
import torch

from explorer import figures
from explorer.config import ModelConfig
from explorer.model import Transformer
from explorer.session import ExplorerSession, ModelHandle, UserError, clean_text
from explorer.sessions import SessionStore


@pytest.fixture
def handle(mini_tokenizer):
    torch.manual_seed(0)
    config = ModelConfig(vocab_size=mini_tokenizer.vocab_size, d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=64, dropout=0.0, max_len=48)
    return ModelHandle("tiny", Transformer(config).eval(), mini_tokenizer, {}, ("cross", 1, "2"))


@pytest.fixture
def session(handle):
    return ExplorerSession(handle)


def fig_json(fig):
    return json.loads(fig.to_json())


def test_start_step_back_and_seek(session):
    view = session.start("The dog sees the cat.")
    assert view.position == 0 and view.source_chips[-1][0] == "</s>" and view.target_chips == [("<s>", "start")]
    assert view.topk is None
    for n in range(1, 4):
        view = session.next()
        assert view.position == n
    assert [c for _, c in view.target_chips] == ["start", "produced", "produced", "current"]
    assert all(isinstance(w, float) for _, w in view.source_chips)  # shaded by cross-attention
    assert session.previous().position == 2
    assert session.seek(3).position == 3
    assert session.reset().position == 0
    view = session.run_to_end()
    assert view.finished and "finished" in view.status


def test_actions_before_start_say_press_start(session):
    for action in (session.next, session.previous, session.run_to_end, session.reset, session.export_npz):
        with pytest.raises(UserError, match="Press Start"):
            action()


@pytest.mark.parametrize(
    "text, message",
    [("", "box is empty"), ("   \n\t ", "box is empty"), ("\x00\x01\x02", "box is empty"), ("a" * 10_000, "10,000 characters"), (None, "Type")],
)
def test_bad_text_gives_clear_messages(session, text, message):
    with pytest.raises(UserError, match=message):
        session.start(text)


def test_unusual_text_works_and_is_reported(session):
    view = session.start("I ❤ 東京 שלום <script>alert(1)</script>")
    assert "<unk>" in [p for p, _ in view.source_chips] and "outside the model's vocabulary" in view.status
    long = session.start(" ".join(["the dog sees the cat"] * 30))
    assert "only the first 47" in long.status


def test_status_markdown_escapes_model_and_user_text():
    assert clean_text("  a\u0000b  ") == "ab"
    from explorer.session import _md

    assert _md("<b>x</b>") == "&#60;b&#62;x&#60;/b&#62;"
    assert _md("*a*_b_") == "\\*a\\*\\_b\\_"


def test_cross_attention_figure_axes_carry_target_rows_and_source_columns(session):
    session.start("The dog sees the cat.")
    for _ in range(3):
        session.next()
    fig = fig_json(session.attention_figure("cross", 1, "2"))
    produced = [s.piece for s in session.stepper.current]
    source = session.stepper.source.pieces
    assert fig["layout"]["yaxis"]["ticktext"] == [figures.escape(p) for p in produced]
    assert fig["layout"]["xaxis"]["ticktext"] == [figures.escape(p) for p in source]
    assert "&lt;/s&gt;" in fig["layout"]["xaxis"]["ticktext"]
    assert "target" in fig["layout"]["yaxis"]["title"]["text"] and "source" in fig["layout"]["xaxis"]["title"]["text"]
    z = np.array(fig["data"][-1]["z"], dtype=float)
    assert z.shape == (3, len(source))
    np.testing.assert_allclose(z.sum(1), 1.0, atol=1e-3)
    np.testing.assert_allclose(z, session.stepper.maps_at("cross")[1, 2].numpy(), atol=1e-4)
    assert fig["data"][-1]["zmin"] == 0 and fig["data"][-1]["zmax"] == 1


def test_decoder_self_attention_shows_the_mask_distinctly(session):
    session.start("The dog sees the cat.")
    for _ in range(4):
        session.next()
    fig = fig_json(session.attention_figure("decoder_self", 0, "mean"))
    masked, weights = fig["data"]
    assert masked["hovertemplate"].startswith("masked")
    z = np.array(weights["z"], dtype=float)
    future = np.triu(np.ones((4, 4), dtype=bool), 1)
    assert np.isnan(z[future]).all() and not np.isnan(z[~future]).any()
    assert fig["layout"]["xaxis"]["ticktext"][0] == "&lt;s&gt;"  # keys are the decoder inputs


def test_mosaic_is_one_trace_and_small(session):
    session.start("When I was a child, I often went to school by bus because my parents did not have a car.")
    session.run_to_end()
    for kind in ("encoder_self", "decoder_self", "cross"):
        fig = session.overview_figure(kind)
        assert len(fig.data) == 1
        assert len(fig.to_json()) < 300_000


def test_all_heads_and_bad_selections(session):
    session.start("The dog sees the cat.")
    session.next()
    assert len(session.attention_figure("encoder_self", 0, "all").data) == 1
    with pytest.raises(UserError, match="Layer 7 does not exist"):
        session.attention_figure("cross", 7, "0")
    with pytest.raises(UserError, match="Head 9 does not exist"):
        session.attention_figure("cross", 0, "9")
    with pytest.raises(UserError, match="Unknown attention kind"):
        session.attention_figure("bogus", 0, "0")
    with pytest.raises(UserError, match="Unknown head"):
        session.attention_figure("cross", 0, "x")


def test_mask_stages_match_the_recorded_weights(session):
    session.start("The dog sees the cat.")
    for _ in range(3):
        session.next()
    mask_fig, stages = session.mask_figures(1, 3)
    mask = np.array(fig_json(mask_fig)["data"][0]["z"])
    assert mask.tolist() == np.tril(np.ones((4, 4), dtype=int)).tolist()
    weights = np.array(fig_json(stages)["data"][-1]["z"], dtype=float)
    assert np.isnan(weights[np.triu_indices(4, 1)]).all()
    np.testing.assert_allclose(np.nansum(weights, 1), 1.0, atol=1e-3)


def test_beam_and_what_if(session):
    rows, view = session.start_beam("The dog sees the cat.", 3, 0.6)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    session.run_to_end()
    assert session.stepper.output_text() == rows[0][1]
    view = session.start("The dog sees the cat.", prefix="Ich weiß")
    session.next()
    view = session.next()
    assert [c for _, c in view.target_chips][1:3] == ["forced", "current"]
    with pytest.raises(UserError, match="Beam size 99"):
        session.beams("The dog.", 99, 0.6)


def test_ablation_is_per_session(handle):
    a, b = ExplorerSession(handle), ExplorerSession(handle)
    before_b = b.translate("The dog sees the cat.")
    heads = [("cross", layer, head) for layer in range(2) for head in range(4)]
    before, after, note = a.compare_ablation("The dog sees the cat.", heads)
    assert before == before_b
    assert note.endswith("changed the translation.") == (before != after)
    assert a.translate("The dog sees the cat.") == after  # the ablation stays on in a's session...
    assert b.translate("The dog sees the cat.") == before_b  # ...and never reaches b's
    with pytest.raises(UserError, match="head 4 out of range"):
        a.set_ablation([("cross", 0, 4)])


def test_export_npz_has_every_tensor_with_tokens(session, tmp_path):
    session.start("The dog sees the cat.")
    for _ in range(3):
        session.next()
    data = np.load(session.export_npz(tmp_path))
    S = len(session.stepper.source.ids)
    assert data["encoder_self_weights"].shape == (2, 4, S, S)
    assert data["decoder_self_weights"].shape == (2, 4, 3, 3)
    assert data["cross_weights"].shape == (2, 4, 3, S)
    assert data["cross_scores"].shape == (2, 4, 3, S)
    assert list(data["source_tokens"]) == session.stepper.source.pieces
    assert len(data["target_tokens"]) == 3 and int(data["step"]) == 3


def test_positional_figures_read_the_model_buffer(session, handle):
    heat, waves, sim = session.positional_figures(20, 16, "0, 1, 10")
    z = np.array(fig_json(heat)["data"][0]["z"])
    np.testing.assert_allclose(z, handle.model.pos_encoding.pe[:20, :16].numpy(), atol=1e-3)
    assert len(waves.data) == 3
    with pytest.raises(UserError, match="Wave dimensions must be numbers"):
        session.positional_figures(20, 16, "abc")
    with pytest.raises(UserError, match="between 2 and 48 positions"):
        session.positional_figures(500, 16, "0")


def test_session_store_isolates_expires_and_caps(handle):
    store = SessionStore(lambda: ExplorerSession(handle), max_sessions=3, idle_seconds=3600)
    a = store.get("a")
    assert store.get("a") is a and store.get("b") is not a
    for key in "cde":
        store.get(key)
    assert len(store) == 3 and store.get("a") is not a  # "a" was evicted, a fresh session replaces it
    with pytest.raises(ValueError):
        store.get(None)
    expiring = SessionStore(lambda: ExplorerSession(handle), idle_seconds=0)
    first = expiring.get("x")
    assert expiring.get("y") is not first and len(expiring) == 1


def test_choose_own_model_requires_training(session):
    with pytest.raises(UserError, match="not trained a model"):
        session.choose_model(True)
