"""What `--checkpoint` accepts: this project's checkpoint folder, a Marian folder (converted on load), or `hf:ID`, a
Marian model on the Hugging Face Hub, downloaded through `huggingface_hub` into its usual cache, then converted.

Offline and not cached, `hf:` stops with a message that names the model and the command that downloads it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import torch

from .checkpoint import Checkpoint, CheckpointError, load_checkpoint
from .marian import TOKENIZER_FILES, WEIGHT_FILES, is_marian, read_marian

HUB_PREFIX = "hf:"
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}")  # owner/name, as the Hub spells them
# what `hf:` downloads of a Marian repository: the files the conversion reads, and the card (its licence)
HUB_FILES = ["config.json", "generation_config.json", "tokenizer_config.json", "README.md", *TOKENIZER_FILES]


def split_checkpoints(value: str) -> list[str]:
    """EXPLORER_CHECKPOINT's models, separated by os.pathsep; on POSIX that is ":", so "hf:ID" is glued back."""
    parts, out = value.split(os.pathsep), []
    while parts:
        part = parts.pop(0)
        if part + ":" == HUB_PREFIX and parts:
            part = HUB_PREFIX + parts.pop(0)
        if part:
            out.append(part)
    return out


def key_name(spec: str) -> str:
    """The name a served model is known by: the folder's name, or the Hub model's ("opus-mt-en-de")."""
    if spec.startswith(HUB_PREFIX):
        return spec[len(HUB_PREFIX) :].rstrip("/").split("/")[-1]
    return Path(spec).resolve().name


def open_checkpoint(spec: str | Path, device: str | torch.device = "cpu") -> Checkpoint:
    """Load whatever `spec` names onto `device`; a CheckpointError says what is wrong, before anything is served."""
    spec = str(spec)
    if spec.startswith(HUB_PREFIX):
        repo = spec[len(HUB_PREFIX) :].strip("/")
        return read_marian(download(repo), source_name=repo, device=device)
    path = Path(spec)
    if is_marian(path):
        return read_marian(path, device=device)
    if path.is_dir() and not (path / "config.json").is_file():
        raise CheckpointError(
            f"{path} is neither an Attention Explorer checkpoint nor a Marian folder: it has no config.json"
        )
    return load_checkpoint(path, device)


def download(repo: str) -> Path:
    """The Hub repository's files in the local cache, fetched if missing; offline and not cached, a CheckpointError
    that names the model and the command that downloads it."""
    if not HUB_ID.fullmatch(repo):
        raise CheckpointError(f"hf:{repo[:100]} is not a Hub model id such as hf:Helsinki-NLP/opus-mt-en-de")
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled

    command = f"hf download {repo} {' '.join(HUB_FILES)} model.safetensors"
    offline = (
        f"hf:{repo} is not in the local Hugging Face cache and cannot be downloaded now ({{}}). With a network, "
        f"download it first: `{command}`, then start again."
    )
    try:  # the safetensors weights; a repository that has only pytorch_model.bin gets that
        folder = snapshot_download(repo, allow_patterns=[*HUB_FILES, WEIGHT_FILES[0]])
        if not (Path(folder) / WEIGHT_FILES[0]).is_file():
            folder = snapshot_download(repo, allow_patterns=[*HUB_FILES, WEIGHT_FILES[1]])
    except (LocalEntryNotFoundError, OfflineModeIsEnabled) as exc:
        raise CheckpointError(offline.format(type(exc).__name__)) from None
    except HfHubHTTPError as exc:  # 401, 404: no such public model
        raise CheckpointError(f"hf:{repo}: the Hub refused the download ({str(exc).splitlines()[0][:200]})") from None
    except OSError as exc:  # no route to the Hub
        raise CheckpointError(offline.format(type(exc).__name__)) from None
    return Path(folder)
