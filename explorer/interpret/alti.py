"""Where each generated token comes from, the source or the target prefix: ALTI+ (Ferrando et al., 2022).

ALTI ("Measuring the Mixing of Contextual Information in the Transformer", Ferrando, Gállego and Costa-jussà 2022)
splits the output of every attention block, its residual included, into one vector per input token:

    y_i = Σ_j T_i(x_j) + b        T_i(x_j) = Σ_h W_O^h α^h_ij (W_V^h x̂_j + b_V^h)  (+ x_i itself when j = i)

x̂_j is what the attention reads at j (LN(x_j) under pre-LN, x_j under post-LN; in cross-attention, the encoder's
output), b the output projection's bias. Under post-LN the LayerNorm after the residual is linear in its input once
its σ_i is fixed, so each part passes through it: T ↦ γ ⊙ (T − mean T) / σ_i (b and β stay unattributed). Each part is
scored by how close it alone brings y_i: c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), normalised per row. The
contributions roll out across layers as attention rollout does (the feed-forward blocks work per token).

ALTI+ ("Towards Opening the Black Box of Neural Machine Translation: Source and Target Contributions to NMT
Predictions", Ferrando, Gállego, Alastruey, Escolano and Costa-jussà 2022) carries it through an encoder-decoder. The
encoder's rollout (S × S) says which source tokens each encoder output holds. In each decoder layer self-attention
mixes the prefix (T × T); cross-attention mixes the decoder position's own residual with the encoder outputs. Each
decoder position ends as a distribution over the S source tokens and its prefix: the decoder inputs `<s>`, y_1, ..
up to it. Position t predicts the token written at step t + 1; its source share is the sum over the source columns.

One teacher-forced pass with forward hooks on the model's attention modules and LayerNorms, no backward pass. The
reference implementations, `mt-upc/transformer-contributions-nmt` and `stopes/eval/alti`, are tied to fairseq; this
is written against this project's model.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import torch

from ..model.transformer import Ablation, Transformer
from .explain import hooked_pass

CHUNK = 16  # queries decomposed at once: a block's parts are (queries, keys, D) float64, so memory stays bounded


@dataclass
class Block:
    """One attention block of one sentence as ALTI decomposes it: what makes each query's output (CPU, float64).

    `parts(rows)` gives the per-input vectors of some queries, `contributions()` every query's scores, a few queries
    at a time (a long sentence's parts would take gigabytes at once).
    """

    x: torch.Tensor  # (Q, D) the residual stream entering the sublayer
    moved: torch.Tensor  # (H, K, D) W_O^h (W_V^h x̂_k + b_V^h): what head h carries from key k into the output
    weights: torch.Tensor  # (H, Q, K) the attention weights (0 for a switched-off head)
    out_bias: torch.Tensor  # (D,) the output projection's bias
    output: torch.Tensor  # (Q, D) the block's real output, as the model computed it
    cross: bool  # parts: the residual, then each encoder output (else: the keys, the residual on the query's own)
    norm: tuple | None = None  # post-LN: (γ, β, eps) of the LayerNorm after the residual

    def parts(self, rows: slice = slice(None)) -> tuple[torch.Tensor, torch.Tensor]:
        """(parts (q, P, D), bias (q, D)) of the queries `rows`: Σ parts + bias is their output."""
        weights, x = self.weights[:, rows], self.x[rows]  # (H, q, K), (q, D)
        moved = torch.einsum("hqk,hkd->qkd", weights, self.moved)  # (q, K, D) Σ_h α^h_qk W_O^h v^h_k
        if self.cross:
            parts = torch.cat([x[:, None, :], moved], dim=1)  # (q, 1 + S, D)
        else:
            parts = moved
            first = range(self.x.size(0))[rows].start
            index = torch.arange(x.size(0))
            parts[index, index + first] += x  # the residual joins the query's own token
        bias = self.out_bias.expand(x.size(0), -1)  # (q, D)
        if self.norm is not None:  # y = LN(z): each part through LN's linear map at this row's σ
            gamma, beta, eps = self.norm
            z = parts.sum(1) + bias  # (q, D) the LayerNorm's input
            sigma = torch.sqrt(z.var(-1, unbiased=False, keepdim=True) + eps)  # (q, 1)
            parts = gamma * (parts - parts.mean(-1, keepdim=True)) / sigma[:, None, :]
            bias = gamma * (bias - bias.mean(-1, keepdim=True)) / sigma + beta
        return parts, bias

    def contributions(self) -> torch.Tensor:
        """c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), each row normalised to sum to 1: (Q, P). A row no part brings
        closer is its residual's alone."""
        rows = []
        for start in range(0, self.x.size(0), CHUNK):
            chunk = slice(start, start + CHUNK)
            parts, _ = self.parts(chunk)
            y = self.output[chunk]  # (q, D)
            rows.append((y.abs().sum(-1, keepdim=True) - (y[:, None, :] - parts).abs().sum(-1)).clamp(min=0))
        c = torch.cat(rows)  # (Q, P)
        total = c.sum(-1, keepdim=True)
        residual = torch.zeros_like(c)
        Q = c.size(0)
        residual[torch.arange(Q), 0 if self.cross else torch.arange(Q)] = 1.0  # never a masked key's
        return torch.where(total > 0, c / total.clamp(min=1e-30), residual)


@dataclass
class SourcePrefix:
    """ALTI+ of one sentence: each decoder position's contributions over the source tokens and its prefix."""

    source: np.ndarray  # (T, S) position t's contribution of each source token
    prefix: np.ndarray  # (T, T) position t's contribution of each decoder input (zero beyond t: the mask)
    encoder: np.ndarray  # (S, S) the encoder's rollout: which source tokens each encoder output holds

    @property
    def source_share(self) -> np.ndarray:
        """(T,) how much of each prediction comes from the source (the rest from the prefix)."""
        return self.source.sum(-1)


