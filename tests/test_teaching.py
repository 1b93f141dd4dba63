"""The computations behind the teaching views: attention rollout, gradient attributions, head importance."""

import numpy as np
import pytest
import torch
from conftest import tiny_config
from test_shipped_model import SHIPPED

from explorer.app.schemas import trace_request
from explorer.interpret.attribution import attribute, rank_correlation
from explorer.interpret.decoding import beam_search
from explorer.interpret.explain import explain_cell
from explorer.interpret.handle import load_handle
from explorer.interpret.head_importance import head_importance
from explorer.interpret.rollout import cross_rollout, encoder_rollout, with_residual
from explorer.interpret.trace import build_trace
from explorer.model.config import BOS_ID, EOS_ID
from explorer.model.transformer import Ablation, Transformer

SENTENCE = "The man gives the woman the book."
shipped_only = pytest.mark.skipif(not (SHIPPED / "model.safetensors").is_file(), reason="no shipped checkpoint")


@pytest.fixture(scope="module")
def shipped():
    return load_handle(SHIPPED)


@pytest.fixture(scope="module")
def trace(shipped):
    return build_trace(shipped, trace_request(SENTENCE))


# ----- rollout -----------------------------------------------------------------------------------
def random_attention(shape, seed=0):
    weights = np.random.default_rng(seed).random(shape)
    return weights / weights.sum(-1, keepdims=True)


def test_rollout_of_one_layer_is_half_attention_half_identity():
    encoder_self = random_attention((1, 4, 5, 5))
    expected = 0.5 * encoder_self[0].mean(0) + 0.5 * np.eye(5)
    np.testing.assert_allclose(encoder_rollout(encoder_self)[0], expected / expected.sum(-1, keepdims=True))


def test_rollout_rows_are_distributions_and_compose_layer_by_layer():
    encoder_self, cross = random_attention((3, 4, 6, 6), 1), random_attention((2, 4, 5, 6), 2)
    rolled = encoder_rollout(encoder_self)
    np.testing.assert_allclose(rolled.sum(-1), 1.0)
    np.testing.assert_allclose(rolled[2], with_residual(encoder_self[2].mean(0)) @ rolled[1])
    composed = cross_rollout(cross, encoder_self)
    assert composed.shape == (2, 5, 6) and (composed >= 0).all()
    np.testing.assert_allclose(composed.sum(-1), 1.0)
    # an encoder that only keeps each token where it is passes cross-attention through unchanged
    np.testing.assert_allclose(cross_rollout(cross, np.broadcast_to(np.eye(6), (3, 4, 6, 6))), cross.mean(1))


@shipped_only
def test_rollout_of_the_shipped_model(trace):
    rolled = cross_rollout(trace.cross, trace.encoder_self)
    assert rolled.shape == trace.cross.shape[:1] + trace.cross.shape[2:]
    np.testing.assert_allclose(rolled.sum(-1), 1.0, atol=1e-6)


