"""The server's own state without a browser: trained models by key with a lifetime, training runs by their secret
id, one run at a time, and the positional-encoding charts the API sends."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from explorer.app.models import ModelRegistry
from explorer.app.positional import positional_figures
from explorer.app.schemas import TrainRequest
from explorer.app.training_job import TrainingBusy, TrainingRun, TrainingRuns, TrainingSlot, UnknownRun
from explorer.errors import UserError
from explorer.interpret.request import clean_text


@pytest.mark.slow
def test_a_trained_model_lives_while_it_is_used_and_goes_after_its_lifetime(mini_handle):
    models = ModelRegistry(mini_handle, model_idle_s=0.6)
    key = models.register(mini_handle)
    for _ in range(4):  # used every 0.3 s for twice its lifetime: it stays
        assert models.get(key) is mini_handle
        time.sleep(0.3)
    time.sleep(0.8)
    with pytest.raises(UserError, match="not on the server any more") as gone:
        models.get(key)
    assert gone.value.status == 404
    assert models.get("shipped") is mini_handle  # the shipped model never goes


def test_the_server_holds_a_bounded_number_of_trained_models(mini_handle, monkeypatch):
    import explorer.app.models as models_module

    monkeypatch.setattr(models_module, "MAX_OWN_MODELS", 2)
    models = ModelRegistry(mini_handle, model_idle_s=0.5)
    models.register(mini_handle)
    models.register(mini_handle)
    with pytest.raises(UserError, match="already holds 2 trained models"):
        models.register(mini_handle)  # refused: nobody's model is pushed out by a newcomer
    time.sleep(0.6)
    assert models.register(mini_handle)  # the unused ones went


def test_one_address_holds_half_the_trained_models_and_nobodys_is_pushed_out(mini_handle, monkeypatch):
    """A review of issue 51: the 64 places could all be taken from one address and kept by a request every two
    hours. Now an address holds half (a lab behind one router); beyond, it is refused, and no model is pushed out."""
    import explorer.app.models as models_module

    monkeypatch.setattr(models_module, "MAX_OWN_MODELS", 4)
    monkeypatch.setattr(models_module, "MODELS_PER_ADDRESS", 2)
    models = ModelRegistry(mini_handle)
    lab = [models.register(mini_handle, "10.0.0.1") for _ in range(2)]
    with pytest.raises(UserError, match=r"This address \(10.0.0.1\) already holds 2 trained models, half"):
        models.room_for_one("10.0.0.1")
    student = models.register(mini_handle, "10.0.0.2")  # another address trains as before
    assert all(models.get(key) is mini_handle for key in [*lab, student])


def test_a_second_run_is_told_at_once_and_an_unknown_run_is_a_404(mini_handle):
    slot = TrainingSlot()
    runs = TrainingRuns(ModelRegistry(mini_handle), slot=slot)
    slot.acquire(60)  # somebody is training
    started = time.monotonic()
    with pytest.raises(TrainingBusy, match="Another person is training") as busy:
        runs.start(TrainRequest(minutes=0.2))
    assert busy.value.status == 409 and time.monotonic() - started < 1 and "s left" in str(busy.value)
    slot.release()
    with pytest.raises(UnknownRun, match="No training run 'not-a-run'") as unknown:
        runs.get("not-a-run")
    assert unknown.value.status == 404
    with pytest.raises(UserError, match="Choose a TSV file"):
        runs.start(TrainRequest(corpus="upload"))
    with pytest.raises(UserError, match="Unknown model size 'huge'"):
        runs.start(TrainRequest(preset="huge"))
    assert slot._lock.acquire(blocking=False)  # no refusal kept the slot


def test_a_runs_state_is_json_a_browser_can_read_even_when_the_loss_is_nan():
    from explorer.app.training_job import TrainingRun, _losses

    run = TrainingRun()
    before = run.version
    run.update(step=3, loss=_losses([{"step": 1, "loss": 2.0}, {"step": 2, "loss": float("nan")}], 0.9))
    version, text = run.state_json()
    state = json.loads(text)  # strict JSON: a NaN would break the page's JSON.parse
    assert version == before + 1 and state["loss"]["train"] == [[1, 2.0], [2, None]] and state["step"] == 3
    assert state["checkpoint"] is False and state["done"] is False


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


def test_positional_figures_read_the_model_buffer(mini_handle):
    heat, waves, _ = positional_figures(mini_handle, 20, 16, "0, 1, 10")
    z = np.array(json.loads(heat.to_json())["data"][0]["z"])
    np.testing.assert_allclose(z, mini_handle.model.pos_encoding.pe[:20, :16].numpy(), atol=1e-3)
    assert len(waves.data) == 3
    with pytest.raises(UserError, match="Wave dimensions must be numbers"):
        positional_figures(mini_handle, 20, 16, "abc")
    with pytest.raises(UserError, match="Positions 500 is out of range: choose 2 to 48"):
        positional_figures(mini_handle, 500, 16, "0")


def test_the_positional_waves_are_one_strip_per_dimension_not_one_knot():
    """Issue 36 #8: dimensions 0, 1, 4 and 16 on one axis tangled into one knot; each has its own strip now, on the
    same position axis, titled with its wavelength."""
    from explorer.app.figures import pe_waves
    from explorer.model.transformer import sinusoid_table

    pe = sinusoid_table(40, 64).numpy()
    fig = pe_waves(pe, [0, 1, 4, 16], 64, "waves")
    assert [t.yaxis for t in fig.data] == ["y", "y2", "y3", "y4"]  # one strip each
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0].startswith("dim 0 (sin, wavelength ≈ 6)") and titles[3].startswith("dim 16 (sin")
    assert np.allclose(fig.data[2].y, np.round(pe[:, 4], 4))


def test_data_that_cannot_train_a_model_is_said_in_words_and_stop_before_training_holds(mini_handle):
    """From a review: pairs all longer than the model takes failed with the generic message (a ValueError from the
    trainer); Stop pressed while the trainer was being made was forgotten."""
    slot = TrainingSlot()
    runs = TrainingRuns(ModelRegistry(mini_handle), slot=slot)
    long = " ".join(["word"] * 90)
    run = TrainingRun()
    slot.acquire(60)
    runs._train(run, TrainRequest(minutes=0.2), [(f"{long} {i}", f"{long} {i}") for i in range(40)], "")
    assert run.state["done"] and run.state["message"].startswith("This data cannot train a model: ")
    assert slot._lock.acquire(blocking=False)  # released
    slot.release()
    stopped = TrainingRun()
    assert stopped.stop() == "Stopping after the current step…" and stopped.stopping  # no trainer yet: remembered


def test_a_run_is_followed_by_a_bounded_number_of_streams_and_serialised_once_per_change():
    from explorer.app.training_job import MAX_FOLLOWERS, TooManyFollowers

    run = TrainingRun()
    for _ in range(MAX_FOLLOWERS):
        run.follow()
    with pytest.raises(TooManyFollowers, match="already has 4 pages following it") as refused:
        run.follow()
    assert refused.value.status == 429
    run.leave()
    run.follow()  # one left: another may come
    first = run.state_json()
    assert run.state_json() is first  # the same text for every follower until the state changes
    run.update(step=1)
    assert run.state_json()[0] == first[0] + 1
