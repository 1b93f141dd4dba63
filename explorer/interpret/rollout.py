"""Attention rollout (Abnar & Zuidema, 2020): how much each source token reaches a position through all layers.

A layer's attention mixes positions, and its residual connection keeps each position's own value, so the
layer is modelled as 0.5·A + 0.5·I with A the head-averaged weights, rows renormalized. Multiplying these
layer by layer gives the encoder rollout R (S, S): row i says how much of each source token ended up in
encoder output i. A decoder query reads the encoder outputs through cross-attention, so cross_l[t] @ R
gives, per decoder layer l and step t, the source tokens that step drew on through every encoder layer.
The rollout assumes heads mix linearly and ignores the feed-forward layers and values: a model of how
attention composes, not a measurement of what the model computed.

    encoder_self  (Le, H, S, S)  ->  encoder_rollout  (Le, S, S)   after layer 0, 1, ...
    cross         (Ld, H, T, S)  ->  cross_rollout    (Ld, T, S)   each decoder layer, through all encoder layers
"""

from __future__ import annotations

import numpy as np


def with_residual(weights: np.ndarray) -> np.ndarray:
    """0.5·A + 0.5·I of one layer's head-averaged weights (..., S, S), rows renormalized."""
    mixed = 0.5 * weights + 0.5 * np.eye(weights.shape[-1], dtype=weights.dtype)
    return mixed / mixed.sum(-1, keepdims=True)


def encoder_rollout(encoder_self: np.ndarray) -> np.ndarray:
    """(Le, H, S, S) -> (Le, S, S): the rollout after each encoder layer; the last one is what the decoder reads."""
    layers = with_residual(encoder_self.astype(np.float64).mean(1))  # (Le, S, S)
    out, rolled = np.empty_like(layers), np.eye(layers.shape[-1])
    for i, layer in enumerate(layers):
        rolled = layer @ rolled  # (S, S): later layers mix what the earlier ones already mixed
        out[i] = rolled
    return out


def cross_rollout(cross: np.ndarray, encoder_self: np.ndarray) -> np.ndarray:
    """(Ld, H, T, S), (Le, H, S, S) -> (Ld, T, S): head-averaged cross-attention composed with the encoder rollout."""
    return cross.astype(np.float64).mean(1) @ encoder_rollout(encoder_self)[-1]
