"""The encoder-decoder Transformer of "Attention Is All You Need", with observable attention.

Dimension legend (used in every shape comment):
    B  batch size              S  source length          T  target length (queries of this call)
    K  key length (cached + new positions)                D  d_model
    H  number of heads         Dh head size = D / H      F  feed-forward size      V  vocabulary size

Attention lives at three sites under stable names:
    encoder.layers[i].self_attn   kind "encoder_self"
    decoder.layers[i].self_attn   kind "decoder_self" (masked)
    decoder.layers[i].cross_attn  kind "cross"        (queries: target, keys: source)
Each site is a MultiHeadAttention that takes torch's fused scaled_dot_product_attention unless its caller
asks for the weights (`need_weights=True`, passed down from `encode`, `decode` and `forward`, as Marian's
`output_attentions`); then the pure `attention` computes scores -> mask -> softmax explicitly and returns both,
so a forward hook sees the probabilities that were used. The path is chosen by each call's own argument, never
by state on the module: a thread that records and one that does not can share one model. CPU training with
dropout takes the explicit path too, for the cheaper dropout mask of `dropout.py`. `evaluating(model)` is the
one way to run a model in eval mode and put it back as it was.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .config import PAD_ID, ModelConfig
from .dropout import Dropout, dropout
from .masks import decoder_self_mask, padding_mask

KeyValue = tuple[torch.Tensor, torch.Tensor]  # ((B, H, K, Dh), (B, H, K, Dh))


class AttentionOutput(NamedTuple):
    """What one attention call returns; `weights` and `scores` are None on the fast path."""

    output: torch.Tensor  # (B, T, D)
    key_value: KeyValue  # keys and values attended over, for the cache
    weights: torch.Tensor | None  # (B, H, T, K) post-softmax
    scores: torch.Tensor | None  # (B, H, T, K) pre-mask, pre-softmax q.k / sqrt(Dh)


class PositionalEncoding(nn.Module):
    """Sinusoidal positional encoding; the table is the buffer `pe` (max_len, D) that the app plots."""

    def __init__(self, d_model: int, max_len: int, layout: str = "interleaved"):
        super().__init__()
        self.layout = layout
        self.register_buffer("pe", sinusoid_table(max_len, d_model, layout), persistent=False)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        length = x.size(1)
        if offset + length > self.pe.size(0):
            raise ValueError(f"sequence of {offset + length} positions exceeds max_len={self.pe.size(0)}")
        return x + self.pe[offset : offset + length].to(x.dtype)


def sinusoid_table(max_len: int, d_model: int, layout: str = "interleaved") -> torch.Tensor:
    """The sinusoids sin(pos / 10000^(2i/D)) and cos(pos / 10000^(2i/D)), i < D/2, as a (max_len, D) table.

    "interleaved" (the paper): PE(pos, 2i) = sin, PE(pos, 2i+1) = cos. "halves" (Marian, fairseq): PE(pos, i) = sin,
    PE(pos, D/2 + i) = cos. The same numbers in another column order.
    """
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    sin, cos = torch.sin(position * inv_freq), torch.cos(position * inv_freq)  # (max_len, D/2) each
    if layout == "halves":
        return torch.cat([sin, cos], dim=1).float()
    if layout != "interleaved":
        raise ValueError(f"positional layout {layout!r} must be interleaved or halves")
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2], table[:, 1::2] = sin, cos
    return table.float()


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None, dropout_p: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention written out: (heads (..., T, Dh), weights (..., T, K), scores (..., T, K)).

    scores = q·kᵀ / √Dh; the mask (True: may attend) sets the others to −∞; weights = softmax(scores) in float32
    (float64 stays float64); heads = dropout(weights)·v. The model's explicit path and the explanation of one cell
    (`interpret/explain.py`) both compute with it.
    """
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))  # (..., T, K)
    masked = scores if mask is None else scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(masked if masked.dtype == torch.float64 else masked.float(), dim=-1).to(q.dtype)
    return dropout(weights, dropout_p, dropout_p > 0) @ v, weights, scores


@contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """The model in eval mode (dropout off) for the block, then back in the mode it was in."""
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention with a fast and an explicit path."""

    def __init__(self, config: ModelConfig, kind: str):
        super().__init__()
        self.kind = kind
        self.n_heads, self.d_head = config.n_heads, config.d_head
        self.q_proj = nn.Linear(config.d_model, config.d_model)
        self.k_proj = nn.Linear(config.d_model, config.d_model)
        self.v_proj = nn.Linear(config.d_model, config.d_model)
        self.out_proj = nn.Linear(config.d_model, config.d_model)
        self.dropout = config.dropout

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, L, _ = x.shape
        return x.view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, Dh)

    def project_key_value(self, x: torch.Tensor) -> KeyValue:
        """Keys and values (B, H, L, Dh) for the positions in x (B, L, D)."""
        return self._split(self.k_proj(x)), self._split(self.v_proj(x))

    def forward(
        self,
        query: torch.Tensor,
        key_value_input: torch.Tensor | None = None,
        mask: torch.Tensor | None = None,
        past: KeyValue | None = None,
        head_mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> AttentionOutput:
        """Attend from `query` (B, T, D) to keys/values; with `need_weights`, the weights and scores too.

        Self-attention: keys/values come from `query`, appended to `past` when given (the cache).
        Cross-attention: keys/values come from `key_value_input` (B, S, D), or from `past` when the
        encoder memory was projected already. `head_mask` (H,) multiplies each head's output before
        the output projection (0 switches a head off).
        """
        q = self._split(self.q_proj(query))  # (B, H, T, Dh)
        if key_value_input is not None:
            k, v = self.project_key_value(key_value_input)  # (B, H, S, Dh)
        elif past is not None and self.kind == "cross":
            k, v = past
        else:
            k, v = self.project_key_value(query)  # (B, H, T, Dh)
            if past is not None:
                k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)  # (B, H, K, Dh)

        dropout_p = self.dropout if self.training else 0.0
        weights = scores = None
        # explicit scores -> mask -> softmax when the caller wants the weights, and in CPU training, where
        # SDPA's math backend would run the same ops but draw its dropout mask the slow way
        if need_weights or (dropout_p and q.device.type == "cpu"):
            heads, weights, scores = attention(q, k, v, mask, dropout_p)  # (B, H, T, Dh), (B, H, T, K) twice
            if not need_weights:
                weights = scores = None
        else:
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)  # (B, H, T, Dh)

        if head_mask is not None:  # (H,) for every row, or (B, H) row by row
            heads = heads * head_mask.to(heads.dtype).view(-1, self.n_heads, 1, 1)
        B, _, T, _ = heads.shape
        merged = heads.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head)  # (B, T, D)
        return AttentionOutput(self.out_proj(merged), (k, v), weights, scores)


ACTIVATION_FUNCTIONS = {"relu": F.relu, "swish": F.silu, "gelu": F.gelu}  # by `ModelConfig.activation`


class FeedForward(nn.Module):
    """Position-wise feed-forward network: Linear(D, F) -> activation (ReLU in the paper) -> dropout -> Linear(F, D)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.fc1 = nn.Linear(config.d_model, config.d_ff)
        self.fc2 = nn.Linear(config.d_ff, config.d_model)
        self.dropout = Dropout(config.dropout)
        self.activation = ACTIVATION_FUNCTIONS[config.activation]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.dropout(self.activation(self.fc1(x))))


class Sublayer(nn.Module):
    """Residual connection around a sublayer with LayerNorm before (pre-LN) or after (post-LN) it."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.norm = nn.LayerNorm(config.d_model)
        self.dropout = Dropout(config.dropout)
        self.norm_first = config.norm_first

    def inner(self, x: torch.Tensor) -> torch.Tensor:
        """The sublayer's input: normalized first under pre-LN."""
        return self.norm(x) if self.norm_first else x

    def outer(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Residual sum of input x and sublayer output y, normalized after under post-LN."""
        out = x + self.dropout(y)
        return out if self.norm_first else self.norm(out)


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each wrapped in a residual Sublayer."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config, "encoder_self")
        self.feed_forward = FeedForward(config)
        self.sublayers = nn.ModuleList([Sublayer(config) for _ in range(2)])

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor, head_mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor:
        attn, ff = self.sublayers
        out = self.self_attn(attn.inner(x), mask=mask, head_mask=head_mask, need_weights=need_weights)
        x = attn.outer(x, out.output)
        return ff.outer(x, self.feed_forward(ff.inner(x)))


@dataclass
class LayerCache:
    """One decoder layer's cached keys/values: the target so far (grows) and the source (fixed)."""

    self_attn: KeyValue
    cross_attn: KeyValue


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, then feed-forward."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config, "decoder_self")
        self.cross_attn = MultiHeadAttention(config, "cross")
        self.feed_forward = FeedForward(config)
        self.sublayers = nn.ModuleList([Sublayer(config) for _ in range(3)])

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor | None,
        self_mask: torch.Tensor,
        cross_mask: torch.Tensor,
        cache: LayerCache | None = None,
        self_head_mask: torch.Tensor | None = None,
        cross_head_mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[torch.Tensor, LayerCache]:
        sa, ca, ff = self.sublayers
        self_out = self.self_attn(
            sa.inner(y),
            mask=self_mask,
            past=cache.self_attn if cache else None,
            head_mask=self_head_mask,
            need_weights=need_weights,
        )
        y = sa.outer(y, self_out.output)
        cross_out = self.cross_attn(
            ca.inner(y),
            key_value_input=memory if cache is None else None,
            mask=cross_mask,
            past=cache.cross_attn if cache else None,
            head_mask=cross_head_mask,
            need_weights=need_weights,
        )
        y = ca.outer(y, cross_out.output)
        y = ff.outer(y, self.feed_forward(ff.inner(y)))
        return y, LayerCache(self_out.key_value, cross_out.key_value)


class Encoder(nn.Module):
    """A stack of EncoderLayers (plus a final LayerNorm under pre-LN)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(config) for _ in range(config.n_encoder_layers)])
        self.norm = nn.LayerNorm(config.d_model) if config.norm_first else nn.Identity()


class Decoder(nn.Module):
    """A stack of DecoderLayers (plus a final LayerNorm under pre-LN)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(config) for _ in range(config.n_decoder_layers)])
        self.norm = nn.LayerNorm(config.d_model) if config.norm_first else nn.Identity()


