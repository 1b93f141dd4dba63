"""Short in-app training runs: one at a time per server, each known by a secret id, with live progress.

`TrainingRuns.start` checks a `schemas.TrainRequest`, takes the server's one training slot and trains in a thread of
its own. The run's state (`TrainingRun.state`: step, fraction, message, the loss history and an attention snapshot of a
probe pair, which the browser draws, then the trained model's key) changes as it goes; the API streams it
(`GET /ae/api/train/{run}/events`). At the end the model is registered in the `ModelRegistry` under a key of its own
(every route takes it as `model=KEY`, for `MODEL_IDLE_S` after its last use) and its checkpoint is zipped. A run and
its files live `RUN_IDLE_S` after it was last asked about, at most `MAX_RUNS` of them: then its folder is deleted.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path

from cachetools import TTLCache

from ..errors import UserError
from ..interpret.handle import ModelHandle, device_label
from ..interpret.hooks import record
from ..model.checkpoint import load_checkpoint
from ..model.config import BOS_ID, ModelConfig
from ..training.data import MINI_CORPUS, clean, read_tsv, split_by_source
from ..training.loss import smoothing_floor
from ..training.trainer import TrainConfig, Trainer
from .models import ModelRegistry
from .schemas import TrainRequest
from .uploads import MAX_UPLOAD_BYTES

log = logging.getLogger("explorer.train")
MAX_UPLOAD_PAIRS = 20_000
MIN_PAIRS = 20
CORPORA = {"mini": "bundled mini corpus", "upload": "my uploaded TSV"}  # what a run trains on
PRESETS = {  # the models a person may train in the app: seconds to a few minutes on a CPU
    "tiny": ModelConfig(
        vocab_size=600, d_model=64, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=128, dropout=0.0, max_len=64
    ),
    "small": ModelConfig(
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
RUN_IDLE_S = 2 * 3600  # a run (its state and checkpoint zip) not asked about for this long is deleted
MAX_RUNS = 64  # runs kept at once, as many as trained models; the least recently asked about goes first
MAX_FOLLOWERS = 4  # event streams one run has open at once (its owner's page, a reload, another tab)


def preset_label(name: str) -> str:
    c = PRESETS[name]
    return f"{name} (d_model {c.d_model}, {c.n_encoder_layers}+{c.n_decoder_layers} layers, {c.n_heads} heads)"


class TrainingBusy(UserError):
    """The server's one training slot is taken (409)."""

    status = 409


class UnknownRun(UserError):
    """A run id the server holds no run for (404)."""

    status = 404


class TooManyFollowers(UserError):
    """A run's event streams are all open (429)."""

    status = 429


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
            raise TrainingBusy(
                f"Another person is training a model on this server right now (one training job at a time; it started "
                f"{elapsed:.0f} s ago and has at most {left:.0f} s left). Please try again shortly; exploring works "
                "meanwhile."
            )
        self.started, self.budget_s = time.monotonic(), budget_s

    def release(self) -> None:
        self._lock.release()


SLOT = TrainingSlot()


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


class TrainingRun:
    """One run: its folder, its trainer while it trains, and its state as the API sends it (`state_json`)."""

    def __init__(self):
        self.id = secrets.token_urlsafe(18)
        self.folder = tempfile.TemporaryDirectory(prefix="ae-train-")  # deleted when the run is dropped
        self.lock = threading.Lock()
        self.version = 0  # bumped by every change: a stream sends the state when it moved
        self.trainer: Trainer | None = None
        self.archive: Path | None = None
        self.state: dict = {"step": 0, "fraction": 0.0, "message": "Starting…", "done": False, "model": None}
        self.stopping = False  # asked to stop (before its trainer existed, too)
        self.followers = 0
        self.json: tuple[int, str] = (-1, "")  # the state as JSON, made once per version however many follow

    def update(self, **state) -> None:
        with self.lock:
            self.state = self.state | state
            self.version += 1

    def state_json(self) -> tuple[int, str]:
        """(version, the state as JSON): what one event of the stream carries."""
        with self.lock:
            if self.json[0] != self.version:
                state = self.state | {"checkpoint": self.archive is not None}
                self.json = (self.version, json.dumps(state, allow_nan=False))
            return self.json

    def follow(self) -> None:
        with self.lock:
            if self.followers >= MAX_FOLLOWERS:
                raise TooManyFollowers(
                    f"This run already has {self.followers} pages following it; close one (each may follow it once)."
                )
            self.followers += 1

    def leave(self) -> None:
        with self.lock:
            self.followers -= 1

    def stop(self) -> str:
        if self.state["done"]:
            return "This run is not training any more."
        self.stopping = True
        if self.trainer is not None:
            self.trainer.stop()
        return "Stopping after the current step…"


