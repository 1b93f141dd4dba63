"""Marian (opus-mt) checkpoints converted into this project's model: one model class, many weight formats.

    python -m explorer.model.marian SRC OUT [--source-language en --target-language fr]

SRC is a folder as `transformers` saves a MarianMTModel (what the Hub's Helsinki-NLP/opus-mt-* hold): `config.json`
with `model_type: marian`, `model.safetensors` (or `pytorch_model.bin`, read with `weights_only=True`), `source.spm`,
`target.spm` and `vocab.json`. OUT becomes a checkpoint of this project (`checkpoint.py`) with a model card naming
the source, its licence and this conversion. `python app.py --checkpoint SRC` converts on load, in memory.

Marian's architecture is the paper's, with differences that become fields of `ModelConfig` and the tokenizer, never
special cases in the views:
    activation_function swish/relu/gelu   -> activation
    sin half, then cos half of the table  -> positional_layout "halves"
    scale_embedding (x sqrt(d_model))     -> scale_embedding
    final_logits_bias                      -> final_logits_bias
    post-LN, no LayerNorm after the stacks -> norm_first False
    source.spm + target.spm + vocab.json   -> PairTokenizer (two SentencePiece models, one vocabulary)
    eos 0, unk 1, pad (= decoder start)    -> this project's pad 0, unk 1, <s> 2, </s> 3, by a permutation of the
                                              vocabulary rows; Marian's pad row serves as both pad and <s>, so the
                                              vocabulary has one row more
The converted model never writes <pad> or <s>: their logit biases are `NEVER` (opus-mt's generation config forbids
<pad> with `bad_words_ids`). tests/test_marian.py holds the conversion against `transformers` on tiny random models:
logits, every attention map, greedy and beam outputs.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path

import torch

from .checkpoint import Checkpoint, CheckpointError, check_parameter_count, mismatches, save_checkpoint
from .config import BOS_ID, EOS_ID, MAX_PARAMETERS, PAD_ID, UNK_ID, ModelConfig
from .languages import LanguagePair, from_model_name
from .metadata import validate_metadata
from .pair_tokenizer import PairTokenizer
from .safetensors_header import TensorInfo, read_header
from .transformer import Transformer, sinusoid_table, state_shapes

TOKENIZER_FILES = ("source.spm", "target.spm", "vocab.json")
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")  # the first found is read
MAX_JSON_BYTES = 4 << 20  # opus-mt's vocab.json is ~1.3 MB, its config.json 1.4 KB
MAX_SPM_BYTES = 16 << 20
MAX_WEIGHT_BYTES = MAX_PARAMETERS * 4 + (64 << 20)  # fp32 weights within the bound, and the positional tables
ACTIVATIONS = {"relu": "relu", "swish": "swish", "silu": "swish", "gelu": "gelu"}  # Marian's name -> ours
NEVER = -1e4  # the logit bias of the ids the converted model must not write: e^-10000 is 0 in float32
# config flags of the BART family that Marian checkpoints carry, and the value this conversion supports
REQUIRED_FLAGS = {
    "normalize_before": False,
    "normalize_embedding": False,
    "add_final_layer_norm": False,
    "add_bias_logits": False,
    "share_encoder_decoder_embeddings": True,
}
OPUS_LICENCE = "CC-BY 4.0"


def is_marian(path: str | Path) -> bool:
    """Whether `path` is a folder whose config.json says `model_type: marian`."""
    config = Path(path) / "config.json"
    try:
        return config.is_file() and _read_json(config).get("model_type") == "marian"
    except CheckpointError:
        return False


def _unique(pairs: list) -> dict:
    """A JSON object's keys, each once: a vocabulary that lists a piece twice would lose one of its ids unseen."""
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"the key {key[:40]!r} appears twice")
        data[key] = value
    return data


def _read_json(file: Path) -> dict:
    try:
        size = file.stat().st_size
        if size > MAX_JSON_BYTES:
            raise CheckpointError(f"{file} has {size:,} bytes, more than the {MAX_JSON_BYTES:,} allowed")
        data = json.loads(file.read_text(encoding="utf-8"), object_pairs_hook=_unique)
    except (OSError, ValueError, RecursionError) as exc:
        raise CheckpointError(f"{file} is not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{file} must hold a JSON object")
    return data


