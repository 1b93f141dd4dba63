"""Which heads matter for one sentence: the log-probability of the model's own translation with each head off alone,
measured exactly (`head_importance`) or estimated to first order in one pass (`head_gradients`).

Every head of every site (encoder_self, decoder_self, cross) is switched off in its own row of one batch, next to a
row with nothing switched off, and a single teacher-forced pass scores the translation the full model produced (its
tokens forced) in every row. Rows do not compute twice what they share: the encoder runs for the first row and each
encoder head's, and a decoder head's row joins the pass at that head's layer. A head's importance is how much the
log-probability drops without it: large for heads the translation relies on, near zero (or negative) for heads it
can do without. This measures one head at a time; heads that stand in for each other look unimportant alone.

The estimate (Michel, Levy and Neubig 2019, "Are Sixteen Heads Really Better than One?") puts a gate ξ on each
head's output, 1 for every head, and takes the gradient of the translation's log-probability with respect to each
gate in one forward and one backward pass. Switching a head off moves its gate from 1 to 0, so to first order the
drop is ∂ log p / ∂ξ: the same unit as the exact drop, and where the two disagree the log-probability is not linear
in the gate (a head whose loss others make up for, or one that only matters together with another).

What this module computes is their gate gradient, signed and for one sentence: a head that the translation is better
without has a negative estimate. Michel et al.'s importance score is the absolute value of that gradient averaged
over a whole dataset; the explorer explains one sentence, so it keeps the sign and does not average.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import ATTENTION_KINDS, BOS_ID
from ..model.transformer import Ablation, DecoderState, Transformer, evaluating, pad_batch
from .attribution import rank_correlation

HEADS_PER_PASS = 64  # rows of one forward pass (the shipped model has 36 heads: one pass)


@dataclass
class HeadImportance:
    """Log-probability drops, per kind (layers, heads), of one translation."""

    log_prob: float  # of the translation with every head on
    drops: dict[str, np.ndarray]  # kind -> (L, H): log_prob − log-prob with that head off (NaN: it was off already)

    def ranking(self) -> list[tuple[str, int, int, float]]:
        """Every head as (kind, layer, head, drop), the most important first."""
        rows = [
            (k, int(layer), int(h), float(d[layer, h]))
            for k, d in self.drops.items()
            for layer, h in np.ndindex(d.shape)
            if not np.isnan(d[layer, h])  # a head already switched off
        ]
        return sorted(rows, key=lambda r: -r[3])


@torch.no_grad()
def head_importance(model: Transformer, source_ids: list[int], target_ids: list[int], off=()) -> HeadImportance:
    """Drop in log p(target | source) when each head alone is switched off (teacher forced, batched).

    `off`: heads already switched off (the trace's ablation): every row keeps them off, and their own drop is NaN.
    """
    config = model.config
    off = tuple(tuple(h) for h in off)
    heads = [
        (kind, layer, h)
        for kind in ATTENTION_KINDS
        for layer in range(config.n_layers(kind))
        for h in range(config.n_heads)
        if (kind, layer, h) not in off
    ]
    rows = [off] + [off + (head,) for head in heads]
    # a row that switches off no encoder head reads the encoder's output of the first row: the encoder runs once
    # for it and once per encoder head, not once per row (bench/heads_question.py: 17–20% less time, the same drops)
    encoder_heads = [head for head in heads if head[0] == "encoder_self"]
    encoder_rows = [off] + [off + (head,) for head in encoder_heads]
    encoder_row = {head: 1 + k for k, head in enumerate(encoder_heads)}  # the others read row 0's
    reads = torch.tensor([0] + [encoder_row.get(head, 0) for head in heads])
    # below the layer of its decoder head, a row computes what the first row does: it joins the batch at that layer,
    # from the first row's input to it (bench/heads_question.py --threads 1: 2–6% less time, the same drops). Rows go
    # in the order they join, so each layer's batch is a prefix of the pass
    starts = [0] + [layer if kind != "encoder_self" else 0 for kind, layer, _ in heads]
    order = sorted(range(len(rows)), key=starts.__getitem__)
    with evaluating(model):
        device = next(model.parameters()).device
        src = pad_batch([source_ids], device)
        tgt_in = pad_batch([[BOS_ID] + list(target_ids[:-1])], device)
        gold = torch.tensor(target_ids, device=device)
        encoded = [
            model.encode(src.expand(len(chunk), -1), Ablation.per_row(config, chunk)) for chunk in chunks(encoder_rows)
        ]
        memory, src_mask = (torch.cat(parts) for parts in zip(*encoded))
        first = DecoderState(memory[:1], src_mask[:1])
        inputs = [model.embed_target(tgt_in)]  # the first row's input to each decoder layer
        masks = model.decoder_masks(tgt_in, first)
        for i in range(config.n_decoder_layers - 1):
            inputs.append(model.decoder_layer(i, inputs[i], first, *masks, Ablation(config, off))[0])
        scores = torch.empty(len(rows))
        for chunk in chunks(order):
            y = inputs[0][:0]
            for i in range(config.n_decoder_layers):
                y = torch.cat([y, inputs[i].expand(sum(starts[r] == i for r in chunk), -1, -1)])
                part = chunk[: len(y)]
                own = reads[part].to(device)
                state = DecoderState(memory[own], src_mask[own])
                masks = model.decoder_masks(tgt_in.expand(len(part), -1), state)
                y, _ = model.decoder_layer(i, y, state, *masks, Ablation.per_row(config, [rows[r] for r in part]))
            log_probs = torch.log_softmax(model.logits(y).float(), dim=-1)  # (B, T, V)
            scores[chunk] = log_probs[:, torch.arange(len(target_ids)), gold].sum(-1).cpu()
        scores = scores.numpy()
    drops = {kind: np.full((config.n_layers(kind), config.n_heads), np.nan) for kind in ATTENTION_KINDS}
    for (kind, layer, h), score in zip(heads, scores[1:]):
        drops[kind][layer, h] = scores[0] - score
    return HeadImportance(float(scores[0]), drops)


def chunks(rows: list) -> list[list]:
    """`rows` in passes of at most `HEADS_PER_PASS`."""
    return [rows[start : start + HEADS_PER_PASS] for start in range(0, len(rows), HEADS_PER_PASS)]


class HeadGates:
    """A gate ξ on every head's output, 1 (0 for heads already switched off), each site's (H,) gates a leaf of the
    autograd graph: passed where an `Ablation` goes, the model multiplies each head's output by its gate."""

    def __init__(self, model: Transformer, off=()):
        config = model.config
        Ablation(config, off)  # checks the switched-off heads exist
        weight = next(model.parameters())
        self.sites = {
            (kind, layer): torch.ones(config.n_heads, device=weight.device, dtype=weight.dtype)
            for kind in ATTENTION_KINDS
            for layer in range(config.n_layers(kind))
        }
        for kind, layer, head in off:
            self.sites[(kind, layer)][head] = 0.0
        for gate in self.sites.values():
            gate.requires_grad_(True)

    def head_mask(self, kind: str, layer: int) -> torch.Tensor:
        return self.sites[(kind, layer)]


def head_gradients(model: Transformer, source_ids: list[int], target_ids: list[int], off=()) -> HeadImportance:
    """The first-order estimate of each head's drop: ∂ log p(target | source) / ∂ξ at ξ = 1, all heads in one pass.

    `off`: heads already switched off (gate 0 in the pass; their own estimate is NaN)."""
    config = model.config
    off = tuple(tuple(h) for h in off)
    gates = HeadGates(model, off)
    with evaluating(model), torch.enable_grad():
        device = next(model.parameters()).device
        src = pad_batch([source_ids], device)
        tgt_in = pad_batch([[BOS_ID] + list(target_ids[:-1])], device)
        gold = torch.tensor(target_ids, device=device)
        log_probs = torch.log_softmax(model(src, tgt_in, gates).float(), dim=-1)  # (1, T, V)
        log_prob = log_probs[0, torch.arange(len(target_ids), device=device), gold].sum()
        grads = torch.autograd.grad(log_prob, list(gates.sites.values()))
    drops = {kind: np.full((config.n_layers(kind), config.n_heads), np.nan) for kind in ATTENTION_KINDS}
    for (kind, layer), grad in zip(gates.sites, grads):
        drops[kind][layer] = grad.detach().double().cpu().numpy()
    for kind, layer, head in off:
        drops[kind][layer, head] = np.nan
    return HeadImportance(float(log_prob.detach()), drops)


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ of two head-score arrays over the heads both scored (NaN: switched off already, left out)."""
    keep = ~(np.isnan(a) | np.isnan(b))
    return rank_correlation(a[keep], b[keep]) if keep.sum() >= 2 else float("nan")


def top_overlap(a: np.ndarray, b: np.ndarray, k: int = 3) -> int:
    """How many of `a`'s k highest-scoring heads are also among `b`'s k highest (NaN heads never count)."""
    keep = np.flatnonzero(~(np.isnan(a) | np.isnan(b)))
    k = min(k, len(keep))
    top = [set(keep[np.argsort(-x[keep], kind="stable")[:k]].tolist()) for x in (a, b)]
    return len(top[0] & top[1])
