"""The model configuration: one dataclass, validated when built, stored in every checkpoint."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

ATTENTION_KINDS = ("encoder_self", "decoder_self", "cross")
# The special token ids, fixed for every vocabulary: the tokenizer trains SentencePiece with them and refuses a model
# that has others, so the model, the decoders and the data pipeline all read them from here.
PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_IDS = {"pad_id": PAD_ID, "unk_id": UNK_ID, "bos_id": BOS_ID, "eos_id": EOS_ID}

# The largest value of each size a config may declare, and of the weights they add up to: generous for a
# 6+6-layer d_model 512 model with 16 heads and a 64k vocabulary (77M weights), small enough that a crafted
# checkpoint cannot make the loader build a model of gigabytes (100M fp32 weights are 400 MB).
BOUNDS = {
    "vocab_size": 131_072,  # 2x the largest Marian vocabularies (~64k)
    "d_model": 2_048,  # 2x Transformer-big
    "n_heads": 64,
    "n_encoder_layers": 24,
    "n_decoder_layers": 24,
    "d_ff": 16_384,  # 4x Transformer-big
    "max_len": 8_192,  # rows of the positional table: (8192, 2048) fp32 is 64 MB
}
MAX_PARAMETERS = 100_000_000
# The feed-forward's nonlinearity, by the names Marian's config uses: the paper's ReLU, swish (= SiLU, x·σ(x), the
# opus-mt models'), GELU (exact erf form)
ACTIVATIONS = ("relu", "swish", "gelu")
# Where sin and cos sit in a row of the sinusoidal table, as a person reads it: "interleaved" as the paper writes it,
# "halves" as Marian and fairseq lay it out (the D/2 sines, then the D/2 cosines)
POSITIONAL_LAYOUTS = {
    "interleaved": "PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))",
    "halves": "PE(pos, i) = sin(pos / 10000^(2i/d)), PE(pos, d/2 + i) = cos(pos / 10000^(2i/d)) for i < d/2 "
    "(Marian's layout: the sines, then the cosines)",
}


@dataclass(frozen=True)
class ModelConfig:
    """Hyperparameters of the encoder-decoder Transformer ("Attention Is All You Need", section 3)."""

    vocab_size: int = 8000
    d_model: int = 256
    n_heads: int = 4
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    d_ff: int = 1024
    dropout: float = 0.1
    max_len: int = 128  # rows of the positional-encoding table = longest sequence the model accepts (and trains on)
    norm_first: bool = True  # True: pre-LN; False: post-LN as in the paper
    # False: decoder self-attention sees every target position, the future included: a model trained so copies the
    # next word and cannot translate (the lesson's companion, bench/maskless.py); every other model keeps the mask
    lookahead_mask: bool = True
    activation: str = "relu"  # one of ACTIVATIONS
    positional_layout: str = "interleaved"  # one of POSITIONAL_LAYOUTS
    scale_embedding: bool = True  # embeddings multiplied by sqrt(d_model) before the positions are added (§3.4)
    # a learned bias added to every logit after the tied output embedding (Marian's `final_logits_bias`)
    final_logits_bias: bool = False

    def __post_init__(self) -> None:
        for name, largest in BOUNDS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name}={value!r} must be a positive integer")
            if value > largest:
                raise ValueError(f"{name}={value} is larger than the supported maximum {largest:,}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if self.d_model % 2:
            raise ValueError(f"d_model={self.d_model} must be even for the sinusoidal positional encoding")
        real = isinstance(self.dropout, (int, float)) and not isinstance(self.dropout, bool)
        if not real or not math.isfinite(self.dropout):
            raise ValueError(f"dropout={self.dropout!r} must be a finite number")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout={self.dropout} must be in [0, 1)")
        for name, choices in (("activation", ACTIVATIONS), ("positional_layout", POSITIONAL_LAYOUTS)):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name}={getattr(self, name)!r} must be one of {', '.join(choices)}")
        for name in ("norm_first", "lookahead_mask", "scale_embedding", "final_logits_bias"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be true or false")
        if self.vocab_size <= max(SPECIAL_IDS.values()):
            raise ValueError(f"vocab_size={self.vocab_size} leaves no room beside the special tokens {SPECIAL_IDS}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def embed_scale(self) -> float:
        """What an embedding is multiplied by before the positional encoding is added."""
        return math.sqrt(self.d_model) if self.scale_embedding else 1.0

    def n_layers(self, kind: str) -> int:
        """Number of layers that hold attention of this kind."""
        if kind == "encoder_self":
            return self.n_encoder_layers
        if kind in ("decoder_self", "cross"):
            return self.n_decoder_layers
        raise ValueError(f"unknown attention kind {kind!r}; expected one of {ATTENTION_KINDS}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        """Rebuild from a checkpoint's dict, naming unknown or missing keys."""
        if not isinstance(data, dict):
            raise ValueError(f"model config must be a JSON object, got {type(data).__name__}")
        data = dict(data)
        for name, value in SPECIAL_IDS.items():  # checkpoints written before the ids were fixed store them
            stored = data.pop(name, value)
            if stored != value:
                raise ValueError(f"{name}={stored!r} differs from this project's fixed {name}={value}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown model config keys: {', '.join(unknown)}")
        return cls(**data)
