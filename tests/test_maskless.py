"""Why the look-ahead mask: a model configured without it sees the future when teacher-forced (and only then), and
the companions' answer (explorer/app/maskless.py) reports the weights and numbers it computed, through the API."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_config
from starlette.applications import Starlette
from starlette.testclient import TestClient

from explorer.app import http_api, maskless
from explorer.app.maskless import Companions
from explorer.app.models import ModelRegistry
from explorer.app.questions.maskless import MasklessAnswer
from explorer.interpret.decoding import greedy_decode
from explorer.interpret.hooks import record
from explorer.model.checkpoint import save_checkpoint
from explorer.model.config import ModelConfig
from explorer.model.transformer import Transformer

TEXT = "The dog sees the cat."


def twins(vocab_size: int) -> tuple[Transformer, Transformer]:
    """One set of weights, configured with the look-ahead mask and without it."""
    torch.manual_seed(0)
    masked = Transformer(tiny_config(vocab_size=vocab_size)).eval()
    maskless = Transformer(tiny_config(vocab_size=vocab_size, lookahead_mask=False)).eval()
    maskless.load_state_dict(masked.state_dict())
    return masked, maskless


def test_without_the_mask_teacher_forcing_sees_the_future_and_decoding_step_by_step_cannot():
    masked, maskless = twins(99)
    sources, inputs = [[5, 6, 7, 8, 3]], [[2, 9, 10, 11, 12]]
    with_mask, _ = record(masked, sources, inputs, kinds=("decoder_self",))
    without, _ = record(maskless, sources, inputs, kinds=("decoder_self",))
    future = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    for layer in range(2):
        assert with_mask.weights["decoder_self"][layer][0][:, future].abs().max() == 0  # the mask: exactly zero
        assert without.weights["decoder_self"][layer][0][:, future].min() > 0  # no mask: the future gets weight
    # step by step there is no future to read: the same weights decode the same tokens either way
    assert greedy_decode(masked, sources, limits=8) == greedy_decode(maskless, sources, limits=8)


def test_the_flag_is_checked_and_older_checkpoints_keep_the_mask():
    with pytest.raises(ValueError, match="lookahead_mask='no' must be true or false"):
        tiny_config(lookahead_mask="no")
    older = {k: v for k, v in tiny_config().to_dict().items() if k != "lookahead_mask"}
    assert ModelConfig.from_dict(older).lookahead_mask is True


@pytest.fixture
def companions(tmp_path, mini_tokenizer) -> Companions:
    masked, maskless = twins(mini_tokenizer.vocab_size)
    history = [{"step": s, "loss": loss} for s, loss in ((50, 6.0), (100, 4.0), (150, 3.5))]
    runs = {
        "with-mask": (masked, history),
        "without-mask": (maskless, [{"step": 50, "loss": 3.0}, {"step": 150, "loss": 0.4}]),
    }
    for name, (model, logged) in runs.items():
        meta = {"steps": 150, "history": logged + [{"step": 150, "loss": 5.0, "chrf": 1.0, "valid": True}]}
        meta["last_validation"] = {"step": 150, "loss": 5.0, "bleu": 0.5, "chrf": 1.0}
        save_checkpoint(tmp_path / name, model, mini_tokenizer, meta)
    return Companions.load(tmp_path / "with-mask", tmp_path / "without-mask")


def test_the_answer_reports_the_weights_it_computed(companions):
    answer = companions.answer(TEXT)
    forced = answer["forced"]
    weights = np.array(forced["weights"])
    T = len(forced["inputs"])
    assert weights.shape == (T, T) and forced["inputs"][0] == "<s>" and forced["targets"][-1] == "</s>"
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-3)
    assert forced["next_weight"] == pytest.approx(np.mean([weights[i, i + 1] for i in range(T - 1)]), abs=1e-3)
    assert 0 <= forced["accuracy"] <= 1
    assert answer["losses"]["with_mask"] == [[50, 6.0], [100, 4.0], [150, 3.5]]  # the validation's loss left out
    assert answer["runs"]["with_mask"]["final_loss"] == pytest.approx(3.75)  # the mean of the last 100 steps
    assert answer["runs"]["without_mask"]["valid_loss"] == 5.0
    assert set(answer["translations"]) == {"with_mask", "without_mask"}
    MasklessAnswer.model_validate(answer)


def test_the_api_answers_the_question_and_a_server_without_companions_says_how_to_make_them(
    companions, mini_handle, monkeypatch
):
    client = TestClient(Starlette(routes=http_api.routes(ModelRegistry(mini_handle))), headers={"x-ae-client": "t"})
    body = {"trace": {"sentence": TEXT}, "question": {"what": "maskless"}}
    monkeypatch.setattr(maskless, "COMPANIONS", maskless.COMPANIONS.parent / "no-such-folder")
    maskless.companions.cache_clear()
    missing = client.post("/ae/api/ask/maskless", json=body)
    assert missing.status_code == 400 and "python -m bench.maskless --ship" in missing.json()["error"]
    monkeypatch.setattr(maskless, "companions", lambda: companions)
    answer = client.post("/ae/api/ask/maskless", json={"trace": {"sentence": TEXT, "strategy": "beam"}, "question": {}})
    assert answer.status_code == 200, answer.text[:300]
    assert MasklessAnswer.model_validate(answer.json()).forced.inputs[0] == "<s>"