@dataclass
class DecoderState:
    """Everything incremental decoding keeps between steps for a batch of sentences."""

    memory: torch.Tensor  # (B, S, D) encoder output
    src_mask: torch.Tensor  # (B, 1, 1, S)
    layers: list[LayerCache] | None = None  # None before the first step
    length: int = 0  # target positions already in the cache
    has_padding: bool | None = None  # whether any source position is padding (computed once)

    def __post_init__(self):
        if self.has_padding is None:
            self.has_padding = not bool(self.src_mask.all())

    def truncated(self, length: int) -> DecoderState:
        """The state as it was after `length` target positions (views, no recomputation)."""
        if not 0 <= length <= self.length:
            raise ValueError(f"cannot truncate a state of length {self.length} to {length}")
        if length == 0:
            return DecoderState(self.memory, self.src_mask, has_padding=self.has_padding)
        layers = [
            LayerCache((c.self_attn[0][:, :, :length], c.self_attn[1][:, :, :length]), c.cross_attn)
            for c in self.layers
        ]
        return DecoderState(self.memory, self.src_mask, layers, length, self.has_padding)

    def select(self, index: torch.Tensor) -> DecoderState:
        """Reorder/replicate the batch rows (for beam search); index (B',)."""
        layers = None
        if self.layers is not None:
            layers = [
                LayerCache(
                    (c.self_attn[0][index], c.self_attn[1][index]),
                    (c.cross_attn[0][index], c.cross_attn[1][index]),
                )
                for c in self.layers
            ]
        return DecoderState(self.memory[index], self.src_mask[index], layers, self.length, self.has_padding)


class Ablation:
    """A set of switched-off heads, as (kind, layer, head) triples, turned into per-site head masks.

    `Ablation.per_row(config, rows)` switches off a different set in each row of a batch (one forward pass
    then measures many ablations at once).
    """

    def __init__(self, config: ModelConfig, heads=()):
        self.heads = _checked_heads(config, heads)
        self.n_heads = config.n_heads
        self.rows: list[frozenset] | None = None

    @classmethod
    def per_row(cls, config: ModelConfig, rows) -> Ablation:
        ablation = cls(config)
        ablation.rows = [_checked_heads(config, heads) for heads in rows]
        ablation.heads = frozenset().union(*ablation.rows)
        return ablation

    def head_mask(self, kind: str, layer: int) -> torch.Tensor | None:
        """(H,), or (B, H) per row, with 0 for switched-off heads; None when the site is untouched."""
        if not any(site == kind and at == layer for site, at, _ in self.heads):
            return None
        rows = self.rows if self.rows is not None else [self.heads]
        mask = torch.ones(len(rows), self.n_heads)
        for b, heads in enumerate(rows):
            mask[b, [head for site, at, head in heads if site == kind and at == layer]] = 0.0
        return mask if self.rows is not None else mask[0]


def _checked_heads(config: ModelConfig, heads) -> frozenset:
    heads = frozenset((str(k), int(layer), int(h)) for k, layer, h in heads)
    for kind, layer, head in heads:
        if not 0 <= layer < config.n_layers(kind):
            raise ValueError(f"layer {layer} out of range for {kind} (0..{config.n_layers(kind) - 1})")
        if not 0 <= head < config.n_heads:
            raise ValueError(f"head {head} out of range (0..{config.n_heads - 1})")
    return heads


