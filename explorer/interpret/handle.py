"""The model handle: a loaded model with its tokenizer, metadata, default view and fingerprint."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from ..model.languages import LanguagePair
from ..model.metadata import MAX_NAME_CHARS, is_plain_text
from ..model.pair_tokenizer import PairTokenizer
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
    tokenizer: Tokenizer | PairTokenizer
    metadata: dict = field(default_factory=dict)
    default_view: tuple[str, int, str] = ("cross", 0, HEAD_MEAN)  # (kind, layer, head as "2" or "mean") shown first
    fingerprint: str = ""  # identifies the weights and vocabulary: part of every trace-cache key
    languages: LanguagePair = field(default_factory=LanguagePair)  # what it translates: English → German by default

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


def fingerprint(model: Transformer, tokenizer: Tokenizer | PairTokenizer) -> str:
    """A short hash of the config, every weight and the tokenizer: equal fingerprints decode alike."""
    digest = hashlib.sha256(repr(model.config).encode())
    with torch.no_grad():
        for name, tensor in sorted(model.state_dict().items()):
            digest.update(name.encode())
            digest.update(tensor.detach().float().cpu().contiguous().numpy().tobytes())
    for _, data in sorted(tokenizer.files().items()):  # a joint tokenizer: its one model's bytes
        digest.update(data)
    return digest.hexdigest()[:16]


SERVING_DEVICES = ("auto", "cpu", "cuda", "mps")


def serving_device(name: str = "auto") -> torch.device:
    """Where the served models run: `auto` is CUDA when a GPU is there, else the CPU; a device named but not
    available is refused with a message that names it."""
    if name not in SERVING_DEVICES and not name.startswith("cuda:"):
        raise ValueError(f"unknown device {name!r}; choose one of: {', '.join(SERVING_DEVICES)} (or cuda:N)")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {name}: this machine has no CUDA GPU that torch {torch.__version__} can use")
    if name == "mps" and not torch.backends.mps.is_available():
        raise ValueError("--device mps: this machine has no Apple GPU that torch can use")
    return torch.device(name)


def device_label(device: torch.device) -> str:
    """A device as a person reads it: "cuda: NVIDIA H100 80GB HBM3", "cpu (2 threads)"."""
    if device.type == "cuda":
        return f"cuda: {torch.cuda.get_device_name(device)}"
    if device.type == "cpu":
        threads = torch.get_num_threads()
        return f"cpu ({threads} thread{'s' if threads != 1 else ''})"
    return device.type


def load_handle(path, name: str | None = None, device: str | torch.device = "cpu") -> ModelHandle:
    """Load a checkpoint for the explorer onto `device` (any format `formats.open_checkpoint` opens: this project's,
    a Marian folder, `hf:ID`); its alignment finding (if any) picks the default view."""
    from ..model.formats import open_checkpoint

    ckpt = open_checkpoint(path, device)
    view = ("cross", ckpt.model.config.n_decoder_layers - 1, HEAD_MEAN)
    alignment = ckpt.metadata.get("alignment")  # validated: its best head exists in this model
    if alignment and alignment["best"]["layer"] != "all":
        view = ("cross", alignment["best"]["layer"], str(alignment["best"]["head"]))
    return ModelHandle(
        name or display_name(ckpt), ckpt.model, ckpt.tokenizer, ckpt.metadata, view, languages=ckpt.languages
    )


def display_name(ckpt: Checkpoint) -> str:
    """What the app calls a checkpoint: its metadata's name, else its model card's title, else its directory's
    name; never a path of the server's filesystem."""
    from ..model.checkpoint import card_title

    if ckpt.metadata.get("name"):  # validated plain text
        return ckpt.metadata["name"]
    for candidate in (
        card_title(ckpt.path) if ckpt.tokenizer.KIND == Tokenizer.KIND else None,
        Path(ckpt.path).resolve().name,
    ):
        if is_plain_text(candidate, MAX_NAME_CHARS):
            return candidate
    return "unnamed model"
