"""Queries and keys in one space (explorer/interpret/qk_space.py): the plane is the PCA of the model's own q and k
for that head, recomputed here from the module's weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_config

from explorer.interpret.qk_space import qk_space
from explorer.interpret.value_path import value_path
from explorer.model.transformer import Transformer

SOURCE, TARGET = [5, 6, 7, 8, 9, 3], [10, 11, 12, 13, 3]


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_the_projection_is_the_pca_of_the_heads_own_queries_and_keys(kind):
    torch.manual_seed(0)
    model = Transformer(tiny_config()).eval()
    space = qk_space(model, SOURCE, TARGET, kind, 1, 2)
    d_head = model.config.d_head
    # the model's own q and k: those the value path computes as W_q·LN(x) (tests/test_value_path.py checks that)
    for row in range(space.queries.shape[0]):
        path = value_path(model, SOURCE, TARGET, kind, 1, 2, row)
        np.testing.assert_allclose(space.queries[row], path.query, atol=1e-5)
        np.testing.assert_allclose(space.keys[: len(path.keys)], path.keys, atol=1e-5)
    assert space.queries.shape == (len(TARGET) if kind != "encoder_self" else len(SOURCE), d_head)
    assert space.keys.shape[0] == (len(TARGET) if kind == "decoder_self" else len(SOURCE))
    # the weights are the softmax of q·k/√d over the allowed keys: the model's own q and k
    scores = space.queries @ space.keys.T / np.sqrt(d_head)
    if kind == "decoder_self":
        scores = np.where(np.tril(np.ones_like(scores)) > 0, scores, -np.inf)
    expected = np.exp(scores - scores.max(1, keepdims=True))
    np.testing.assert_allclose(space.weights, expected / expected.sum(1, keepdims=True), atol=1e-5)
    # the plane: centred, projected on the top two right-singular vectors of queries and keys together
    both = np.concatenate([space.queries, space.keys])
    centred = both - both.mean(0)
    np.testing.assert_allclose(space.mean, both.mean(0), atol=1e-12)
    np.testing.assert_allclose(space.components @ space.components.T, np.eye(2), atol=1e-9)
    np.testing.assert_allclose(np.concatenate([space.query_points, space.key_points]), centred @ space.components.T)
    variance = np.linalg.svd(centred, compute_uv=False) ** 2
    np.testing.assert_allclose(space.explained, variance[:2] / variance.sum(), atol=1e-12)