class TrainingRuns:
    """The runs this server holds, by id (`cachetools.TTLCache`: each lives `RUN_IDLE_S` after it was last asked
    about, `MAX_RUNS` at most), trained one at a time (`slot`); the models they make go to `models`."""

    def __init__(self, models: ModelRegistry, slot: TrainingSlot = SLOT, idle_s: float = RUN_IDLE_S):
        self.models, self.slot = models, slot
        self.runs: TTLCache[str, TrainingRun] = TTLCache(maxsize=MAX_RUNS, ttl=idle_s)
        self.lock = threading.Lock()

    def start(self, asked: TrainRequest, owner: str = "") -> TrainingRun:
        """Check `asked` (its upload read and checked first), take the slot, and train in a thread of its own for
        `owner` (an address, which holds half the server's trained models at most)."""
        if asked.preset not in PRESETS:
            raise UserError(f"Unknown model size {asked.preset[:40]!r}; choose one of: {', '.join(PRESETS)}.")
        if asked.corpus == "upload" and not asked.upload:
            raise UserError(
                "Choose a TSV file to upload (English TAB German per line), or pick the bundled mini corpus."
            )
        # before the slot: a run never trains for minutes to be refused its model at the end
        self.models.room_for_one(owner)
        if asked.corpus == "upload":
            pairs = read_upload(self.models.uploads.path(asked.upload))
        else:
            pairs = clean(read_tsv(MINI_CORPUS))
        self.slot.acquire(asked.minutes * 60 + 30)
        try:
            run = TrainingRun()
            with self.lock:
                self.runs.expire()
                self.runs[run.id] = run
            threading.Thread(target=self._train, args=(run, asked, pairs, owner), name="ae-train", daemon=True).start()
        except BaseException:
            self.slot.release()
            raise
        return run

    def keep(self, run: TrainingRun) -> None:
        """`run` lives `RUN_IDLE_S` from now (it is training, being followed, or just finished)."""
        with self.lock:
            self.runs[run.id] = run

    def get(self, run_id: str) -> TrainingRun:
        """The run of `run_id`, its lifetime started again; or a 404 that says why it may be gone."""
        with self.lock:
            self.runs.expire()  # the runs past their lifetime go now, their folders with them
            run = self.runs.get(run_id)
            if run is not None:
                self.runs[run_id] = run  # asked about: it lives RUN_IDLE_S from now
        if run is None:
            raise UnknownRun(
                f"No training run {run_id[:12]!r}… on this server: a run is kept {self.runs.ttl / 3600:g} hours after "
                "it was last looked at, and none survives a restart. Train a new model."
            )
        return run

    def _train(self, run: TrainingRun, asked: TrainRequest, pairs: list[tuple[str, str]], owner: str) -> None:
        """The run's thread: train, register the model, zip its checkpoint; every failure is said in its message."""
        try:
            self._steps(run, asked, pairs, owner)
        except UserError as exc:
            run.update(done=True, message=str(exc))
        except Exception:  # noqa: BLE001 - the server goes on; the person is told
            log.exception("training run failed")
            run.update(done=True, message="The training run failed on the server (it has been logged). Try again.")
        finally:
            run.trainer = None
            self.keep(run)  # its lifetime starts when it is done
            self.slot.release()
            for item in Path(run.folder.name).iterdir():  # the working files go; the checkpoint zip stays
                if item.is_dir():
                    shutil.rmtree(item, ignore_errors=True)

    def _steps(self, run: TrainingRun, asked: TrainRequest, pairs: list[tuple[str, str]], owner: str) -> None:
        folder = Path(run.folder.name)
        config = TrainConfig(
            model=PRESETS[asked.preset],
            data=[asked.corpus],
            valid_fraction=VALID_FRACTION,
            out=str(folder / "model"),
            work_dir=str(folder / "work"),
            max_tokens=2048,
            lr=3e-3,
            warmup=60,
            eval_every=0,
            bleu_sample=50,
            max_minutes=asked.minutes,
            save_every_minutes=1e9,
            seed=asked.seed,
            log_every=10,
        )
        train, valid = split_by_source(pairs, VALID_FRACTION, asked.seed)
        try:
            trainer = run.trainer = Trainer.from_pairs(config, train, valid, log=lambda *_: None)
        except ValueError as exc:  # e.g. every pair longer than the model takes
            raise UserError(
                f"This data cannot train a model: {exc}. Use shorter sentences, one pair per line."
            ) from None
        if run.stopping:  # Stop came while the trainer was being made
            trainer.stop()
        floor = smoothing_floor(config.label_smoothing, trainer.model.config.vocab_size)
        where = device_label(trainer.device)
        run.update(message=f"Training on {where}: {len(train)} pairs, vocabulary {trainer.tokenizer.vocab_size}.")
        for event in trainer.run():
            charts = {"loss": _losses(trainer.history, floor), "snapshot": _probe_snapshot(trainer, train[0])}
            if not event.done:
                message = f"On {where}. " + step_message(event.step, event.loss, event.tokens_per_s, floor)
                run.update(
                    **charts,
                    step=event.step,
                    fraction=min(1.0, event.elapsed_s / (asked.minutes * 60)),
                    message=message,
                )
                continue
            path = trainer.export()
            checkpoint = load_checkpoint(path, next(self.models.shipped.model.parameters()).device)  # served there
            name = f"your model ({asked.preset}, {event.step} steps)"
            handle = ModelHandle(name, checkpoint.model, checkpoint.tokenizer, checkpoint.metadata)
            key = self.models.register(handle, owner)
            run.archive = Path(shutil.make_archive(str(folder / "trained-checkpoint"), "zip", path))
            stopped = "stopped early; " if trainer.stopped else ""
            valid_scores = event.valid or {}
            message = (
                f"Done ({stopped}{event.step} steps in {event.elapsed_s:.0f} s on {where}). Validation BLEU "
                f"{valid_scores.get('bleu', '–')}, chrF {valid_scores.get('chrf', '–')}. Tick 'Explore my trained "
                f"model' to look inside it (through the API: model={key})."
            )
            run.update(**charts, step=event.step, fraction=1.0, message=message, done=True, model=key, name=name)


