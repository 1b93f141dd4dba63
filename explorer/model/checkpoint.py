"""Checkpoint directories: safetensors weights, config.json, the SentencePiece model and a model card.

Layout of a checkpoint directory:
    model.safetensors   weights (fp32 or fp16), no pickle
    config.json         {"format": ..., "model": ModelConfig, "training": metadata,
                         "tokenizer": "sentencepiece" | "sentencepiece-pair", "languages": {"source", "target"}}
    tokenizer.model     the joint SentencePiece model (tokenizer "sentencepiece", the default), or
    source.spm, target.spm, vocab.json   one SentencePiece model per language and the shared vocabulary in this
                        project's id order (tokenizer "sentencepiece-pair": models converted from Marian)
    README.md           the model card
A checkpoint without "tokenizer" or "languages" is one of this project's English → German models.
Saving writes a sibling temporary directory and renames it into place, so a crash never leaves a
half-written checkpoint. Loading validates everything and names what is wrong, and checks every size
before it allocates, so a crafted checkpoint fails fast and small.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from .config import MAX_PARAMETERS, ModelConfig
from .languages import LanguagePair
from .metadata import validate_metadata
from .pair_tokenizer import PairTokenizer
from .safetensors_header import TensorInfo, read_header
from .tokenizer import Tokenizer
from .transformer import Transformer, state_shapes

FORMAT = "attention-explorer-checkpoint/1"
FILES = ("model.safetensors", "config.json")  # and the tokenizer's files
TOKENIZERS = {kind.KIND: kind for kind in (Tokenizer, PairTokenizer)}  # by config.json's "tokenizer"
MAX_CONFIG_BYTES = 8 << 20  # the shipped config.json is 42 KB; a long run's loss history stays far below
MAX_JSON_DEPTH = 32  # the shipped config.json nests 7 deep
MAX_TOKENIZER_BYTES = 16 << 20  # a 64k-piece SentencePiece model is ~2 MB


class CheckpointError(ValueError):
    """A checkpoint directory that cannot be loaded; the message says why."""


@dataclass
class Checkpoint:
    """A loaded checkpoint: the model (eval mode), its tokenizer and training metadata."""

    model: Transformer
    tokenizer: Tokenizer | PairTokenizer
    metadata: dict = field(default_factory=dict)
    path: Path | None = None
    languages: LanguagePair = field(default_factory=LanguagePair)


def save_checkpoint(
    path: str | Path,
    model: Transformer,
    tokenizer: Tokenizer,
    metadata: dict | None = None,
    card: str = "",
    dtype: torch.dtype = torch.float32,
    extra_files: dict[str, bytes] | None = None,
    languages: LanguagePair | None = None,
) -> Path:
    """Write a checkpoint directory atomically; `dtype` float16 halves the weights file."""
    path = Path(path)
    try:  # never write what loading would refuse
        validate_metadata(metadata or {}, model.config)
    except ValueError as exc:
        raise CheckpointError(f"cannot save {path}: invalid training metadata: {exc}") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        tensors = {k: v.detach().to("cpu", dtype).contiguous() for k, v in model.state_dict().items()}
        save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": FORMAT})
        config = {"format": FORMAT, "model": model.config.to_dict(), "training": metadata or {}}
        if tokenizer.KIND != Tokenizer.KIND:
            config["tokenizer"] = tokenizer.KIND
        if languages is not None and languages != LanguagePair():
            config["languages"] = languages.to_dict()
        (tmp / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        for name, data in tokenizer.files().items():
            (tmp / name).write_bytes(data)
        (tmp / "README.md").write_text(card, encoding="utf-8")
        for name, data in (extra_files or {}).items():
            (tmp / name).write_bytes(data)
        os.chmod(tmp, 0o755)
        for item in tmp.iterdir():
            os.chmod(item, 0o644)
        old = None
        if path.exists():
            old = path.with_name(f".{path.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> Checkpoint:
    """Load and validate a checkpoint directory; raises CheckpointError with the reason.

    Every size is checked before anything is allocated: the files' sizes, the model config against
    `BOUNDS` and `MAX_PARAMETERS`, and the weights file's header against the shapes the config implies.
    """
    path = Path(path)
    if not path.is_dir():
        raise CheckpointError(f"checkpoint {path} is not a directory")
    missing = [name for name in FILES if not (path / name).is_file()]
    if missing:
        raise CheckpointError(f"checkpoint {path} is missing {', '.join(missing)}")

    config_path = path / "config.json"
    config_data = _read_config(config_path)
    try:
        config = ModelConfig.from_dict(config_data.get("model"))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{config_path}: invalid model config: {exc}") from None
    shapes = state_shapes(config)
    check_parameter_count(config, config_path)
    training = config_data.get("training")
    try:
        metadata = {} if training is None else validate_metadata(training, config)
    except ValueError as exc:
        raise CheckpointError(f"{config_path}: invalid training metadata: {exc}") from None
    try:
        languages = LanguagePair.from_dict(config_data.get("languages"))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{config_path}: invalid languages: {exc}") from None
    tokenizer = _load_tokenizer(path, config_data.get("tokenizer", Tokenizer.KIND), config_path)
    if tokenizer.vocab_size != config.vocab_size:
        raise CheckpointError(
            f"{type(tokenizer).FILES[-1]} has {tokenizer.vocab_size} pieces but the config says "
            f"vocab_size={config.vocab_size}"
        )

    weights = path / "model.safetensors"
    try:
        declared = read_header(weights)
    except (ValueError, OSError) as exc:
        raise CheckpointError(f"{weights} is not a readable safetensors file ({exc})") from None
    problems = mismatches(shapes, declared)
    if problems:
        raise CheckpointError(f"{weights} does not match its config: {problems}")

    try:
        tensors = load_file(str(weights))
    except (SafetensorError, OSError, ValueError) as exc:
        raise CheckpointError(f"{weights} is not a readable safetensors file ({exc})") from None
    bad = [k for k, v in tensors.items() if not torch.isfinite(v).all()]
    if bad:
        raise CheckpointError(f"{weights} has non-finite values in {', '.join(bad[:5])}")

    model = Transformer(config)
    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    model.to(device).eval()
    return Checkpoint(model, tokenizer, metadata, path, languages)


def mismatches(shapes: dict[str, tuple[int, ...]], found: dict[str, TensorInfo], unexpected: bool = True) -> str:
    """What a set of tensors gets wrong against the shapes a config implies, in one line (the first five; "" if
    nothing): a missing tensor, an unexpected one (with `unexpected`), a wrong shape, a dtype that is not a float."""
    problems = [f"missing tensor {k}" for k in shapes if k not in found]
    if unexpected:
        problems += [f"unexpected tensor {k[:80]}" for k in found if k not in shapes]
    problems += [
        f"tensor {k} has shape {found[k].shape}, expected {shape}"
        for k, shape in shapes.items()
        if k in found and found[k].shape != shape
    ]
    problems += [f"tensor {k} has dtype {v.dtype}, expected a float type" for k, v in found.items() if not v.is_float]
    return "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")


def check_parameter_count(config: ModelConfig, where: Path) -> None:
    """Refuse a config whose weights add up to more than `MAX_PARAMETERS`, before anything is allocated."""
    n_weights = sum(math.prod(shape) for shape in state_shapes(config).values())
    if n_weights > MAX_PARAMETERS:
        raise CheckpointError(
            f"{where}: invalid model config: it describes {n_weights:,} weights, "
            f"more than the supported {MAX_PARAMETERS:,}"
        )


def _load_tokenizer(path: Path, kind: object, config_path: Path) -> Tokenizer | PairTokenizer:
    """The tokenizer config.json names, from its files, each size-checked first."""
    if kind not in TOKENIZERS:
        raise CheckpointError(f"{config_path}: tokenizer {str(kind)[:40]!r} is not one of {', '.join(TOKENIZERS)}")
    cls = TOKENIZERS[kind]
    missing = [name for name in cls.FILES if not (path / name).is_file()]
    if missing:
        raise CheckpointError(f"checkpoint {path} is missing {', '.join(missing)}")
    files = {}
    for name in cls.FILES:
        _check_size(path / name, MAX_TOKENIZER_BYTES)
        files[name] = (path / name).read_bytes()
    try:
        return cls.from_files(files)
    except (ValueError, OSError) as exc:
        raise CheckpointError(f"{path / cls.FILES[0]}: {exc}") from None


def _read_config(config_path: Path) -> dict:
    """config.json as a dict in this checkpoint format, its size and nesting bounded."""
    _check_size(config_path, MAX_CONFIG_BYTES)
    try:
        config_data = json.loads(config_path.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of over 4,300 digits
        raise CheckpointError(f"{config_path} is not valid JSON ({exc})") from None
    except RecursionError:
        raise CheckpointError(f"{config_path} is not valid JSON (nested deeper than Python can parse)") from None
    except OSError as exc:
        raise CheckpointError(f"{config_path} cannot be read ({exc})") from None
    depth = _nesting_depth(config_data)
    if depth > MAX_JSON_DEPTH:
        raise CheckpointError(f"{config_path} nests {depth} levels deep, more than the {MAX_JSON_DEPTH} allowed")
    if not isinstance(config_data, dict) or config_data.get("format") != FORMAT:
        found = config_data.get("format") if isinstance(config_data, dict) else type(config_data).__name__
        raise CheckpointError(f"{config_path} has format {str(found)[:60]!r}, expected {FORMAT!r}")
    return config_data


def card_title(path: str | Path) -> str | None:
    """The model card's title: its first `# ` line (from the card's first 64 KB), or None."""
    card = Path(path) / "README.md"
    try:
        if not card.is_file():  # e.g. a named pipe, whose reading would never end
            return None
        with open(card, "rb") as f:
            head = f.read(1 << 16).decode("utf-8", errors="replace")
    except OSError:
        return None
    return next((line[2:].strip() for line in head.splitlines() if line.startswith("# ")), None)


def _check_size(file: Path, limit: int) -> None:
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise CheckpointError(f"{file} cannot be read ({exc})") from None
    if size > limit:
        raise CheckpointError(f"{file} has {size:,} bytes, more than the {limit:,} allowed")


def _nesting_depth(value: object) -> int:
    """How deeply JSON containers nest in `value` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def update_metadata(path: str | Path, updates: dict, card: str | None = None) -> None:
    """Merge `updates` into a checkpoint's training metadata (and replace its model card), atomically per file."""
    path = Path(path)
    config_path = path / "config.json"
    try:
        data = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"cannot update {config_path}: {exc}") from None
    try:  # never write metadata that loading would refuse
        config = ModelConfig.from_dict(data.get("model"))
        data["training"] = validate_metadata((data.get("training") or {}) | updates, config)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"cannot update {config_path}: invalid training metadata: {exc}") from None
    _write_atomic(config_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if card is not None:
        _write_atomic(path / "README.md", card)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