# ----- attributions ----------------------------------------------------------------------------
def test_rank_correlation():
    assert rank_correlation([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert rank_correlation([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(
        np.corrcoef([0, 1.5, 1.5, 3], [0, 1, 2, 3])[0, 1]
    )
    assert np.isnan(rank_correlation([1, 1, 1], [1, 2, 3]))


def test_gradient_x_input_is_the_derivative_along_the_input():
    """Summed over tokens, ∇f(e)·e is d/dα f(αe) at α = 1: checked by a central difference."""
    torch.manual_seed(0)
    model = Transformer(tiny_config()).eval().double()
    source, target = [11, 12, 13, 3], [20, 21, 22]
    result = attribute(model, source, target, 2, "gradient_x_input")
    src = torch.tensor([source])
    embedded = model.embed(src).detach()

    def f(alpha):
        memory, mask = model.encode(src, src_embeddings=alpha * embedded)
        from explorer.model.transformer import DecoderState

        logits, _ = model.decode(torch.tensor([[BOS_ID, 20, 21]]), DecoderState(memory, mask))
        return torch.log_softmax(logits[0, -1], -1)[22].item()

    h = 1e-5
    assert result.scores.sum() == pytest.approx((f(1 + h) - f(1 - h)) / (2 * h), rel=1e-5)
    assert result.log_prob == pytest.approx(f(1.0), abs=1e-6)  # returned in float32


@shipped_only
@pytest.mark.slow
def test_integrated_gradients_are_complete_on_a_real_sentence(shipped, trace):
    """The attributions add up to log p(token | sentence) − log p(token | zero embeddings), within 5 % over the
    sentence; each result states the steps it took and the gap that remained."""
    results = [attribute(shipped.model, trace.source_ids, trace.target_ids, t) for t in range(len(trace.target_ids))]
    gaps = [abs(r.scores.sum() - (r.log_prob - r.baseline_log_prob)) for r in results]
    changes = [abs(r.log_prob - r.baseline_log_prob) for r in results]
    assert sum(gaps) <= 0.05 * sum(changes), [(r.steps, round(r.completeness_gap, 3)) for r in results]
    assert all(32 <= r.steps <= 512 and np.isfinite(r.completeness_gap) for r in results)
    assert all(r.log_prob == pytest.approx(np.log(s.prob), abs=1e-4) for r, s in zip(results, trace.steps))


# ----- head importance -------------------------------------------------------------------------
def test_per_row_ablation_equals_one_ablation_at_a_time():
    torch.manual_seed(0)
    model = Transformer(tiny_config()).eval()
    src, tgt = torch.tensor([[11, 12, 13, 3]]), torch.tensor([[BOS_ID, 20, 21]])
    rows = [(), (("cross", 1, 2),), (("encoder_self", 0, 0), ("decoder_self", 1, 3))]
    together = model(src.expand(3, -1), tgt.expand(3, -1), Ablation.per_row(model.config, rows))
    for b, heads in enumerate(rows):
        alone = model(src, tgt, Ablation(model.config, heads) if heads else None)
        torch.testing.assert_close(together[b], alone[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("per_pass", [64, 5])
def test_every_heads_drop_equals_its_own_forward_pass_with_heads_already_off(monkeypatch, per_pass):
    """The encoder runs once per encoder head and once for all other rows (whose encoder output is shared), and a
    decoder head's row joins the pass at its head's layer; in passes of `per_pass` rows, with the trace's own ablation
    (an encoder and a cross head) kept off in every row."""
    from explorer.interpret import head_importance as module

    monkeypatch.setattr(module, "HEADS_PER_PASS", per_pass)
    torch.manual_seed(0)
    model = Transformer(tiny_config()).eval()
    source, target = [11, 12, 13, 14, 3], [20, 21, 22, EOS_ID]
    off = (("encoder_self", 1, 0), ("cross", 0, 2))
    importance = head_importance(model, source, target, off=off)
    src, tgt = torch.tensor([source]), torch.tensor([[BOS_ID] + target[:-1]])

    def log_prob(heads):
        with torch.no_grad():
            logits = model(src, tgt, Ablation(model.config, heads))
        return torch.log_softmax(logits[0], -1)[torch.arange(len(target)), target].sum().item()

    assert importance.log_prob == pytest.approx(log_prob(off), abs=1e-5)
    for kind, drops in importance.drops.items():
        for layer, head in np.ndindex(drops.shape):
            if (kind, layer, head) in off:
                assert np.isnan(drops[layer, head])
            else:
                alone = log_prob(off + ((kind, layer, head),))
                assert drops[layer, head] == pytest.approx(importance.log_prob - alone, abs=1e-5), (kind, layer, head)


@shipped_only
def test_head_importance_is_the_log_probability_lost_without_each_head(shipped, trace):
    importance = head_importance(shipped.model, trace.source_ids, trace.target_ids)
    config = shipped.config
    assert {k: d.shape for k, d in importance.drops.items()} == {
        kind: (config.n_layers(kind), config.n_heads) for kind in ("encoder_self", "decoder_self", "cross")
    }
    assert importance.log_prob == pytest.approx(sum(np.log(s.prob) for s in trace.steps), abs=1e-3)
    model, ids = shipped.model, trace.target_ids
    src, tgt = torch.tensor([trace.source_ids]), torch.tensor([[BOS_ID] + ids[:-1]])
    for kind, layer, head, drop in importance.ranking()[:2] + importance.ranking()[-1:]:
        with torch.no_grad():
            logits = model(src, tgt, Ablation(config, [(kind, layer, head)]))
        alone = torch.log_softmax(logits[0], -1)[torch.arange(len(ids)), ids].sum().item()
        assert importance.log_prob - alone == pytest.approx(drop, abs=1e-4)


# ----- explain one cell --------------------------------------------------------------------------
@shipped_only
@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_the_explained_arithmetic_ends_at_the_captured_weight(shipped, trace, kind):
    weights = trace.attention(kind)  # (L, H, rows, columns)
    L, H, rows, columns = weights.shape
    for layer, head, row in [(0, 0, 0), (L - 1, H - 1, rows - 1), (L // 2, 1, rows // 2)]:
        column = min(row, columns - 1) if kind == "decoder_self" else (row + head) % columns
        cell = explain_cell(shipped.model, trace.source_ids, trace.target_ids, kind, layer, head, row, column)
        assert cell.weight == pytest.approx(weights[layer, head, row, column], abs=1e-5)
        np.testing.assert_allclose(cell.weights, weights[layer, head, row], atol=1e-5)
        assert cell.dot / cell.scale == pytest.approx(cell.scores[column]) and cell.scale == pytest.approx(8.0)
        assert cell.dot == pytest.approx(float(cell.query @ cell.key), rel=1e-9)
        allowed = cell.scores[cell.allowed]
        assert cell.max_score == allowed.max() and cell.denominator == pytest.approx(
            np.exp(allowed - allowed.max()).sum()
        )
        if kind == "decoder_self":  # the look-ahead mask: the future of the row is removed
            assert cell.allowed.tolist() == [j <= row for j in range(columns)]
    with pytest.raises(ValueError, match="outside"):
        explain_cell(shipped.model, trace.source_ids, trace.target_ids, kind, 0, 0, rows, 0)


# ----- the beam search tree ----------------------------------------------------------------------
def path_ids(tree, node_id):
    ids = []
    while tree[node_id].parent != -1:
        ids.append(tree[node_id].token)
        node_id = tree[node_id].parent
    return ids[::-1]


@shipped_only
def test_the_beam_trees_best_finished_leaf_is_the_beam_search_result(shipped, trace):
    tree = []
    beams = beam_search(shipped.model, trace.source_ids, 4, 0.6, tree=tree)
    assert [b.ids for b in beams] == [b.ids for b in beam_search(shipped.model, trace.source_ids, 4, 0.6)]
    finished = [n for n in tree if n.status == "finished"]
    best = max(finished, key=lambda n: n.score)
    assert best.id == beams[0].node and path_ids(tree, best.id) == beams[0].ids + [EOS_ID]
    for beam in beams:  # every returned beam is a leaf whose path spells it
        assert path_ids(tree, beam.node)[: len(beam.ids)] == beam.ids and tree[beam.node].log_prob == beam.log_prob
    assert tree[0].parent == -1 and {n.status for n in tree} <= {"kept", "pruned", "finished", "cut"}
    for n in tree[1:]:  # a path's log-probability only falls, one step deeper each time
        parent = tree[n.parent]
        assert n.log_prob <= parent.log_prob + 1e-6 and n.step == parent.step + 1 and parent.status in ("kept",)
    assert any(n.status == "pruned" for n in tree)


@shipped_only
def test_an_explanation_is_not_disturbed_by_other_sentences_on_the_shared_model(shipped, trace):
    """The app's model serves everyone at once: the explaining hook records its own thread's pass only."""
    import threading

    stop = threading.Event()
    other_src, other_tgt = torch.tensor([[45, 46, 47, 48, EOS_ID]]), torch.tensor([[BOS_ID, 60, 61]])

    def busy():
        with torch.no_grad():
            while not stop.is_set():
                shipped.model(other_src, other_tgt)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        for row in range(min(6, len(trace.target_ids))):
            cell = explain_cell(shipped.model, trace.source_ids, trace.target_ids, "cross", 0, 1, row, 0)
            np.testing.assert_allclose(cell.weights, trace.cross[0, 1, row], atol=1e-5)
    finally:
        stop.set()
        worker.join()