def model_config(hf: dict, where: Path) -> ModelConfig:
    """This project's config for a Marian config.json, or a CheckpointError naming what cannot be converted."""

    def get(key: str, default=None):
        return hf.get(key, default)

    problems = [
        f"{key}={get(key)!r} (only {want} converts)" for key, want in REQUIRED_FLAGS.items() if get(key, want) != want
    ]
    for a, b in (("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim")):
        if get(a) != get(b):
            problems.append(f"{a}={get(a)!r} differs from {b}={get(b)!r}")
    if get("decoder_vocab_size") not in (None, get("vocab_size")):
        problems.append(
            f"decoder_vocab_size={get('decoder_vocab_size')!r} differs from vocab_size (separate vocabularies)"
        )
    activation = ACTIVATIONS.get(get("activation_function", "gelu"))
    if activation is None:
        problems.append(f"activation_function={get('activation_function')!r} is not one of {', '.join(ACTIVATIONS)}")
    if problems:
        raise CheckpointError(f"{where}: this Marian model cannot be converted: {'; '.join(problems)}")
    try:
        config = ModelConfig(
            vocab_size=_int(get("vocab_size")) + 1,  # Marian's pad row serves as pad and <s>
            d_model=_int(get("d_model")),
            n_heads=_int(get("encoder_attention_heads")),
            n_encoder_layers=_int(get("encoder_layers")),
            n_decoder_layers=_int(get("decoder_layers")),
            d_ff=_int(get("encoder_ffn_dim")),
            dropout=float(get("dropout", 0.1)),
            max_len=_int(get("max_position_embeddings")),
            norm_first=False,
            activation=activation,
            positional_layout="halves",
            scale_embedding=bool(get("scale_embedding", False)),
            final_logits_bias=True,
        )
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: invalid model config: {exc}") from None
    check_parameter_count(config, where)
    return config