def _head_mask(ablation: Ablation | None, kind: str, layer: int, device) -> torch.Tensor | None:
    mask = ablation.head_mask(kind, layer) if ablation is not None else None
    return mask.to(device) if mask is not None else None


def pad_batch(rows: list[list[int]], device=None) -> torch.Tensor:
    """Id lists -> (B, longest) padded on the right with PAD_ID, the batch layout every forward pass takes."""
    out = torch.full((len(rows), max(map(len, rows))), PAD_ID, dtype=torch.long)
    for b, ids in enumerate(rows):
        out[b, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    return out.to(device)


class Transformer(nn.Module):
    """Encoder-decoder Transformer with one joint vocabulary and tied input/output embeddings.

    Models from elsewhere are converted into this class (`marian.py`); where their architecture differs, a field of
    `ModelConfig` says how (activation, positional layout, embedding scale, a final logits bias, post-LN).
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=PAD_ID)
        self.pos_encoding = PositionalEncoding(config.d_model, config.max_len, config.positional_layout)
        self.dropout = Dropout(config.dropout)
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)
        if config.final_logits_bias:
            self.final_logits_bias = nn.Parameter(torch.zeros(config.vocab_size))  # (V,)
        self._init_weights()

    def _init_weights(self) -> None:
        for name, p in self.named_parameters():
            if p.dim() > 1 and name != "embed.weight":
                nn.init.xavier_uniform_(p)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        nn.init.normal_(self.embed.weight, std=self.config.d_model**-0.5)
        with torch.no_grad():
            self.embed.weight[PAD_ID].zero_()

    def _embed(
        self, ids: torch.Tensor, offset: int = 0, embedded: torch.Tensor | None = None, positions: bool = True
    ) -> torch.Tensor:
        x = (self.embed(ids) if embedded is None else embedded) * self.config.embed_scale  # (B, L, D)
        return self.dropout(self.pos_encoding(x, offset) if positions else x)

    def encode(
        self,
        src: torch.Tensor,
        ablation: Ablation | None = None,
        src_embeddings: torch.Tensor | None = None,
        need_weights: bool = False,
        positions: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Source ids (B, S) -> encoder output (B, S, D) and source padding mask (B, 1, 1, S).

        `src_embeddings` (B, S, D) replaces the embedding lookup of `src` (gradient attributions differentiate
        with respect to it); the mask still comes from `src`. `need_weights`: every attention call computes its
        weights and scores explicitly and returns them (to the forward hooks that record them). `positions=False`
        leaves the positional encoding out (the lesson's "why positions" experiment; nothing else does).
        """
        src_mask = padding_mask(src, PAD_ID)
        x = self._embed(src, embedded=src_embeddings, positions=positions)
        for i, layer in enumerate(self.encoder.layers):
            x = layer(x, src_mask, _head_mask(ablation, "encoder_self", i, x.device), need_weights)
        return self.encoder.norm(x), src_mask

    def decode(
        self,
        tgt: torch.Tensor,
        state: DecoderState,
        ablation: Ablation | None = None,
        need_weights: bool = False,
        positions: bool = True,
    ) -> tuple[torch.Tensor, DecoderState]:
        """Target ids (B, T) that follow the cached positions -> logits (B, T, V) and the new state (`positions`: as
        in `encode`)."""
        offset = state.length
        self_mask, cross_mask = self.decoder_masks(tgt, state)
        y = self.embed_target(tgt, offset, positions)
        caches = []
        for i in range(len(self.decoder.layers)):
            y, cache = self.decoder_layer(i, y, state, self_mask, cross_mask, ablation, need_weights)
            caches.append(cache)
        return self.logits(y), DecoderState(
            state.memory, state.src_mask, caches, offset + tgt.size(1), state.has_padding
        )

    def embed_target(self, tgt: torch.Tensor, offset: int = 0, positions: bool = True) -> torch.Tensor:
        """Target ids (B, T) at positions `offset`.. -> the first decoder layer's input (B, T, D)."""
        return self._embed(tgt, offset, positions=positions)

    def decoder_masks(self, tgt: torch.Tensor, state: DecoderState) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """The masks of decoding target ids (B, T) after the state's cached positions: (decoder_self, cross)."""
        offset = state.length
        # one new query per row may see every cached key: no mask needed, which keeps the fused kernel lean. A model
        # configured without the look-ahead mask lets every position see every other, the future included (it is
        # how such a model was trained; decoding step by step, the future does not exist yet anyway)
        if tgt.size(1) == 1:
            self_mask = None
        elif self.config.lookahead_mask:
            self_mask = decoder_self_mask(tgt, PAD_ID, offset)  # (B, 1, T, offset + T)
        else:
            self_mask = padding_mask(tgt, PAD_ID) if offset == 0 else None  # (B, 1, 1, T): padding only
        return self_mask, state.src_mask if state.has_padding else None

    def decoder_layer(
        self,
        i: int,
        y: torch.Tensor,
        state: DecoderState,
        self_mask: torch.Tensor | None,
        cross_mask: torch.Tensor | None,
        ablation: Ablation | None = None,
        need_weights: bool = False,
    ) -> tuple[torch.Tensor, LayerCache]:
        """Decoder layer `i` on its input y (B, T, D), with the state's memory and layer `i`'s cache."""
        return self.decoder.layers[i](
            y,
            state.memory,
            self_mask,
            cross_mask,
            state.layers[i] if state.layers is not None else None,
            _head_mask(ablation, "decoder_self", i, y.device),
            _head_mask(ablation, "cross", i, y.device),
            need_weights,
        )

    def logits(self, y: torch.Tensor) -> torch.Tensor:
        """The last decoder layer's output (B, T, D) -> logits (B, T, V), through the tied output embedding (and the
        final logits bias where the config has one)."""
        bias = self.final_logits_bias if self.config.final_logits_bias else None
        return F.linear(self.decoder.norm(y), self.embed.weight, bias)

    def forward(
        self, src: torch.Tensor, tgt_in: torch.Tensor, ablation: Ablation | None = None, need_weights: bool = False
    ) -> torch.Tensor:
        """Teacher-forced pass: source (B, S) and shifted target (B, T) -> logits (B, T, V)."""
        memory, src_mask = self.encode(src, ablation, need_weights=need_weights)
        logits, _ = self.decode(tgt_in, DecoderState(memory, src_mask), ablation, need_weights)
        return logits

    def attention_modules(self) -> list[tuple[str, int, MultiHeadAttention]]:
        """Every attention site as (kind, layer, module), in the paper's order."""
        sites = [("encoder_self", i, layer.self_attn) for i, layer in enumerate(self.encoder.layers)]
        for i, layer in enumerate(self.decoder.layers):
            sites.append(("decoder_self", i, layer.self_attn))
            sites.append(("cross", i, layer.cross_attn))
        return sites

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def state_shapes(config: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Name and shape of every tensor in `Transformer(config).state_dict()`, in its order, without building it.

    Checkpoint loading checks a weights file against this before it allocates anything; it mirrors the
    modules above, and tests/test_model.py holds it equal to the built model's state dict.
    """
    D, F_, V = config.d_model, config.d_ff, config.vocab_size

    def linear(prefix: str, fan_in: int, fan_out: int) -> dict:
        return {f"{prefix}.weight": (fan_out, fan_in), f"{prefix}.bias": (fan_out,)}

    def norm(prefix: str) -> dict:
        return {f"{prefix}.weight": (D,), f"{prefix}.bias": (D,)}

    def attention(prefix: str) -> dict:
        projections = ("q_proj", "k_proj", "v_proj", "out_proj")
        return {k: v for proj in projections for k, v in linear(f"{prefix}.{proj}", D, D).items()}

    def layer(prefix: str, attention_sites: tuple[str, ...]) -> dict:
        shapes = {k: v for site in attention_sites for k, v in attention(f"{prefix}.{site}").items()}
        shapes |= linear(f"{prefix}.feed_forward.fc1", D, F_) | linear(f"{prefix}.feed_forward.fc2", F_, D)
        for i in range(len(attention_sites) + 1):  # one residual Sublayer per attention site and the feed-forward
            shapes |= norm(f"{prefix}.sublayers.{i}.norm")
        return shapes

    # a module's own parameters come first in its state dict, then its children's
    shapes = {"final_logits_bias": (V,)} if config.final_logits_bias else {}
    shapes["embed.weight"] = (V, D)
    for stack, n_layers, sites in (
        ("encoder", config.n_encoder_layers, ("self_attn",)),
        ("decoder", config.n_decoder_layers, ("self_attn", "cross_attn")),
    ):
        for i in range(n_layers):
            shapes |= layer(f"{stack}.layers.{i}", sites)
        if config.norm_first:
            shapes |= norm(f"{stack}.norm")
    return shapes
