"""Checkpoint directories: safetensors weights, config.json, the SentencePiece model and a model card.

Layout of a checkpoint directory:
    model.safetensors   weights (fp32 or fp16), no pickle
    config.json         {"format": ..., "model": ModelConfig, "training": metadata}
    tokenizer.model     the joint SentencePiece model
    README.md           the model card
Saving writes a sibling temporary directory and renames it into place, so a crash never leaves a
half-written checkpoint. Loading validates everything and names what is wrong.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from .config import ModelConfig
from .model import Transformer
from .tokenizer import Tokenizer

FORMAT = "attention-explorer-checkpoint/1"
FILES = ("model.safetensors", "config.json", "tokenizer.model")


class CheckpointError(ValueError):
    """A checkpoint directory that cannot be loaded; the message says why."""


@dataclass
class Checkpoint:
    """A loaded checkpoint: the model (eval mode), its tokenizer and training metadata."""

    model: Transformer
    tokenizer: Tokenizer
    metadata: dict = field(default_factory=dict)
    path: Path | None = None


def save_checkpoint(
    path: str | Path,
    model: Transformer,
    tokenizer: Tokenizer,
    metadata: dict | None = None,
    card: str = "",
    dtype: torch.dtype = torch.float32,
    extra_files: dict[str, bytes] | None = None,
) -> Path:
    """Write a checkpoint directory atomically; `dtype` float16 halves the weights file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        tensors = {k: v.detach().to("cpu", dtype).contiguous() for k, v in model.state_dict().items()}
        save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": FORMAT})
        config = {"format": FORMAT, "model": model.config.to_dict(), "training": metadata or {}}
        (tmp / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        tokenizer.save(tmp / "tokenizer.model")
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
    """Load and validate a checkpoint directory; raises CheckpointError with the reason."""
    path = Path(path)
    if not path.is_dir():
        raise CheckpointError(f"checkpoint {path} is not a directory")
    missing = [name for name in FILES if not (path / name).is_file()]
    if missing:
        raise CheckpointError(f"checkpoint {path} is missing {', '.join(missing)}")

    try:
        config_data = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path / 'config.json'} is not valid JSON ({exc})") from None
    if not isinstance(config_data, dict) or config_data.get("format") != FORMAT:
        found = config_data.get("format") if isinstance(config_data, dict) else type(config_data).__name__
        raise CheckpointError(f"{path / 'config.json'} has format {found!r}, expected {FORMAT!r}")
    try:
        config = ModelConfig.from_dict(config_data.get("model"))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path / 'config.json'}: invalid model config: {exc}") from None

    try:
        tokenizer = Tokenizer.load(path / "tokenizer.model")
    except ValueError as exc:
        raise CheckpointError(f"{path / 'tokenizer.model'}: {exc}") from None
    if tokenizer.vocab_size != config.vocab_size:
        raise CheckpointError(
            f"tokenizer.model has {tokenizer.vocab_size} pieces but the config says vocab_size={config.vocab_size}"
        )

    try:
        tensors = load_file(str(path / "model.safetensors"))
    except (SafetensorError, OSError, ValueError) as exc:
        raise CheckpointError(f"{path / 'model.safetensors'} is not a readable safetensors file ({exc})") from None

    model = Transformer(config)
    expected = model.state_dict()
    problems = [f"missing tensor {k}" for k in expected if k not in tensors]
    problems += [f"unexpected tensor {k}" for k in tensors if k not in expected]
    problems += [
        f"tensor {k} has shape {tuple(tensors[k].shape)}, expected {tuple(v.shape)}"
        for k, v in expected.items()
        if k in tensors and tensors[k].shape != v.shape
    ]
    problems += [f"tensor {k} has dtype {v.dtype}, expected a float type" for k, v in tensors.items() if not v.is_floating_point()]
    if problems:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise CheckpointError(f"{path / 'model.safetensors'} does not match its config: {shown}")
    bad = [k for k, v in tensors.items() if not torch.isfinite(v).all()]
    if bad:
        raise CheckpointError(f"{path / 'model.safetensors'} has non-finite values in {', '.join(bad[:5])}")

    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    model.to(device).eval()
    return Checkpoint(model, tokenizer, config_data.get("training") or {}, path)


def update_metadata(path: str | Path, updates: dict, card: str | None = None) -> None:
    """Merge `updates` into a checkpoint's training metadata (and replace its model card), atomically per file."""
    path = Path(path)
    config_path = path / "config.json"
    try:
        data = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"cannot update {config_path}: {exc}") from None
    data.setdefault("training", {}).update(updates)
    _write_atomic(config_path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if card is not None:
        _write_atomic(path / "README.md", card)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
