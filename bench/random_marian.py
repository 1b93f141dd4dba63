"""A Marian folder with random weights, as `transformers` saves a MarianMTModel: the tests' tiny ones and the bench's
opus-mt-sized one (weights do not change speed, so a random model of the real config times what a user waits for).

The SentencePiece models are trained here on the sentences given, as `transformers`' own tests do, and the vocabulary
is laid out as Marian lays it: </s> 0, <unk> 1, the pieces of both models, filler pieces up to `vocab_size`, <pad>
last (the decoder's start). Needs `transformers` (requirements-dev.txt), which the explorer itself never imports.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import sentencepiece as spm
import torch

# opus-mt-en-de's config.json, as the Hub serves it (the keys the conversion reads)
OPUS_MT_EN_DE = dict(
    vocab_size=58101,
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    encoder_attention_heads=8,
    decoder_attention_heads=8,
    encoder_ffn_dim=2048,
    decoder_ffn_dim=2048,
    max_position_embeddings=512,
    activation_function="swish",
    scale_embedding=True,
)
TINY = dict(
    d_model=16,
    encoder_layers=2,
    decoder_layers=2,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    encoder_ffn_dim=32,
    decoder_ffn_dim=32,
    max_position_embeddings=64,
    activation_function="swish",
    scale_embedding=True,
    init_std=0.3,  # transformers' 0.02 leaves a tiny model's outputs to its biases: one token over and over
)


def train_spm(sentences: list[str], vocab_size: int) -> bytes:
    """A unigram SentencePiece model as Marian's: <unk> 0, <s> 1, </s> 2, nmt_nfkc normalisation."""
    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=buffer,
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=1.0,
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    return buffer.getvalue()


def marian_vocab(source: bytes, target: bytes, size: int | None = None) -> dict[str, int]:
    """vocab.json: </s> 0, <unk> 1, every piece of both models once, fillers up to `size`, <pad> last."""
    pieces = ["</s>", "<unk>"]
    for proto in (source, target):
        sp = spm.SentencePieceProcessor()
        sp.LoadFromSerializedProto(proto)
        pieces += [
            sp.id_to_piece(i) for i in range(sp.get_piece_size()) if not sp.is_control(i) and not sp.is_unknown(i)
        ]
    pieces = list(dict.fromkeys(pieces))
    if size is not None:
        if len(pieces) + 1 > size:
            raise ValueError(f"vocab_size={size} is smaller than the {len(pieces) + 1} pieces")
        pieces += [f"▁filler{i}" for i in range(size - 1 - len(pieces))]
    return {piece: i for i, piece in enumerate(pieces + ["<pad>"])}


def build(
    directory: str | Path,
    source_sentences: list[str],
    target_sentences: list[str],
    spm_size: int = 60,
    seed: int = 0,
    languages: tuple[str, str] = ("en", "de"),
    safetensors: bool = True,
    eos_bias: float = 0.0,
    **config,
) -> Path:
    """Write a random MarianMTModel folder (config.json, weights, source.spm, target.spm, vocab.json,
    tokenizer_config.json) and return it; `config` overrides `TINY`."""
    from transformers import MarianConfig, MarianMTModel

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    source, target = train_spm(source_sentences, spm_size), train_spm(target_sentences, spm_size)
    values = TINY | config
    vocab = marian_vocab(source, target, values.get("vocab_size"))
    pad = len(vocab) - 1
    values |= dict(vocab_size=len(vocab), pad_token_id=pad, decoder_start_token_id=pad, eos_token_id=0)
    torch.manual_seed(seed)
    model = MarianMTModel(MarianConfig(**values)).eval()
    with torch.no_grad():  # a trained model's bias is not zero: make the conversion of it count
        model.final_logits_bias.normal_(0, 0.1)
        model.final_logits_bias[0, 0] += eos_bias  # translations that end, of several lengths
        for name, p in model.named_parameters():
            if name.endswith("layer_norm.weight") or name.endswith("layer_norm.bias"):
                p.add_(torch.randn_like(p) * 0.1)
    model.save_pretrained(directory)
    if not safetensors:  # as the Hub's older opus-mt folders hold them (transformers 5 writes safetensors only)
        from safetensors.torch import load_file

        torch.save(load_file(directory / "model.safetensors"), directory / "pytorch_model.bin")
        (directory / "model.safetensors").unlink()
    (directory / "source.spm").write_bytes(source)
    (directory / "target.spm").write_bytes(target)
    (directory / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer_config = {"source_lang": languages[0], "target_lang": languages[1], "tokenizer_class": "MarianTokenizer"}
    (directory / "tokenizer_config.json").write_text(json.dumps(tokenizer_config), encoding="utf-8")
    return directory
