"""Which heads matter, estimated in one pass (issue 53): the gradient of a gate on each head's output against a finite
difference on a tiny model, against the exact ablation on the shipped model, and through the API."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_config
from starlette.applications import Starlette
from starlette.testclient import TestClient

from explorer.app import SHIPPED_CHECKPOINT, http_api
from explorer.app.examples import EXAMPLES
from explorer.app.models import ModelRegistry
from explorer.app.questions.heads import HeadsAnswer
from explorer.interpret.decoding import greedy_decode
from explorer.interpret.handle import load_handle
from explorer.interpret.head_importance import HeadGates, head_gradients, head_importance, spearman, top_overlap
from explorer.model.config import ATTENTION_KINDS, BOS_ID
from explorer.model.transformer import Transformer, pad_batch

SOURCE, TARGET = [5, 6, 7, 8, 9, 3], [11, 12, 13, 14, 3]


@pytest.fixture(scope="module")
def model() -> Transformer:
    torch.manual_seed(3)
    return Transformer(tiny_config()).double().eval()


def log_prob_at(model: Transformer, kind: str, layer: int, head: int, value: float, off=()) -> float:
    """log p(TARGET | SOURCE) with one head's gate at `value` (the rest 1, or 0 for `off`)."""
    gates = HeadGates(model, off)
    with torch.no_grad():
        gates.sites[(kind, layer)][head] = value
        logits = model(pad_batch([SOURCE]), pad_batch([[BOS_ID] + TARGET[:-1]]), gates)
    log_probs = torch.log_softmax(logits.double(), dim=-1)[0]
    return float(log_probs[torch.arange(len(TARGET)), torch.tensor(TARGET)].sum())


def test_the_estimate_is_the_slope_of_log_p_along_each_gate(model):
    """∂ log p / ∂ξ from one backward pass equals a central finite difference, for every head of every kind."""
    estimate = head_gradients(model, SOURCE, TARGET)
    eps = 1e-5
    for kind in ATTENTION_KINDS:
        for layer in range(model.config.n_layers(kind)):
            for head in range(model.config.n_heads):
                up = log_prob_at(model, kind, layer, head, 1 + eps)
                down = log_prob_at(model, kind, layer, head, 1 - eps)
                assert estimate.drops[kind][layer, head] == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-8)
    assert estimate.log_prob == pytest.approx(log_prob_at(model, "cross", 0, 0, 1.0), abs=1e-5)  # log p in fp32


def test_switching_a_gate_to_zero_is_the_exact_ablation_and_the_estimate_its_first_order(model):
    exact = head_importance(model, SOURCE, TARGET)
    estimate = head_gradients(model, SOURCE, TARGET)
    full = log_prob_at(model, "cross", 1, 2, 1.0)
    assert exact.drops["cross"][1, 2] == pytest.approx(full - log_prob_at(model, "cross", 1, 2, 0.0), abs=1e-4)
    # the estimate is exact where log p is linear in the gate: compare at a small step, not at the switch-off
    step = 1e-3
    small = (full - log_prob_at(model, "cross", 1, 2, 1 - step)) / step
    assert estimate.drops["cross"][1, 2] == pytest.approx(small, rel=1e-2, abs=1e-6)


def test_heads_already_switched_off_keep_their_gate_at_zero_and_get_no_estimate(model):
    off = (("cross", 0, 1), ("encoder_self", 1, 3))
    estimate = head_gradients(model, SOURCE, TARGET, off=off)
    assert np.isnan(estimate.drops["cross"][0, 1]) and np.isnan(estimate.drops["encoder_self"][1, 3])
    assert np.isfinite(estimate.drops["cross"][0, 0])
    exact = head_importance(model, SOURCE, TARGET, off=off)
    assert estimate.log_prob == pytest.approx(exact.log_prob, abs=1e-6)  # the same heads off in both passes
    eps = 1e-5
    slope = (log_prob_at(model, "cross", 1, 0, 1 + eps, off) - log_prob_at(model, "cross", 1, 0, 1 - eps, off)) / (
        2 * eps
    )
    assert estimate.drops["cross"][1, 0] == pytest.approx(slope, rel=1e-5, abs=1e-8)
    with pytest.raises(ValueError, match="layer 7 out of range"):
        head_gradients(model, SOURCE, TARGET, off=(("cross", 7, 0),))


