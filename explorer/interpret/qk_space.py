"""Queries and keys of one head in one space (AttentionViz's joint embedding, for one sentence and one head).

Every query q_i and every key k_j of head h at one site, as the model computed them in one teacher-forced pass over
the trace's tokens (a forward hook on that attention module, recording only its own thread's call), are stacked and
projected together onto their first two principal components (PCA: centred, then the top right-singular vectors).
A query lands near the keys it scores highly only in part (q·k is not a distance), so the view draws the weights
too: the chosen query's lines to its strongest keys.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import torch

from ..model.transformer import Ablation, Transformer
from .explain import attention_site, hooked_pass


@dataclass
class QKSpace:
    queries: np.ndarray  # (T, Dh) every query of the head, the model's own
    keys: np.ndarray  # (K, Dh) every key
    weights: np.ndarray  # (T, K) the head's attention (masked cells 0)
    mean: np.ndarray  # (Dh,) the centre of queries and keys together
    components: np.ndarray  # (2, Dh) the two principal directions
    query_points: np.ndarray  # (T, 2) the queries projected
    key_points: np.ndarray  # (K, 2) the keys projected
    explained: np.ndarray  # (2,) the share of the variance each direction holds


@torch.no_grad()
def qk_space(
    model: Transformer,
    source_ids: list[int],
    target_ids: list[int],
    kind: str,
    layer: int,
    head: int,
    ablation: Ablation | None = None,
) -> QKSpace:
    """Head `head` of `kind` layer `layer`: its queries and keys, and both projected onto one plane."""
    module = attention_site(model, kind, layer, head)
    seen: dict[str, torch.Tensor] = {}
    thread = threading.get_ident()

    def hook(attn, args, kwargs, output):
        if threading.get_ident() == thread:
            query = args[0] if args else kwargs["query"]
            seen["q"] = attn._split(attn.q_proj(query))[0, head]  # (T, Dh)
            seen["k"] = output.key_value[0][0, head]  # (K, Dh)
            seen["w"] = output.weights[0, head]  # (T, K)

    hooked_pass(model, source_ids, target_ids, ablation, [module.register_forward_hook(hook, with_kwargs=True)])
    q, k = seen["q"].double().cpu().numpy(), seen["k"].double().cpu().numpy()
    both = np.concatenate([q, k])  # (T + K, Dh)
    mean = both.mean(0)
    _, singular, vt = np.linalg.svd(both - mean, full_matrices=False)
    components = vt[:2]  # (2, Dh)
    variance = singular**2
    return QKSpace(
        queries=q,
        keys=k,
        weights=seen["w"].double().cpu().numpy(),
        mean=mean,
        components=components,
        query_points=(q - mean) @ components.T,
        key_points=(k - mean) @ components.T,
        explained=variance[:2] / variance.sum(),
    )
