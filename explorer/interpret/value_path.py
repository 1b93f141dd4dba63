"""The value side of one attention head for one query: what the head carries, not only where it looks.

For query position i (a source position for encoder_self, a decoding step for decoder_self and cross) of head h
at one site, from the residual stream into the sublayer to the residual stream out of it:

    x          the residual stream at position i entering the sublayer (D); at layer 0 of a self-attention,
               x = embedding · √D + PE(i)
    LN(x)      what the attention reads (pre-LN; post-LN reads x itself and normalizes after the residual)
    q, k_j, v_j      this head's slices of W_q·LN(x), and of W_k, W_v over every key position j (Dh each)
    w          softmax(q·k_j / √Dh) over the keys the mask allows
    z = Σ_j w_j v_j  the head's output (Dh)
    concat     every head's z side by side (D): the output projection's input
    out        W_o·concat + b (D)
    x + out    the residual stream after the sublayer (pre-LN; post-LN: LN(x + out))

Every tensor is the model's own: one teacher-forced pass over the trace's tokens with forward hooks on the site's
modules (its LayerNorm, its attention, its output projection), each recording only its own thread's call. z is
recomputed from the module's own weights and values; `concat` is what the module handed its output projection, so
z equals concat's slice of head h (the test holds them to each other).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import BOS_ID
from ..model.transformer import Ablation, Transformer
from .explain import attention_site, hooked_pass


@dataclass
class ValuePath:
    """Every tensor of one head's path for one query (float64 numpy arrays)."""

    kind: str
    layer: int
    head: int
    row: int
    norm_first: bool
    embedding: np.ndarray | None  # (D,) embedding · √D, at layer 0 of a self-attention only
    position: np.ndarray | None  # (D,) PE(row), likewise
    x: np.ndarray  # (D,)
    normed: np.ndarray  # (D,) LN(x) under pre-LN; x itself under post-LN
    query: np.ndarray  # (Dh,)
    keys: np.ndarray  # (K, Dh) the keys the query may see
    values: np.ndarray  # (K, Dh)
    weights: np.ndarray  # (K,)
    z: np.ndarray  # (Dh,) Σ w_j v_j
    concat: np.ndarray  # (D,) the module's own output-projection input
    out: np.ndarray  # (D,) W_o·concat + b
    residual: np.ndarray  # (D,) x + out (post-LN: LN(x + out))


@torch.no_grad()
def value_path(
    model: Transformer,
    source_ids: list[int],
    target_ids: list[int],
    kind: str,
    layer: int,
    head: int,
    row: int,
    ablation: Ablation | None = None,
) -> ValuePath:
    """The path of query `row` through head `head` of `kind` layer `layer`, for a trace's tokens."""
    module = attention_site(model, kind, layer, head)
    rows = len(source_ids) if kind == "encoder_self" else len(target_ids)
    if not 0 <= row < rows:
        raise ValueError(f"row {row} is outside the {rows} queries")
    block = (model.encoder if kind == "encoder_self" else model.decoder).layers[layer]
    sublayer = block.sublayers[1 if kind == "cross" else 0]
    seen: dict[str, torch.Tensor] = {}
    thread = threading.get_ident()

    def mine() -> bool:  # the shared model may be running someone else's sentence meanwhile
        return threading.get_ident() == thread

    def on_norm(norm, args):  # pre-LN: the sublayer's LayerNorm reads x itself
        if mine() and "x" not in seen:
            seen["x"] = args[0][0]

    def on_attention(attn, args, kwargs, output):
        if mine():
            seen["query_input"] = (args[0] if args else kwargs["query"])[0]  # (T, D)
            seen["keys"], seen["values"] = output.key_value[0][0, head], output.key_value[1][0, head]  # (K, Dh)
            seen["weights"] = output.weights[0, head]  # (T, K)
            seen["out"] = output.output[0]  # (T, D)

    def on_merge(projection, args):
        if mine():
            seen["concat"] = args[0][0]  # (T, D)

    handles = [
        module.register_forward_hook(on_attention, with_kwargs=True),
        module.out_proj.register_forward_pre_hook(on_merge),
    ]
    if model.config.norm_first:
        handles.append(sublayer.norm.register_forward_pre_hook(on_norm))
    hooked_pass(model, source_ids, target_ids, ablation, handles)
    decoder_inputs = [BOS_ID] + list(target_ids[:-1])

    def np64(t: torch.Tensor) -> np.ndarray:
        return t.detach().double().cpu().numpy()

    x = seen["x"][row] if model.config.norm_first else seen["query_input"][row]
    d_head = model.config.d_head
    q = module.q_proj(seen["query_input"][row : row + 1])[0, head * d_head : (head + 1) * d_head]  # (Dh,)
    visible = row + 1 if kind == "decoder_self" else seen["keys"].size(0)  # the look-ahead mask: keys 0..row
    keys, values, weights = seen["keys"][:visible], seen["values"][:visible], seen["weights"][row, :visible]
    z = weights.double() @ values.double()  # (Dh,) Σ_j w_j v_j
    out = seen["out"][row]
    residual = x + out if model.config.norm_first else sublayer.norm(x + out)
    embedding = position = None
    if layer == 0 and kind != "cross":
        ids = source_ids if kind == "encoder_self" else decoder_inputs
        embedding = np64(model.embed.weight[ids[row]] * model.config.embed_scale)
        position = np64(model.pos_encoding.pe[row])
    return ValuePath(
        kind=kind,
        layer=layer,
        head=head,
        row=row,
        norm_first=model.config.norm_first,
        embedding=embedding,
        position=position,
        x=np64(x),
        normed=np64(seen["query_input"][row]),
        query=np64(q),
        keys=np64(keys),
        values=np64(values),
        weights=np64(weights),
        z=z.cpu().numpy(),
        concat=np64(seen["concat"][row]),
        out=np64(out),
        residual=np64(residual),
    )