def _losses(history: list[dict], floor: float) -> dict:
    """The loss curve's points: training loss by step, validation loss and BLEU by step, the smoothing floor."""
    train = [[h["step"], _finite(h.get("loss"))] for h in history if not h.get("valid")]
    valid = [[h["step"], _finite(h.get("loss")), _finite(h.get("bleu"))] for h in history if h.get("valid")]
    return {"train": train, "valid": valid, "floor": _finite(floor)}


def _finite(x) -> float | None:
    """A number as JSON can carry it: rounded, or None (a diverged run's NaN, a missing value)."""
    return round(float(x), 4) if x is not None and math.isfinite(x) else None


def _probe_snapshot(trainer: Trainer, probe: tuple[str, str]) -> dict:
    """Cross-attention (mean over the last layer's heads) of one training pair under teacher forcing."""
    tok = trainer.tokenizer
    src = tok.encode_source(probe[0], PROBE_TOKENS)
    tgt = tok.encode(probe[1])[: PROBE_TOKENS - 1]
    maps, _ = record(trainer.model, [src], [[BOS_ID] + tgt], ("cross",))
    weights = maps.weights["cross"][-1][0].mean(0).numpy()  # (T + 1, S)
    return {
        "weights": weights.round(4).tolist(),
        "rows": tok.pieces(tgt) + ["</s>"],
        "columns": tok.pieces(src),
        "title": f"Alignment emerging: last layer, mean of heads, step {trainer.step}",
    }
