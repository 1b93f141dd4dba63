"""Which heads matter for one sentence: the log-probability of the model's own translation with each head off alone.

Every head of every site (encoder_self, decoder_self, cross) is switched off in its own row of one batch,
next to a row with nothing switched off, and a single teacher-forced pass scores the translation the full
model produced (its tokens forced) in every row. A head's importance is how much the log-probability drops
without it: large for heads the translation relies on, near zero (or negative) for heads it can do without.
This measures one head at a time; heads that stand in for each other look unimportant alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import ATTENTION_KINDS, BOS_ID
from ..model.transformer import Ablation, DecoderState, Transformer, evaluating, pad_batch

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
    with evaluating(model):
        device = next(model.parameters()).device
        src = pad_batch([source_ids], device)
        tgt_in = pad_batch([[BOS_ID] + list(target_ids[:-1])], device)
        gold = torch.tensor(target_ids, device=device)
        encoded = [
            model.encode(src.expand(len(chunk), -1), Ablation.per_row(config, chunk)) for chunk in chunks(encoder_rows)
        ]
        memory, src_mask = (torch.cat(parts) for parts in zip(*encoded))
        scores = []
        for start, chunk in zip(range(0, len(rows), HEADS_PER_PASS), chunks(rows)):
            own = reads[start : start + len(chunk)].to(device)
            state = DecoderState(memory[own], src_mask[own])
            logits, _ = model.decode(tgt_in.expand(len(chunk), -1), state, Ablation.per_row(config, chunk))
            log_probs = torch.log_softmax(logits.float(), dim=-1)  # (B, T, V)
            scores.append(log_probs[:, torch.arange(len(target_ids)), gold].sum(-1))  # (B,)
        scores = torch.cat(scores).cpu().numpy()
    drops = {kind: np.full((config.n_layers(kind), config.n_heads), np.nan) for kind in ATTENTION_KINDS}
    for (kind, layer, h), score in zip(heads, scores[1:]):
        drops[kind][layer, h] = scores[0] - score
    return HeadImportance(float(scores[0]), drops)


def chunks(rows: list) -> list[list]:
    """`rows` in passes of at most `HEADS_PER_PASS`."""
    return [rows[start : start + HEADS_PER_PASS] for start in range(0, len(rows), HEADS_PER_PASS)]
