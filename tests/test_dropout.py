"""The cheaper CPU dropout: rate, scaling, gradient, independence of elements, and where the model uses it."""

import pytest
import torch
from conftest import tiny_config
from torch import nn

from explorer.model.dropout import LEVELS, Dropout, dropout
from explorer.model.transformer import Transformer


def test_drop_rate_and_scale_match_p():
    torch.manual_seed(0)
    x = torch.ones(2_000_000)
    for p in (0.1, 0.3, 0.5):
        y = dropout(x, p)
        dropped = (y == 0).float().mean().item()
        assert dropped == pytest.approx(p, abs=0.002)  # 2,000,000 samples: std of the rate < 0.0004
        kept = y[y != 0]
        assert torch.all(kept == kept[0]) and kept[0].item() == pytest.approx(1 / (1 - p), rel=1e-4)
        assert y.mean().item() == pytest.approx(1.0, abs=0.003)  # expectation preserved


def test_both_halves_of_each_random_word_are_used_and_independent():
    torch.manual_seed(1)
    y = dropout(torch.ones(1_000_000), 0.5).view(-1, 2) == 0  # neighbours share one 31-bit random integer
    first, second = y[:, 0].float(), y[:, 1].float()
    assert first.mean().item() == pytest.approx(0.5, abs=0.004) and second.mean().item() == pytest.approx(
        0.5, abs=0.004
    )
    both = (y[:, 0] & y[:, 1]).float().mean().item()
    assert both == pytest.approx(0.25, abs=0.004)  # independent: P(both dropped) = p * p


def test_odd_sizes_shapes_dtypes_and_the_identity_cases():
    torch.manual_seed(2)
    x = torch.randn(3, 5, 7, dtype=torch.bfloat16)
    y = dropout(x, 0.2)
    assert y.shape == x.shape and y.dtype == x.dtype
    assert torch.equal(dropout(x, 0.2, training=False), x) and torch.equal(dropout(x, 0.0), x)
    assert torch.count_nonzero(dropout(x, 1.0)) == 0
    assert dropout(torch.ones(1), 1 / LEVELS).shape == (1,)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        dropout(x, 1.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Dropout(-0.1)


def test_gradient_flows_through_kept_elements_only():
    torch.manual_seed(3)
    x = torch.randn(1000, requires_grad=True)
    y = dropout(x, 0.25)
    y.sum().backward()
    kept = y.detach() != 0
    assert torch.allclose(x.grad[kept], torch.full_like(x.grad[kept], 1 / 0.75))
    assert torch.all(x.grad[~kept] == 0)


def test_same_seed_same_mask():
    x = torch.ones(10_000)
    torch.manual_seed(4)
    a = dropout(x, 0.1)
    torch.manual_seed(4)
    assert torch.equal(a, dropout(x, 0.1))


def test_module_follows_train_and_eval():
    layer = Dropout(0.5)
    x = torch.ones(10_000)
    assert torch.count_nonzero(layer(x)) < 10_000
    layer.eval()
    assert torch.equal(layer(x), x)
    assert "p=0.5" in repr(layer)


def test_the_model_uses_it_everywhere_and_training_is_still_random_and_eval_deterministic():
    model = Transformer(tiny_config(dropout=0.3))
    assert not any(isinstance(m, nn.Dropout) for m in model.modules())
    assert sum(isinstance(m, Dropout) for m in model.modules()) > 0
    src, tgt = torch.randint(4, 50, (2, 6)), torch.randint(4, 50, (2, 5))
    model.train()
    torch.manual_seed(5)
    a = model(src, tgt)
    assert not torch.allclose(a, model(src, tgt))  # fresh masks each call
    torch.manual_seed(5)
    assert torch.equal(a, model(src, tgt))  # but seeded
    model.eval()
    assert torch.equal(model(src, tgt), model(src, tgt))


def test_cpu_training_attention_draws_its_mask_here_not_in_sdpa(monkeypatch):
    import explorer.model.transformer

    calls = []
    monkeypatch.setattr(
        explorer.model.transformer, "dropout", lambda x, p, training=True: calls.append(p) or dropout(x, p, training)
    )
    model = Transformer(tiny_config(dropout=0.2)).train()
    model(torch.randint(4, 50, (2, 6)), torch.randint(4, 50, (2, 5)))
    assert calls == [0.2] * 6  # 2 encoder self + 2 decoder self + 2 cross attention sites
