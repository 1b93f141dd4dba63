"""Short in-app training runs: one at a time per server, owned by one session, with live snapshots.

`run_training` is a generator the UI iterates: it yields `TrainingUpdate`s (progress, loss history,
an attention snapshot of a probe sentence) and finally installs the trained model in the session
that asked for it, never anywhere else. Its files live in the session's directory: the data and
working files are deleted when the run ends, the checkpoint zip when the session does.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..interpret.handle import ModelHandle, device_label
from ..interpret.hooks import record
from ..interpret.request import UserError, shown
from ..model.checkpoint import load_checkpoint
from ..model.config import BOS_ID, ModelConfig
from ..training.data import MINI_CORPUS, clean, read_tsv, split_by_source
from ..training.loss import smoothing_floor
from ..training.loss_curve import loss_curve
from ..training.trainer import TrainConfig, Trainer
from . import figures
from .limits import bounded
from .session import ExplorerSession
from .uploads import MAX_UPLOAD_BYTES

MAX_UPLOAD_PAIRS = 20_000
MIN_PAIRS = 20
CORPORA = {"mini": "bundled mini corpus", "upload": "my uploaded TSV"}  # what a run trains on
PRESETS = {  # the models a person may train in the app: seconds to a few minutes on a CPU
    "tiny (d_model 64, 2+2 layers, 4 heads)": ModelConfig(
        vocab_size=600, d_model=64, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=128, dropout=0.0, max_len=64
    ),
    "small (d_model 128, 3+3 layers, 4 heads)": ModelConfig(
        vocab_size=1000,
        d_model=128,
        n_heads=4,
        n_encoder_layers=3,
        n_decoder_layers=3,
        d_ff=256,
        dropout=0.0,
        max_len=64,
    ),
}
VALID_FRACTION = 0.05  # of the pairs, held out for the final BLEU
PROBE_TOKENS = 61  # the probe pair's tokens shown in the live snapshot (each side)


class TrainingSlot:
    """The server's single training slot; `acquire` fails fast with a message saying when it frees up."""

    def __init__(self):
        self._lock = threading.Lock()
        self.started = 0.0
        self.budget_s = 0.0

    def acquire(self, budget_s: float) -> None:
        if not self._lock.acquire(blocking=False):
            elapsed = time.monotonic() - self.started
            left = max(0.0, self.budget_s - elapsed)
            raise UserError(
                f"Another person is training a model on this server right now (one training job at a time; it started "
                f"{elapsed:.0f} s ago and has at most {left:.0f} s left). Please try again shortly; exploring works "
                "meanwhile."
            )
        self.started, self.budget_s = time.monotonic(), budget_s

    def release(self) -> None:
        self._lock.release()


SLOT = TrainingSlot()


@dataclass
class TrainingUpdate:
    step: int
    fraction: float  # 0..1 of the time budget
    message: str
    loss_figure: object
    snapshot: object | None  # cross-attention of the probe pair
    done: bool = False
    checkpoint_zip: Path | None = None


def read_upload(path: str | Path) -> list[tuple[str, str]]:
    """Pairs from an uploaded TSV, checked for size, encoding and format with messages a person can act on."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_UPLOAD_BYTES:
        raise UserError(f"The file is {size / 1e6:.1f} MB; uploads are limited to {MAX_UPLOAD_BYTES / 1e6:.0f} MB.")
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise UserError(
            "That file is not text (it contains binary data). Upload a UTF-8 TSV: English TAB German per line."
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"That file is not UTF-8 text (byte {exc.start} is invalid). Save it as UTF-8 and upload again."
        ) from None
    pairs = clean(read_tsv(path))
    if len(pairs) < MIN_PAIRS:
        raise UserError(
            f"Found {len(pairs)} usable pair(s); at least {MIN_PAIRS} lines of the form 'English TAB German' are "
            "needed."
        )
    return pairs[:MAX_UPLOAD_PAIRS]


def step_message(step: int, loss: float, tokens_per_s: float, floor: float) -> str:
    """The Train tab's line during training; near the label-smoothing floor it says why the curve is flat."""
    text = f"Step {step}: loss {loss:.3f} (lowest possible {floor:.2f}), {tokens_per_s:.0f} target tokens/s."
    if loss < floor + 0.25:
        text += (
            " The loss cannot fall below that line: label smoothing keeps some probability on every other word. "
            "A curve flat near it has learnt the training pairs; training has not stalled."
        )
    return text


