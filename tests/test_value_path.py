"""The value side of a head (explorer/interpret/value_path.py) against the model's own modules: the drawn weighted
sum is the head's slice of what the attention module handed its output projection, and every step of the path
is the arithmetic it claims, on a tiny model (pre-LN and post-LN)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from conftest import tiny_config

from explorer.interpret.value_path import value_path
from explorer.model.transformer import Transformer

SOURCE, TARGET = [5, 6, 7, 8, 9, 3], [10, 11, 12, 13, 3]


@pytest.mark.parametrize("norm_first", [True, False], ids=["pre-LN", "post-LN"])
def test_the_weighted_sum_is_the_modules_own_head_output_and_each_step_is_its_arithmetic(norm_first):
    torch.manual_seed(0)
    model = Transformer(tiny_config(norm_first=norm_first)).eval()
    d_head = model.config.d_head
    sites = {(k, i): m for k, i, m in model.attention_modules()}
    for kind, layer, head in itertools.product(("encoder_self", "decoder_self", "cross"), (0, 1), (0, 3)):
        for row in (0, 2):
            p = value_path(model, SOURCE, TARGET, kind, layer, head, row)
            module = sites[(kind, layer)]
            # the drawn weighted sum is the module's own output for that head
            np.testing.assert_allclose(p.z, p.concat[head * d_head : (head + 1) * d_head], atol=1e-5)
            np.testing.assert_allclose(p.weights.sum(), 1.0, atol=1e-5)
            assert len(p.weights) == (row + 1 if kind == "decoder_self" else len(SOURCE))  # the mask: keys 0..row
            w_o, b_o = module.out_proj.weight.detach().double().numpy(), module.out_proj.bias.detach().double().numpy()
            np.testing.assert_allclose(p.out, w_o @ p.concat + b_o, atol=1e-5)
            w_q, b_q = module.q_proj.weight.detach().double().numpy(), module.q_proj.bias.detach().double().numpy()
            rows = slice(head * d_head, (head + 1) * d_head)
            np.testing.assert_allclose(p.query, w_q[rows] @ p.normed + b_q[rows], atol=1e-5)
            scores = p.keys @ p.query / np.sqrt(d_head)
            np.testing.assert_allclose(
                p.weights, np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum(), atol=1e-5
            )
            if norm_first:
                mean, std = p.x.mean(), p.x.std()
                np.testing.assert_allclose((p.normed - (p.x - mean) / np.sqrt(std**2 + 1e-5) * 1.0), 0, atol=1e-4)
                np.testing.assert_allclose(p.residual, p.x + p.out, atol=1e-5)
            else:
                np.testing.assert_allclose(p.normed, p.x, atol=1e-6)
            if layer == 0 and kind != "cross":
                np.testing.assert_allclose(p.x, p.embedding + p.position, atol=1e-5)  # dropout is off in eval
            else:
                assert p.embedding is None and p.position is None


def test_a_query_or_head_that_does_not_exist_is_named():
    model = Transformer(tiny_config()).eval()
    with pytest.raises(ValueError, match="row 9 is outside the 5 queries"):
        value_path(model, SOURCE, TARGET, "cross", 0, 0, 9)
    with pytest.raises(ValueError, match="head 4 out of range"):
        value_path(model, SOURCE, TARGET, "cross", 0, 4, 0)
