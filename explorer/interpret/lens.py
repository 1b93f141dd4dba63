"""The logit lens of an encoder-decoder: what each decoder layer would predict if decoding stopped there.

Each decoder layer's output at a position (the residual stream after the layer) goes through the decoder's final
LayerNorm and the tied output projection, as the last layer's does, and a softmax:

    lens[l, t] = softmax(embed.weight · LN_final(h_l[t]))        l = 0 .. Ld−1

The last layer's lens is the model's own next-token distribution. A class sees at which layer the model "decides":
the layer from which the finally chosen token leads. `LayerOutputs` records the layers' outputs by forward hooks
(only its own thread's calls, like `AttentionRecorder`). `lens_of` is one decode's lens, from one teacher-forced
pass over its chosen tokens, reduced to what is shown: the top tokens of each layer at each step and the probability
of the token chosen there. It is asked for when its view opens (`/ae/api/ask/lens`), not computed with every trace,
where its vocabulary projections cost a class's batched decode a quarter more (bench/batch_trace.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import BOS_ID
from ..model.transformer import Ablation, Transformer, evaluating
from .hooks import pad_batch

LENS_TOP = 5  # tokens kept per layer and step


class LayerOutputs:
    """Context manager: every decoder layer's output (B, T, D) of the calls made inside it, from this thread."""

    def __init__(self, model: Transformer):
        self.model = model
        self.outputs: dict[int, torch.Tensor] = {}
        self._handles: list = []

    def __enter__(self) -> LayerOutputs:
        thread = threading.get_ident()

        def hook_for(index: int):
            def hook(layer, args, output):
                if threading.get_ident() == thread:
                    self.outputs[index] = output[0].detach()  # DecoderLayer returns (y, cache)

            return hook

        try:
            for i, layer in enumerate(self.model.decoder.layers):
                self._handles.append(layer.register_forward_hook(hook_for(i)))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()


@dataclass
class Lens:
    """Per decoder layer and step: the top tokens' ids and probabilities, and the chosen token's probability."""

    top_ids: np.ndarray  # (Ld, T, LENS_TOP) int
    top_probs: np.ndarray  # (Ld, T, LENS_TOP)
    chosen: np.ndarray  # (Ld, T)


@torch.no_grad()
def lens_of(
    model: Transformer,
    source_ids: list[int],
    target_ids: list[int],
    ablation: Ablation | None = None,
    k: int = LENS_TOP,
) -> Lens:
    """The lens of one decode (its source and chosen tokens, with its switched-off heads): one teacher-forced pass,
    as the trace's maps were recorded. The last layer's lens is the model's own logits, not projected twice."""
    device = next(model.parameters()).device
    with evaluating(model), LayerOutputs(model) as layers:
        logits = model(pad_batch([source_ids], device), pad_batch([[BOS_ID] + target_ids[:-1]], device), ablation)
    earlier = [model.logits(layers.outputs[i][0]) for i in range(len(layers.outputs) - 1)]
    index = torch.tensor(target_ids, device=device)[:, None]  # (T, 1)
    top_ids, top_probs, chosen = [], [], []
    for layer in [*earlier, logits[0]]:  # (T, V) each, as `decode` computes them
        probs = torch.softmax(layer.float(), dim=-1)
        p, i = probs.topk(min(k, probs.size(-1)), dim=-1)  # (T, k)
        top_ids.append(i.cpu().numpy())
        top_probs.append(p.cpu().numpy())
        chosen.append(probs.gather(1, index)[:, 0].cpu().numpy())
    return Lens(np.stack(top_ids), np.stack(top_probs), np.stack(chosen))