def _decompose(module, sublayer, seen: dict, cross: bool, head_mask: torch.Tensor | None) -> Block:
    """The block of one attention site from what its hooks saw (batch row 0); `head_mask` (H,): switched-off heads."""

    def cpu(t: torch.Tensor) -> torch.Tensor:  # float64 where the model may run in float32 on a GPU (or MPS)
        return t.detach().to("cpu", torch.float64)

    read = cpu(seen["memory"] if cross else seen["query_input"])  # (K, D) what the attention's values are made of
    weights = cpu(seen["weights"])  # (H, Q, K)
    if head_mask is not None:  # a switched-off head's output never reaches the projection
        weights = weights * cpu(head_mask).view(-1, 1, 1)
    H, Dh = module.n_heads, module.d_head
    w_v, b_v = cpu(module.v_proj.weight), cpu(module.v_proj.bias)
    values = (read @ w_v.T + b_v).view(-1, H, Dh).transpose(0, 1)  # (H, K, Dh)
    w_o = cpu(module.out_proj.weight).view(-1, H, Dh).permute(1, 2, 0)  # (H, Dh, D) W_O^h, transposed
    moved = torch.einsum("hkd,hde->hke", values, w_o)  # (H, K, D)
    x = cpu(seen["x"])
    if sublayer.norm_first:
        output, norm = x + cpu(seen["attention_output"]), None
    else:
        ln = sublayer.norm
        output, norm = cpu(seen["normed_output"]), (cpu(ln.weight), cpu(ln.bias), ln.eps)
    return Block(x, moved, weights, cpu(module.out_proj.bias), output, cross, norm)


@torch.no_grad()
def blocks(model: Transformer, source_ids: list[int], target_ids: list[int], ablation: Ablation | None = None):
    """Every attention block's decomposition for a trace's tokens: {(kind, layer): Block}."""
    thread = threading.get_ident()
    seen: dict[tuple[str, int], dict] = {}
    sites: dict[tuple[str, int], tuple] = {}  # (kind, layer) -> (its attention module, its residual Sublayer)
    handles = []

    def watch(kind: str, layer: int, module, sublayer):
        record = seen.setdefault((kind, layer), {})
        sites[(kind, layer)] = (module, sublayer)

        def on_norm_input(norm, args):  # pre-LN: the LayerNorm reads x; post-LN: it reads x + the attention's output
            if threading.get_ident() == thread and sublayer.norm_first:
                record.setdefault("x", args[0][0])

        def on_norm_output(norm, args, output):
            if threading.get_ident() == thread and not sublayer.norm_first:
                record.setdefault("normed_output", output[0])

        def on_attention(attn, args, kwargs, output):
            if threading.get_ident() == thread:
                query = (args[0] if args else kwargs["query"])[0]  # (Q, D)
                record["query_input"] = query
                if not sublayer.norm_first:
                    record["x"] = query  # post-LN reads the residual stream itself
                if kind == "cross":
                    record["memory"] = kwargs["key_value_input"][0]  # (S, D) the encoder's output
                record["weights"] = output.weights[0]  # (H, Q, K)
                record["attention_output"] = output.output[0]  # (Q, D) before the residual

        handles.append(module.register_forward_hook(on_attention, with_kwargs=True))
        handles.append(sublayer.norm.register_forward_pre_hook(on_norm_input))
        handles.append(sublayer.norm.register_forward_hook(on_norm_output))

    for i, layer in enumerate(model.encoder.layers):
        watch("encoder_self", i, layer.self_attn, layer.sublayers[0])
    for i, layer in enumerate(model.decoder.layers):
        watch("decoder_self", i, layer.self_attn, layer.sublayers[0])
        watch("cross", i, layer.cross_attn, layer.sublayers[1])
    hooked_pass(model, source_ids, target_ids, ablation, handles)
    return {
        key: _decompose(*sites[key], record, key[0] == "cross", ablation.head_mask(*key) if ablation else None)
        for key, record in seen.items()
    }


def source_prefix(model: Transformer, source_ids: list[int], target_ids: list[int], ablation=None) -> SourcePrefix:
    """ALTI+ of a trace's tokens: each decoder position's contributions over the source and its prefix."""
    S, T = len(source_ids), len(target_ids)
    if T == 0:  # nothing written yet: nothing to attribute
        return SourcePrefix(np.zeros((0, S)), np.zeros((0, 0)), np.eye(S))
    decomposed = blocks(model, source_ids, target_ids, ablation)
    encoder = torch.eye(S, dtype=torch.float64)
    for i in range(model.config.n_encoder_layers):
        encoder = decomposed[("encoder_self", i)].contributions() @ encoder  # (S, S)
    rolled = torch.cat([torch.zeros(T, S, dtype=torch.float64), torch.eye(T, dtype=torch.float64)], dim=1)  # (T, S+T)
    from_source = torch.cat([encoder, torch.zeros(S, T, dtype=torch.float64)], dim=1)  # (S, S+T)
    for i in range(model.config.n_decoder_layers):
        rolled = decomposed[("decoder_self", i)].contributions() @ rolled  # mixes the prefix
        c = decomposed[("cross", i)].contributions()  # (T, 1 + S): the residual, then each encoder output
        rolled = c[:, :1] * rolled + c[:, 1:] @ from_source
    rolled = rolled.numpy()
    return SourcePrefix(source=rolled[:, :S], prefix=rolled[:, S:], encoder=encoder.numpy())