def _int(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{value!r} must be an integer")
    return value


def vocabulary_order(hf: dict, vocab: dict, where: Path) -> list[int]:
    """order[i] is the Marian id whose row becomes this project's id i: pad, unk, the decoder start, eos, then the
    rest in Marian's order."""
    size = hf["vocab_size"]
    ids = sorted(vocab.values()) if all(isinstance(i, int) for i in vocab.values()) else None
    if ids != list(range(size)):
        raise CheckpointError(f"{where}: vocab.json must give each id 0..{size - 1} to one piece (vocab_size={size})")
    unk = vocab.get("<unk>")
    pad, eos = hf.get("pad_token_id"), hf.get("eos_token_id")
    start = hf.get("decoder_start_token_id", pad)
    special = {"pad_token_id": pad, "decoder_start_token_id": start, "eos_token_id": eos, "<unk>": unk}
    wrong = [
        f"{name}={value!r}" for name, value in special.items() if not isinstance(value, int) or not 0 <= value < size
    ]
    if wrong:
        raise CheckpointError(f"{where}: special ids outside the vocabulary of {size}: {', '.join(wrong)}")
    if start != pad:  # every opus-mt model starts from pad; another start would need its own row, and none exists
        raise CheckpointError(f"{where}: decoder_start_token_id={start} differs from pad_token_id={pad}")
    if len({pad, unk, eos}) < 3:
        raise CheckpointError(f"{where}: pad ({pad}), <unk> ({unk}) and eos ({eos}) must be three different ids")
    head = [pad, unk, start, eos]  # this project's PAD_ID, UNK_ID, BOS_ID, EOS_ID
    assert [PAD_ID, UNK_ID, BOS_ID, EOS_ID] == list(range(4))
    return head + [i for i in range(size) if i not in set(head)]


def read_weights(folder: Path) -> dict[str, torch.Tensor]:
    """The weights of a Marian folder by their names without the `model.` prefix, each size-checked first."""
    for name in WEIGHT_FILES:
        file = folder / name
        if file.is_file():
            break
    else:
        raise CheckpointError(f"{folder} has no weights: expected {' or '.join(WEIGHT_FILES)}")
    size = file.stat().st_size
    if size > MAX_WEIGHT_BYTES:
        raise CheckpointError(f"{file} has {size:,} bytes, more than the {MAX_WEIGHT_BYTES:,} allowed")
    try:
        if file.suffix == ".safetensors":
            read_header(file)  # a header that lies about its sizes is refused before anything is read
            from safetensors.torch import load_file

            tensors = load_file(str(file))
        else:  # a zip archive is mapped, not read; the pickle format before torch 1.6 can only be read
            tensors = torch.load(file, map_location="cpu", weights_only=True, mmap=zipfile.is_zipfile(file))
    except Exception as exc:  # safetensors, pickle (refused globals) and zip errors, each with its own type
        raise CheckpointError(f"{file} is not a readable weights file ({type(exc).__name__}: {exc})") from None
    if not isinstance(tensors, dict) or not all(isinstance(v, torch.Tensor) for v in tensors.values()):
        raise CheckpointError(f"{file} does not hold a dictionary of tensors")
    return {k.removeprefix("model."): v for k, v in tensors.items()}


# Marian's name for each tensor of one layer -> this project's (see transformer.py's names)
ENCODER_LAYER = {
    "self_attn": "self_attn",
    "self_attn_layer_norm": "sublayers.0.norm",
    "fc1": "feed_forward.fc1",
    "fc2": "feed_forward.fc2",
    "final_layer_norm": "sublayers.1.norm",
}
DECODER_LAYER = {
    "self_attn": "self_attn",
    "self_attn_layer_norm": "sublayers.0.norm",
    "encoder_attn": "cross_attn",
    "encoder_attn_layer_norm": "sublayers.1.norm",
    "fc1": "feed_forward.fc1",
    "fc2": "feed_forward.fc2",
    "final_layer_norm": "sublayers.2.norm",
}
EMBEDDINGS = ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight")


def convert_state(tensors: dict[str, torch.Tensor], config: ModelConfig, order: list[int], where: Path) -> dict:
    """Marian's weights renamed, the vocabulary rows permuted, checked against this project's shapes."""
    state: dict[str, torch.Tensor] = {}
    for stack, table, n in (
        ("encoder", ENCODER_LAYER, config.n_encoder_layers),
        ("decoder", DECODER_LAYER, config.n_decoder_layers),
    ):
        for i in range(n):
            for theirs, ours in table.items():
                for k, v in tensors.items():
                    prefix = f"{stack}.layers.{i}.{theirs}."
                    if k.startswith(prefix):
                        state[f"{stack}.layers.{i}.{ours}.{k[len(prefix) :]}"] = v
    embeddings = [tensors[k] for k in EMBEDDINGS if k in tensors]
    if not embeddings:
        raise CheckpointError(f"{where}: no embedding matrix ({' or '.join(EMBEDDINGS)})")
    if any(e.shape != embeddings[0].shape or not torch.equal(e, embeddings[0]) for e in embeddings[1:]):
        raise CheckpointError(f"{where}: the encoder, decoder and output embeddings differ; only tied ones convert")
    index = torch.tensor(order)
    state["embed.weight"] = embeddings[0][index]
    bias = tensors.get("final_logits_bias", torch.zeros(1, len(order) - 1)).reshape(-1)
    if bias.numel() != len(order) - 1:
        raise CheckpointError(f"{where}: final_logits_bias has {bias.numel()} values, expected {len(order) - 1}")
    state["final_logits_bias"] = bias[index].clone()
    state["final_logits_bias"][[PAD_ID, BOS_ID]] = NEVER
    for stack in ("encoder", "decoder"):  # the sinusoids are computed, not learned: a stored table must be ours
        stored = tensors.get(f"{stack}.embed_positions.weight")
        tolerance = 8 * torch.finfo(stored.dtype).eps if stored is not None and stored.is_floating_point() else 1e-4
        if stored is not None and not torch.allclose(
            stored.float(), sinusoid_table(stored.size(0), stored.size(1), "halves"), atol=max(1e-4, tolerance)
        ):
            raise CheckpointError(f"{where}: {stack}.embed_positions.weight is not Marian's sinusoidal table")
    expected = state_shapes(config)
    found = {k: TensorInfo.of(v) for k, v in state.items()}
    problems = mismatches(expected, found, unexpected=False)  # the renaming takes only what it knows
    if problems:
        raise CheckpointError(f"{where}: the weights do not match the Marian config: {problems}")
    bad = [k for k in expected if not torch.isfinite(state[k]).all()]
    if bad:
        raise CheckpointError(f"{where}: the weights have non-finite values in {', '.join(bad[:5])}")
    return {k: state[k].float() for k in expected}


def read_tokenizer(folder: Path, order: list[int], vocab: dict) -> PairTokenizer:
    """The source and target SentencePiece models and the vocabulary in this project's id order."""
    if (folder / "target_vocab.json").is_file():
        raise CheckpointError(f"{folder}: separate source and target vocabularies (target_vocab.json) do not convert")
    files = {}
    for name in ("source.spm", "target.spm"):
        size = (folder / name).stat().st_size
        if size > MAX_SPM_BYTES:
            raise CheckpointError(f"{folder / name} has {size:,} bytes, more than the {MAX_SPM_BYTES:,} allowed")
        files[name] = (folder / name).read_bytes()
    by_id = {i: piece for piece, i in vocab.items()}
    pieces = [by_id[i] for i in order]
    try:
        return PairTokenizer(files["source.spm"], files["target.spm"], pieces)
    except ValueError as exc:
        raise CheckpointError(f"{folder}: {exc}") from None


def languages_of(folder: Path, source_name: str, given: LanguagePair | None) -> LanguagePair:
    """The pair: as given, else from tokenizer_config.json's source_lang/target_lang, else from the model's name."""
    if given is not None:
        return given
    config = folder / "tokenizer_config.json"
    if config.is_file():
        data = _read_json(config)
        src, tgt = data.get("source_lang"), data.get("target_lang")
        if isinstance(src, str) and isinstance(tgt, str):
            try:
                return LanguagePair(src, tgt)
            except ValueError:
                pass
    found = from_model_name(source_name)
    if found is None:
        raise CheckpointError(
            f"{folder}: cannot tell which languages {source_name!r} translates (no source_lang/target_lang in "
            "tokenizer_config.json, no pair in its name): convert it with `python -m explorer.model.marian SRC OUT "
            "--source-language en --target-language fr`"
        )
    return found


def licence_of(folder: Path, source_name: str) -> str:
    """The licence the source's model card declares (its `license:` line), else opus-mt's CC-BY 4.0 by name."""
    card = folder / "README.md"
    if card.is_file() and card.stat().st_size < MAX_JSON_BYTES:
        for line in card.read_text(encoding="utf-8", errors="replace").splitlines()[:40]:
            if line.startswith("license:"):
                return line.split(":", 1)[1].strip()[:40] or "unknown"
    return OPUS_LICENCE if "opus-mt" in source_name else "unknown (see the source model's card)"


def read_marian(
    folder: str | Path,
    source_name: str | None = None,
    languages: LanguagePair | None = None,
    device: str | torch.device = "cpu",
) -> Checkpoint:
    """Convert a Marian folder into a loaded checkpoint of this project, in memory; `source_name` names the model
    ("Helsinki-NLP/opus-mt-en-de"; default: the folder's name)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"{folder} is not a directory")
    missing = [name for name in ("config.json", *TOKENIZER_FILES) if not (folder / name).is_file()]
    if missing:
        raise CheckpointError(f"Marian folder {folder} is missing {', '.join(missing)}")
    source_name = source_name or folder.resolve().name
    hf = _read_json(folder / "config.json")
    if hf.get("model_type") != "marian":
        raise CheckpointError(f"{folder / 'config.json'} has model_type {str(hf.get('model_type'))[:40]!r}, not marian")
    config = model_config(hf, folder / "config.json")
    vocab = _read_json(folder / "vocab.json")
    order = vocabulary_order(hf, vocab, folder / "vocab.json")
    tokenizer = read_tokenizer(folder, order, vocab)
    pair = languages_of(folder, source_name, languages)
    state = convert_state(read_weights(folder), config, order, folder)
    model = Transformer(config)
    model.load_state_dict(state)
    model.to(device).eval()
    licence = licence_of(folder, source_name)
    metadata = {
        "name": f"{source_name.split('/')[-1][:60]} ({pair.source}→{pair.target}, Marian)",
        "parameters": model.num_parameters(),
        "converted_from": {"format": "marian", "source": source_name[:200], "licence": licence},
        "data_credit": f"{source_name[:200]}, licence {licence}: converted from Marian by explorer.model.marian"[:400],
    }
    try:  # what the app shows of it is plain text, as of every checkpoint
        metadata = validate_metadata(metadata, config)
    except ValueError as exc:
        raise CheckpointError(f"{folder}: cannot describe the converted model: {exc}") from None
    return Checkpoint(model, tokenizer, metadata, folder, pair)


def card(ckpt: Checkpoint) -> str:
    """The model card of a converted checkpoint: the source, its licence, what the conversion did."""
    source = ckpt.metadata["converted_from"]
    c = ckpt.model.config
    return f"""# {ckpt.metadata["name"]}

Converted from the Marian model **{source["source"]}** ({ckpt.languages.label}) by `python -m explorer.model.marian`.

- **Licence:** {source["licence"]}, the source model's. Keep its attribution when you share this checkpoint.
- **Architecture:** {c.n_encoder_layers}+{c.n_decoder_layers} layers, d_model {c.d_model}, {c.n_heads} heads,
  feed-forward {c.d_ff} ({c.activation}), post-LN, sinusoidal positions in Marian's layout (the sines, then the
  cosines), embeddings scaled by {c.embed_scale:.4g}, a final logits bias; {ckpt.model.num_parameters():,} weights.
