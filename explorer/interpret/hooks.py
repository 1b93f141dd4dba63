"""Attention capture by forward hooks: a context manager that yields typed attention maps.

    with AttentionRecorder(model) as recorder:
        model(src, tgt_in, need_weights=True)
    maps = recorder.maps()

or, for id lists, `maps, logits = record(model, sources, decoder_inputs)`.
    maps.weights["cross"][layer]   # (B, H, T, S) post-softmax
    maps.scores["cross"][layer]    # (B, H, T, S) pre-mask, pre-softmax

The hooks only read: the calls inside the block ask for the weights themselves (`need_weights=True`), so a
recorder changes nothing on the model, and a thread that does not record keeps the fused fast path while
another records. Hooks are removed in `finally`. A recorder only records calls made from the thread that
opened it, so concurrent users of one shared model never see each other's maps.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..model.config import ATTENTION_KINDS
from ..model.transformer import Ablation, AttentionOutput, Transformer, evaluating, pad_batch


@dataclass
class AttentionMaps:
    """Per kind, per layer: weights and scores (B, H, queries, keys)."""

    weights: dict[str, list[torch.Tensor]] = field(default_factory=dict)
    scores: dict[str, list[torch.Tensor]] = field(default_factory=dict)

    def kinds(self) -> list[str]:
        return [k for k in ATTENTION_KINDS if self.weights.get(k)]

    def stacked(self, kind: str, batch_index: int = 0) -> torch.Tensor:
        """All layers of one kind for one sentence: (L, H, queries, keys)."""
        return torch.stack([w[batch_index] for w in self.weights[kind]])


class AttentionRecorder:
    """Context manager that hooks every attention module of a Transformer and records its maps."""

    def __init__(self, model: Transformer, kinds: tuple[str, ...] = ATTENTION_KINDS):
        unknown = set(kinds) - set(ATTENTION_KINDS)
        if unknown:
            raise ValueError(f"unknown attention kinds {sorted(unknown)}; expected {ATTENTION_KINDS}")
        self.model = model
        self.kinds = kinds
        self._calls: dict[tuple[str, int], list[tuple[torch.Tensor, torch.Tensor]]] = defaultdict(
            list
        )  # (weights, scores)
        self._handles: list = []
        self._thread: int | None = None

    def __enter__(self) -> AttentionRecorder:
        self._thread = threading.get_ident()
        try:
            for kind, layer, module in self.model.attention_modules():
                if kind in self.kinds:
                    self._handles.append(module.register_forward_hook(self._hook(kind, layer)))
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._remove()

    def _remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def _hook(self, kind: str, layer: int):
        def hook(module, args, output: AttentionOutput) -> None:
            if threading.get_ident() != self._thread:
                return
            if output.weights is None:
                raise RuntimeError(f"{kind} layer {layer} ran without need_weights=True inside an AttentionRecorder")
            weights, scores = output.weights.detach().float().cpu(), output.scores.detach().float().cpu()
            self._calls[(kind, layer)].append((weights, scores))

        return hook

    def maps(self) -> AttentionMaps:
        """What was recorded; several calls to one module (incremental steps) are stacked along queries.

        Keys of earlier steps are padded on the right: weight 0, score NaN (never computed).
        """
        result = AttentionMaps()
        for kind in self.kinds:
            layers = sorted(layer for k, layer in self._calls if k == kind)
            for layer in layers:
                calls = self._calls[(kind, layer)]
                width = max(weights.size(-1) for weights, _ in calls)

                result.weights.setdefault(kind, []).append(_cat([weights for weights, _ in calls], width, 0.0))
                result.scores.setdefault(kind, []).append(_cat([scores for _, scores in calls], width, float("nan")))
        return result


def _cat(tensors: list[torch.Tensor], width: int, value: float) -> torch.Tensor:
    """Calls' maps stacked along queries, keys padded on the right to `width` with `value`."""
    return torch.cat([F.pad(t, (0, width - t.size(-1)), value=value) for t in tensors], dim=2)


@torch.no_grad()
def record(
    model: Transformer,
    sources: list[list[int]],
    decoder_inputs: list[list[int]],
    kinds: tuple[str, ...] = ATTENTION_KINDS,
    ablation: Ablation | None = None,
) -> tuple[AttentionMaps, torch.Tensor]:
    """One teacher-forced pass in eval mode over right-padded batches, recording `kinds`: (maps, logits (B, T, V)).

    The maps keep the padding (slice each sentence's own rows and columns); logits are float32 on the CPU.
    """
    device = next(model.parameters()).device
    with evaluating(model), AttentionRecorder(model, kinds) as recorder:
        logits = model(pad_batch(sources, device), pad_batch(decoder_inputs, device), ablation, need_weights=True)
    return recorder.maps(), logits.float().cpu()
