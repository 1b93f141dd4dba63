"""One attention weight, explained: the arithmetic from a query and a key vector to the number in the cell.

For a cell (row i, column j) of head h at one site, the weight is

    score_j' = q_i · k_j' / √d_k        for every column j' of the row
    weight_j = exp(score_j − m) / Σ_{j' allowed} exp(score_j' − m)        m = the row's largest allowed score

where the look-ahead mask (decoder_self: j' ≤ i) or the padding mask removes the columns a query may not
see. q and k are not part of the decode trace; `explain_cell` recomputes them in one teacher-forced pass
over the trace's tokens with a forward hook on that one attention module (it records only its own thread's
call, like `AttentionRecorder`), so every number comes from the model's own projections; the row's scores and
softmax come from the model's own `attention` function (in float64), so the weight it ends at is the one the
trace captured.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import BOS_ID
from ..model.transformer import Ablation, Transformer, attention, evaluating, pad_batch


@dataclass
class CellExplanation:
    """Every intermediate number of one attention weight, as the explain panel shows them."""

    kind: str
    layer: int
    head: int
    row: int
    column: int
    query: np.ndarray  # (d_k,) q_i of this head
    key: np.ndarray  # (d_k,) k_j of this head
    dot: float  # q_i · k_j
    scale: float  # √d_k
    scores: np.ndarray  # (K,) q_i · k_j' / √d_k for every column of the row
    allowed: np.ndarray  # (K,) bool: the mask (False: set to −∞ before the softmax)
    max_score: float  # m, subtracted before exp for numerical stability
    denominator: float  # Σ over allowed j' of exp(score_j' − m)
    weights: np.ndarray  # (K,) the softmax row
    weight: float  # weights[column]: the cell


def attention_site(model: Transformer, kind: str, layer: int, head: int):
    """The attention module of `kind` layer `layer`, once `head` is known to exist; a ValueError names what does not."""
    sites = {(k, i): module for k, i, module in model.attention_modules()}
    if (kind, layer) not in sites:
        raise ValueError(f"{kind} has no layer {layer} (0..{model.config.n_layers(kind) - 1})")
    if not 0 <= head < model.config.n_heads:
        raise ValueError(f"head {head} out of range (0..{model.config.n_heads - 1})")
    return sites[(kind, layer)]


@torch.no_grad()
def hooked_pass(model: Transformer, source_ids, target_ids, ablation: Ablation | None, handles: list) -> None:
    """One teacher-forced pass in eval mode over a trace's tokens, asking for the weights, with the forward hooks
    whose `handles` the caller registered (and this removes, whatever happens)."""
    try:
        device = next(model.parameters()).device
        src, tgt_in = pad_batch([source_ids], device), pad_batch([[BOS_ID] + list(target_ids[:-1])], device)
        with evaluating(model):
            model(src, tgt_in, ablation, need_weights=True)
    finally:
        for handle in handles:
            handle.remove()


@torch.no_grad()
def explain_cell(
    model: Transformer,
    source_ids: list[int],
    target_ids: list[int],
    kind: str,
    layer: int,
    head: int,
    row: int,
    column: int,
    ablation: Ablation | None = None,
) -> CellExplanation:
    """The arithmetic of cell (row, column) of `kind` layer `layer` head `head`, for a trace's tokens.

    Rows are source positions (encoder_self) or steps (decoder_self, cross); columns source positions
    (encoder_self, cross) or decoder inputs (decoder_self).
    """
    module = attention_site(model, kind, layer, head)
    rows = len(source_ids) if kind == "encoder_self" else len(target_ids)
    columns = len(target_ids) if kind == "decoder_self" else len(source_ids)
    if not (0 <= row < rows and 0 <= column < columns):
        raise ValueError(f"cell ({row}, {column}) is outside the {rows} x {columns} map")
    seen = {}
    thread = threading.get_ident()

    def hook(module, args, kwargs, output):
        if threading.get_ident() != thread:  # the shared model may be running someone else's sentence meanwhile
            return
        query = args[0] if args else kwargs["query"]
        seen["q"] = module._split(module.q_proj(query))[0, head]  # (T, d_k)
        seen["k"], seen["v"] = output.key_value[0][0, head], output.key_value[1][0, head]  # (K, d_k) each
        mask = kwargs.get("mask")
        seen["allowed"] = None if mask is None else mask[0, 0].expand(output.weights.shape[-2:]).clone()  # (T, K)

    hooked_pass(model, source_ids, target_ids, ablation, [module.register_forward_hook(hook, with_kwargs=True)])
    q, k, v = seen["q"][row].double(), seen["k"].double(), seen["v"].double()  # (d_k,), (K, d_k), (K, d_k)
    K = k.size(0)
    allowed = torch.ones(K, dtype=torch.bool) if seen["allowed"] is None else seen["allowed"][row]
    allowed = allowed.to(q.device)  # one device for every number of the row (the model's: a GPU's too)
    scale = math.sqrt(q.numel())
    _, weights, scores = attention(q[None], k, v, allowed[None])  # the model's own arithmetic
    weights, scores = weights[0], scores[0]  # (K,) each
    m = scores[allowed].max()
    exp = torch.where(allowed, torch.exp(scores - m), torch.zeros_like(scores))  # the terms the panel shows
    return CellExplanation(
        kind=kind,
        layer=layer,
        head=head,
        row=row,
        column=column,
        query=q.cpu().numpy(),
        key=k[column].cpu().numpy(),
        dot=float(q @ k[column]),
        scale=scale,
        scores=scores.cpu().numpy(),
        allowed=allowed.cpu().numpy(),
        max_score=float(m),
        denominator=float(exp.sum()),
        weights=weights.cpu().numpy(),
        weight=float(weights[column]),
    )