- **The conversion:** the weights renamed into this project's model class; the vocabulary rows permuted so that pad,
  <unk>, <s> and </s> take this project's ids 0-3 (Marian's pad row, its decoder start, serves as pad and <s>, so the
  vocabulary has {c.vocab_size:,} rows, one more than the source's); the logit biases of pad and <s> set to {NEVER:g}
  so that they are never written (the source's generation config forbids pad). The source's `source.spm`,
  `target.spm` and the vocabulary in the new order are kept. `tests/test_marian.py` holds conversions of tiny random
  models to `transformers`' MarianMTModel: the same logits, attention maps, greedy and beam outputs.
- **Not converted:** the source's punctuation normalisation (Moses, in `transformers` when `sacremoses` is
  installed). A multilingual model's target tag (">>fra<<" before the sentence) is read as one piece, as
  `transformers` reads it.
"""


def convert(
    source: str | Path, out: str | Path, source_name: str | None = None, languages: LanguagePair | None = None
) -> Path:
    """Convert a Marian folder into a checkpoint directory `out`."""
    ckpt = read_marian(source, source_name, languages)
    return save_checkpoint(out, ckpt.model, ckpt.tokenizer, ckpt.metadata, card(ckpt), languages=ckpt.languages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Convert a Marian (opus-mt) folder into an Attention Explorer checkpoint."
    )
    parser.add_argument("source", help="a folder as transformers saves a MarianMTModel")
    parser.add_argument("out", help="the checkpoint directory to write")
    parser.add_argument("--name", help="the source model's name for the card (default: the folder's name)")
    parser.add_argument("--source-language", help="the source language's code (default: from the tokenizer config)")
    parser.add_argument("--target-language", help="the target language's code")
    args = parser.parse_args(argv)
    try:
        pair = None
        if args.source_language or args.target_language:
            pair = LanguagePair(args.source_language or "", args.target_language or "")
        path = convert(args.source, args.out, args.name, pair)
    except (CheckpointError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
