"""The model handle: a loaded model with its tokenizer, metadata, default view and fingerprint."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from ..model.metadata import MAX_NAME_CHARS, is_plain_text
from ..model.tokenizer import Tokenizer
from ..model.transformer import Transformer
from .request import HEAD_MEAN

if TYPE_CHECKING:
    from ..model.checkpoint import Checkpoint


@dataclass
class ModelHandle:
    """A model the explorer can use, with what the UI needs to know about it."""

    name: str
    model: Transformer
    tokenizer: Tokenizer
    metadata: dict = field(default_factory=dict)
    default_view: tuple[str, int, str] = ("cross", 0, HEAD_MEAN)  # (kind, layer, head as "2" or "mean") shown first
    fingerprint: str = ""  # identifies the weights and vocabulary: part of every trace-cache key

    def __post_init__(self):
        if not self.fingerprint:
            self.fingerprint = fingerprint(self.model, self.tokenizer)

    @property
    def config(self):
        return self.model.config

    @property
    def best_head(self) -> tuple[str, int, int] | None:
        """The single head the alignment evaluation found best, if the checkpoint names one."""
        kind, layer, head = self.default_view
        return (kind, int(layer), int(head)) if str(head).isdigit() else None


def fingerprint(model: Transformer, tokenizer: Tokenizer) -> str:
    """A short hash of the config, every weight and the tokenizer: equal fingerprints decode alike."""
    digest = hashlib.sha256(repr(model.config).encode())
    with torch.no_grad():
        for name, tensor in sorted(model.state_dict().items()):
            digest.update(name.encode())
            digest.update(tensor.detach().float().cpu().contiguous().numpy().tobytes())
    digest.update(tokenizer.model_proto)
    return digest.hexdigest()[:16]


def load_handle(path, name: str | None = None) -> ModelHandle:
    """Load a checkpoint for the explorer; its alignment finding (if any) picks the default view."""
    from ..model.checkpoint import load_checkpoint

    ckpt = load_checkpoint(path)
    view = ("cross", ckpt.model.config.n_decoder_layers - 1, HEAD_MEAN)
    alignment = ckpt.metadata.get("alignment")  # validated: its best head exists in this model
    if alignment and alignment["best"]["layer"] != "all":
        view = ("cross", alignment["best"]["layer"], str(alignment["best"]["head"]))
    return ModelHandle(name or display_name(ckpt), ckpt.model, ckpt.tokenizer, ckpt.metadata, view)


def display_name(ckpt: Checkpoint) -> str:
    """What the app calls a checkpoint: its metadata's name, else its model card's title, else its directory's
    name; never a path of the server's filesystem."""
    from ..model.checkpoint import card_title

    if ckpt.metadata.get("name"):  # validated plain text
        return ckpt.metadata["name"]
    for candidate in (card_title(ckpt.path), Path(ckpt.path).resolve().name):
        if is_plain_text(candidate, MAX_NAME_CHARS):
            return candidate
    return "unnamed model"
