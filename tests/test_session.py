"""The per-session logic without a browser: traces through the shared cache, ablation, export, positional figures."""

import contextlib
import json

import numpy as np
import pytest
import torch

from explorer.app.positional import positional_figures
from explorer.app.schemas import trace_request
from explorer.app.session import ExplorerSession
from explorer.app.trace_cache import TraceCache
from explorer.interpret.handle import ModelHandle
from explorer.interpret.request import UserError, clean_text
from explorer.model.transformer import Transformer

TEXT = "The dog sees the cat."


@pytest.fixture
def handle(mini_handle):
    return mini_handle


@pytest.fixture
def session(handle):
    return ExplorerSession(handle)


def fig_json(fig):
    return json.loads(fig.to_json())


def test_sessions_share_one_cache_and_a_trained_model_gets_its_own_entries(handle, mini_tokenizer):
    cache = TraceCache()
    a, b = ExplorerSession(handle, cache), ExplorerSession(handle, cache)
    request = trace_request(TEXT)
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
            lost.trace(trace_request(TEXT), use_own=True)
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
    from explorer.app.fairness import MAX_IN_FLIGHT

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


def test_the_positional_waves_are_one_strip_per_dimension_not_one_knot():
    """Issue 36 #8: dimensions 0, 1, 4 and 16 on one axis tangled into one knot; each has its own strip now, on the
    same position axis, titled with its wavelength."""
    import numpy as np

    from explorer.app.figures import pe_waves
    from explorer.model.transformer import sinusoid_table

    pe = sinusoid_table(40, 64).numpy()
    fig = pe_waves(pe, [0, 1, 4, 16], 64, "waves")
    assert [t.yaxis for t in fig.data] == ["y", "y2", "y3", "y4"]  # one strip each
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0].startswith("dim 0 (sin, wavelength ≈ 6)") and titles[3].startswith("dim 16 (sin")
    assert np.allclose(fig.data[2].y, np.round(pe[:, 4], 4))


def test_a_gradio_event_counts_against_its_address_and_waits_in_the_line_as_it(session):
    """From a review of issue 51: the Gradio tabs' events counted per session only (a script opens as many sessions as
    it likes) and their model work all waited in the line as one nameless address. Now the request Gradio passes
    names the address: the event counts against it beside the session, and its jobs wait as that address's."""
    import gradio as gr
    from gradio import helpers

    from explorer.app.callers import ASKING
    from explorer.ui.common import session_event

    seen = {}

    @session_event
    def event(value, session):
        seen["asking"] = ASKING.get()
        seen["running"] = dict(session.models.fairness.running)
        return value

    class FakeRequest(gr.Request):  # what Gradio passes: its Request, the Starlette request inside
        def __init__(self, inner):
            self.request = inner

    from starlette.requests import Request

    inner = Request({"type": "http", "headers": [], "query_string": b"", "client": ("10.0.0.66", 5)})
    args, _, _, _ = helpers.special_args(event, ["v", session], request=FakeRequest(inner))
    out = event(*args)
    assert out == ("v", session) and seen["asking"] == "10.0.0.66"
    assert seen["running"] == {f"session:{id(session)}": 1, "address:10.0.0.66": 1}
    assert not session.models.fairness.running  # both left with the event
