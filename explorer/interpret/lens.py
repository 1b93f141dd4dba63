"""The logit lens of an encoder-decoder: what each decoder layer would predict if decoding stopped there.

Each decoder layer's output at a position (the residual stream after the layer) goes through the decoder's final
LayerNorm and the tied output projection, as the last layer's does, and a softmax:

    lens[l, t] = softmax(embed.weight · LN_final(h_l[t]))        l = 0 .. Ld−1

The last layer's lens is the model's own next-token distribution. A class sees at which layer the model "decides":
the layer from which the finally chosen token leads. `LayerOutputs` records the layers' outputs by forward hooks
(only its own thread's calls, like `AttentionRecorder`); `lens` reduces them to what the trace keeps: the top
tokens of each layer at each step and the probability of the token chosen there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..model.transformer import Transformer

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
def lens(model: Transformer, hidden: list[torch.Tensor], chosen_ids: list[int], k: int = LENS_TOP) -> Lens:
    """The lens of one sentence: `hidden` is each decoder layer's output (T, D), `chosen_ids` the T tokens chosen."""
    top_ids, top_probs, chosen = [], [], []
    index = torch.tensor(chosen_ids, device=hidden[0].device)[:, None]  # (T, 1)
    for h in hidden:
        logits = F.linear(model.decoder.norm(h), model.embed.weight).float()  # (T, V), as `decode` computes them
        probs = torch.softmax(logits, dim=-1)
        p, i = probs.topk(min(k, probs.size(-1)), dim=-1)  # (T, k)
        top_ids.append(i.cpu().numpy())
        top_probs.append(p.cpu().numpy())
        chosen.append(probs.gather(1, index)[:, 0].cpu().numpy())
    return Lens(np.stack(top_ids), np.stack(top_probs), np.stack(chosen))