def test_spearman_leaves_out_the_heads_switched_off_and_counts_ties_once():
    a = np.array([1.0, 2.0, 3.0, np.nan, 4.0])
    assert spearman(a, np.array([10.0, 20.0, 30.0, 0.0, 40.0])) == pytest.approx(1.0)
    assert spearman(a, -a) == pytest.approx(-1.0)
    assert np.isnan(spearman(np.array([1.0, np.nan]), np.array([2.0, 3.0])))


@pytest.mark.slow
@pytest.mark.skipif(not (SHIPPED_CHECKPOINT / "model.safetensors").is_file(), reason="no shipped checkpoint")
def test_on_the_shipped_model_the_estimate_ranks_the_heads_as_the_ablation_does():
    """Over the Translate tab's examples the one-pass estimate's ranking agrees with the exact one (ρ ≥ 0.5 each,
    ≥ 0.7 on average; bench/heads_estimate.py reports every sentence)."""
    handle = load_handle(SHIPPED_CHECKPOINT)
    rhos = []
    for sentence, _ in EXAMPLES:
        source = handle.tokenizer.encode_source(sentence, handle.config.max_len)
        (target,) = greedy_decode(handle.model, [source])
        exact, estimate = head_importance(handle.model, source, target), head_gradients(handle.model, source, target)
        flat = [np.concatenate([d.drops[k].ravel() for k in ATTENTION_KINDS]) for d in (exact, estimate)]
        rhos.append(spearman(*flat))
        assert rhos[-1] >= 0.5, sentence
    assert np.mean(rhos) >= 0.7


@pytest.fixture
def client(mini_handle):
    return TestClient(Starlette(routes=http_api.routes(ModelRegistry(mini_handle))), headers={"x-ae-client": "t"})


def test_the_api_answers_the_estimate_alone_and_the_exact_with_the_estimate_beside_it(client, mini_handle):
    def heads(**question):
        body = {"trace": {"sentence": "The dog sees the cat."}, "question": {"what": "heads"} | question}
        answer = client.post("/ae/api/ask/heads", json=body)
        assert answer.status_code == 200, answer.text
        return HeadsAnswer.model_validate(answer.json())

    estimate, exact = heads(method="estimate"), heads(method="exact")
    assert estimate.method == "estimate" and estimate.estimate is None and estimate.rho is None
    assert exact.method == "exact" and exact.estimate == estimate.drops  # the same one-pass numbers
    assert heads().method == "exact"  # the API's default stays the exact answer
    assert exact.log_prob == pytest.approx(estimate.log_prob, abs=1e-4)
    flat = [
        np.array([v for kind in ATTENTION_KINDS for row in d[kind] for v in row]) for d in (exact.drops, exact.estimate)
    ]
    assert exact.rho == pytest.approx(spearman(*flat), abs=1e-5) and -1 <= exact.rho <= 1
    exact_top, estimate_top = ({int(i) for i in np.argsort(-f)[:3]} for f in flat)
    assert exact.top3 == len(exact_top & estimate_top) and estimate.top3 is None
    refused = client.post(
        "/ae/api/ask/heads", json={"trace": {"sentence": "x"}, "question": {"what": "heads", "method": "guess"}}
    )
    assert refused.status_code == 400 and "'guess'" in refused.json()["error"]


def test_the_top_overlap_counts_shared_heads_among_the_three_highest_and_skips_heads_off_already():
    exact = np.array([6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    assert top_overlap(exact, exact) == 3
    assert top_overlap(exact, -exact) == 0  # the estimate's top 3 are the exact bottom 3
    assert top_overlap(exact, np.array([6.0, 1.0, 4.0, 3.0, 2.0, 5.0])) == 2  # it names heads 0, 2 and 5
    off = np.array([np.nan, 4.0, 3.0, 2.0, 1.0])  # head 0 switched off already: the top 3 are among the rest
    assert top_overlap(off, np.array([9.0, 4.0, 3.0, 2.0, 1.0])) == 3
    assert top_overlap(exact[:2], exact[:2]) == 2  # fewer heads than 3
