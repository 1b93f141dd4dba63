"""Why positional encoding: the sentence on screen with the positional encoding left out, in its order and reversed.

Attention itself ignores order: without PE(pos), an encoder sees a set of pieces. Permute the pieces, and every
encoder self-attention map is the same map with its rows and columns permuted the same way (permutation
equivariance): B[i, j] = A[π(i), π(j)] where position i of the permuted sentence holds piece π(i) of the original.
With the encoding the maps change with the order. This module measures both on the model's own weights, and what
the model translates without its positions.

The permutation reverses the sentence's pieces and keeps `</s>` last: one a class reads at a glance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import EOS_ID
from ..model.transformer import Transformer, evaluating, pad_batch
from .decoding import greedy_decode
from .hooks import AttentionRecorder


@dataclass
class NoPosition:
    order: list[int]  # π: position i of the reversed sentence holds piece order[i] of the original
    original: np.ndarray  # (Le, H, S, S) encoder self-attention without PE, the sentence as typed
    reversed: np.ndarray  # (Le, H, S, S) the same, the pieces reversed
    gap_without: float  # max |reversed[i, j] − original[π(i), π(j)]| without PE: 0 up to float rounding
    gap_with: float  # the same with PE, as the model runs: the maps change with the order
    translations: dict[str, list[int]]  # output ids: "with" (the model as it runs), "without", "reversed_without"


def reversal(source_ids: list[int]) -> list[int]:
    """The permutation that reverses a source's pieces and keeps its `</s>` last."""
    n = len(source_ids) - (1 if source_ids and source_ids[-1] == EOS_ID else 0)
    return list(range(n - 1, -1, -1)) + list(range(n, len(source_ids)))


@torch.no_grad()
def _encoder_maps(model: Transformer, ids: list[int], positions: bool) -> np.ndarray:
    device = next(model.parameters()).device
    with evaluating(model), AttentionRecorder(model, ("encoder_self",)) as recorder:
        model.encode(pad_batch([ids], device), need_weights=True, positions=positions)
    return recorder.maps().stacked("encoder_self").double().numpy()  # (Le, H, S, S)


def without_position(model: Transformer, source_ids: list[int]) -> NoPosition:
    """The experiment on one tokenized sentence."""
    order = reversal(source_ids)
    permuted = [source_ids[i] for i in order]
    back = np.ix_(order, order)  # original[π(i), π(j)] at (i, j)

    def gap(positions: bool) -> tuple[np.ndarray, np.ndarray, float]:
        a, b = _encoder_maps(model, source_ids, positions), _encoder_maps(model, permuted, positions)
        return a, b, float(np.abs(b - a[:, :, back[0], back[1]]).max())

    original, reversed_, gap_without = gap(False)
    _, _, gap_with = gap(True)
    outputs = {
        "with": greedy_decode(model, [source_ids])[0],
        "without": greedy_decode(model, [source_ids], positions=False)[0],
        "reversed_without": greedy_decode(model, [permuted], positions=False)[0],
    }
    return NoPosition(order, original, reversed_, gap_without, gap_with, outputs)