def run_training(
    session: ExplorerSession,
    preset: str,
    minutes: float,
    upload: str | None = None,
    seed: int = 0,
    font_size: int = figures.NORMAL_FONT,
    slot: TrainingSlot = SLOT,
    corpus: str = "mini",
) -> Iterator[TrainingUpdate]:
    """Train a fresh model for this session only, on the mini corpus or the uploaded TSV at `upload` (`corpus`
    "upload"); yields progress; installs the model in `session` at the end. Every option is checked first."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise UserError(f"Unknown model size {shown(preset)}; choose one of: {', '.join(PRESETS)}.")
    minutes = bounded(minutes, "minutes")
    seed = bounded(seed if seed is not None else 0, "seed", integer=True)
    if not isinstance(corpus, str) or corpus not in CORPORA:
        raise UserError(f"Unknown data choice {shown(corpus)}; choose one of: {', '.join(CORPORA)}.")
    if corpus == "upload" and not upload:
        raise UserError("Choose a TSV file to upload (English TAB German per line), or pick the bundled mini corpus.")
    pairs = read_upload(upload) if corpus == "upload" else clean(read_tsv(MINI_CORPUS))
    slot.acquire(minutes * 60 + 30)
    workdir = session.new_training_dir()
    try:
        config = TrainConfig(
            model=PRESETS[preset],
            data=[corpus],
            valid_fraction=VALID_FRACTION,
            out=str(workdir / "model"),
            work_dir=str(workdir / "work"),
            max_tokens=2048,
            lr=3e-3,
            warmup=60,
            eval_every=0,
            bleu_sample=50,
            max_minutes=minutes,
            save_every_minutes=1e9,
            seed=seed,
            log_every=10,
        )
        train, valid = split_by_source(pairs, VALID_FRACTION, seed)
        trainer = Trainer.from_pairs(config, train, valid, log=lambda *_: None)
        session.training = trainer
        floor = smoothing_floor(config.label_smoothing, trainer.model.config.vocab_size)
        probe = train[0]
        where = device_label(trainer.device)
        yield TrainingUpdate(
            0, 0.0, f"Training on {where}: {len(train)} pairs, vocabulary {trainer.tokenizer.vocab_size}.", None, None
        )
        for event in trainer.run():
            snapshot = _probe_snapshot(trainer, probe, font_size)
            if event.done:
                path = trainer.export()
                checkpoint = load_checkpoint(path, next(session.shipped.model.parameters()).device)  # served there
                handle = ModelHandle(
                    f"your model ({preset.split()[0]}, {event.step} steps)",
                    checkpoint.model,
                    checkpoint.tokenizer,
                    checkpoint.metadata,
                )
                session.set_own_model(handle)
                archive = Path(shutil.make_archive(str(workdir / "trained-checkpoint"), "zip", path))
                stopped = "stopped early; " if trainer.stopped else ""
                valid = event.valid or {}
                message = (
                    f"Done ({stopped}{event.step} steps in {event.elapsed_s:.0f} s on {where}). Validation BLEU "
                    f"{valid.get('bleu', '–')}, "
                    f"chrF {valid.get('chrf', '–')}. Tick 'Explore my trained model' to look inside it (through the "
                    f"API, while this session lasts: model={session.own_key})."
                )
                yield TrainingUpdate(
                    event.step, 1.0, message, loss_curve(trainer.history, font_size, floor), snapshot, True, archive
                )
            else:
                fraction = min(1.0, event.elapsed_s / (minutes * 60))
                message = f"On {where}. " + step_message(event.step, event.loss, event.tokens_per_s, floor)
                yield TrainingUpdate(
                    event.step, fraction, message, loss_curve(trainer.history, font_size, floor), snapshot
                )
    finally:
        session.training = None
        slot.release()
        session.end_training(workdir)


def _probe_snapshot(trainer: Trainer, probe: tuple[str, str], font_size: int):
    """Cross-attention (mean over the last layer's heads) of one training pair under teacher forcing."""
    tok = trainer.tokenizer
    src = tok.encode_source(probe[0], PROBE_TOKENS)
    tgt = tok.encode(probe[1])[: PROBE_TOKENS - 1]
    maps, _ = record(trainer.model, [src], [[BOS_ID] + tgt], ("cross",))
    weights = maps.weights["cross"][-1][0].mean(0).numpy()  # (T + 1, S)
    rows = tok.pieces(tgt) + ["</s>"]
    return figures.attention_heatmap(
        weights,
        rows,
        tok.pieces(src),
        "cross",
        f"Alignment emerging: last layer, mean of heads, step {trainer.step}",
        font_size=font_size,
    )
