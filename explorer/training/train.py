"""Training: `python -m explorer.training.train` on the command line, `Trainer` from Python (the app uses it).

AdamW (its fused kernel on CPU and CUDA) with linear warmup and inverse-square-root decay (optionally a
linear cooldown to zero over the last steps before `max_steps`), label smoothing, gradient clipping,
token-count batches, periodic validation (loss, sacreBLEU and chrF of greedy decodes on a sample),
resumable from `WORK_DIR/resume.pt` (model, optimizer, schedule, step, RNG states, history), seedable,
device auto-detected (cuda, mps, cpu) with bf16 autocast on CUDA and on CPUs with native bf16 (AVX512-BF16,
AMX): `--bf16 auto|true|false`. Under `torchrun` it trains with
DistributedDataParallel (gloo on CPU, nccl on GPU); rank 0 validates and saves. On CPU the command line
keeps freed memory in the process (`explorer.training.allocator`), which makes steps faster.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import random
import shlex
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch
import torch.distributed as dist

from .allocator import retain_freed_memory
from ..model.checkpoint import save_checkpoint
from ..model.config import ModelConfig
from .data import Example, clean, collate, encode_pairs, read_corpus, split_by_source, token_batches
from .loss import label_smoothed_cross_entropy
from ..model.transformer import Transformer
from ..model.tokenizer import PAD_ID, Tokenizer

RESUME_FILE = "resume.pt"
# AdamW's single fused kernel: the same update; torch's CPU default, a loop over the 131 parameter tensors,
# took 2x as long per optimizer step and 1.09x as long per bf16 training step (bench/RESULTS.md (a5)).
# MPS has no fused AdamW in every torch version.
FUSED_ADAMW_DEVICES = ("cpu", "cuda")


@dataclass
class TrainConfig:
    """Everything a training run needs; stored in the checkpoint's metadata."""

    data: list[str] = field(default_factory=lambda: ["mini"])  # corpus specs, see data.read_corpus
    valid: str | None = None  # a corpus spec; default: split off valid_fraction of the training data
    valid_fraction: float = 0.05
    out: str = "runs/model"  # checkpoint directory written at the end (and at each validation)
    work_dir: str | None = None  # resume state; default: OUT.work
    vocab_size: int = 8000
    d_model: int = 256
    n_heads: int = 4
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    d_ff: int = 1024
    dropout: float = 0.1
    norm_first: bool = True
    max_len: int = 128  # positions in the model; longer training pairs are dropped
    max_tokens: int = 4096  # padded tokens per batch (per process)
    lr: float = 1e-3
    warmup: int = 1000
    weight_decay: float = 0.01
    label_smoothing: float = 0.1
    clip: float = 1.0
    max_steps: int = 0  # 0: no step limit
    cooldown_steps: int = 0  # lr falls linearly to 0 over the last this many steps before max_steps
    max_minutes: float = 0.0  # 0: no time limit; counts training time across resumes
    eval_every: int = 1000  # steps between validations (0: only at the end)
    save_every_minutes: float = 10.0  # resume state at least this often
    bleu_sample: int = 500  # valid sources (evenly spaced) decoded for BLEU/chrF at each validation
    seed: int = 1234
    device: str = "auto"
    threads: int = 0  # torch CPU threads; 0: leave torch's default
    bf16: str = "auto"  # bf16 autocast: "auto" (CUDA, or a CPU with native bf16), "true", "false"
    save_dtype: str = "float32"  # "float16" halves the exported weights
    log_every: int = 50

    def model_config(self, vocab_size: int) -> ModelConfig:
        """The architecture fields of this config (those ModelConfig also has), with the trained vocabulary's size."""
        shared = {f.name: getattr(self, f.name) for f in fields(ModelConfig) if hasattr(self, f.name)}
        return ModelConfig(**(shared | {"vocab_size": vocab_size}))


@dataclass
class TrainEvent:
    """Progress reported by `Trainer.run()`: every `log_every` steps, at each validation, at the end."""

    step: int
    epoch: int
    loss: float  # mean training loss since the previous event
    lr: float
    tokens_per_s: float
    elapsed_s: float  # training wall time so far (across resumes)
    valid: dict | None = None  # {"loss", "bleu", "chrf", "examples"} at validations
    done: bool = False


def pick_device(name: str = "auto") -> torch.device:
    """cuda, then mps, then cpu, unless a device is named."""
    if name != "auto":
        return torch.device(name)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def inverse_sqrt_schedule(warmup: int, max_steps: int = 0, cooldown_steps: int = 0):
    """Multiplier of the peak lr: linear warmup to 1 at `warmup` steps, then sqrt(warmup / step).

    With `cooldown_steps` (and `max_steps`), the multiplier is also scaled down linearly to 0 over the
    last `cooldown_steps` steps, so the run ends with a fully decayed learning rate.
    """
    warmup = max(1, warmup)
    if cooldown_steps and not max_steps:
        raise ValueError("cooldown_steps needs max_steps")

    def factor(step: int) -> float:
        step = max(1, step)
        value = min(step / warmup, math.sqrt(warmup / step))
        if cooldown_steps:
            value *= min(1.0, max(0.0, (max_steps - step) / cooldown_steps))
        return value

    return factor


def use_bf16(device: torch.device, setting: str = "auto") -> bool:
    """Whether to autocast to bf16: always on CUDA, on CPU only where it has native bf16 instructions."""
    if setting not in ("auto", "true", "false"):
        raise ValueError(f"bf16 must be auto, true or false, not {setting!r}")
    if setting != "auto":
        return setting == "true"
    if device.type == "cuda":
        return True
    return device.type == "cpu" and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def sequence_loss(logits: torch.Tensor, target: torch.Tensor, label_smoothing: float) -> torch.Tensor:
    """Token-mean (label-smoothed) cross-entropy over non-padding targets; logits (B, T, V), target (B, T).

    The same value as `F.cross_entropy(logits.float(), ..., label_smoothing=...)`, computed in chunks
    without float copies of the logits (`explorer.training.loss`).
    """
    return label_smoothed_cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1), label_smoothing, ignore_index=PAD_ID
    )


@torch.no_grad()
def mean_loss(model, examples: list[Example], max_tokens: int, device=None, autocast=contextlib.nullcontext) -> float:
    """Per-piece cross-entropy (no smoothing) of a model in its current mode over examples, batched as in training."""
    total, count = 0.0, 0
    for idx in token_batches(examples, max_tokens):
        src, tgt_in, tgt_out = (t.to(device) for t in collate([examples[i] for i in idx]))
        with autocast():
            logits = model(src, tgt_in)
        n = int((tgt_out != PAD_ID).sum())
        total += sequence_loss(logits, tgt_out, 0.0).item() * n
        count += n
    return total / max(count, 1)


class Trainer:
    """A training run that can be iterated (`run()`), stopped (`stop()`), resumed and exported."""

    def __init__(self, config: TrainConfig, tokenizer: Tokenizer | None = None, log=print):
        self.config = config
        self.log = log
        self.distributed = dist.is_available() and int(os.environ.get("WORLD_SIZE", "1")) > 1
        self.rank, self.world = 0, 1
        self.device = pick_device(config.device)
        if self.distributed:
            if not dist.is_initialized():
                dist.init_process_group("nccl" if self.device.type == "cuda" else "gloo")
            self.rank, self.world = dist.get_rank(), dist.get_world_size()
            if self.device.type == "cuda":
                self.device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
        if config.threads:
            torch.set_num_threads(config.threads)
        self.work_dir = Path(config.work_dir or f"{config.out}.work")
        self.command: str | None = None  # the command line, when run as `python -m explorer.training.train`
        self.resumed_command: str | None = None  # the command that wrote the resume state, if it recorded one
        self._stop = False
        self._seed_everything(config.seed)

        resume = self._read_resume()
        if resume is not None:
            tokenizer = Tokenizer(bytes(resume["tokenizer"].tolist()))
        self.train_pairs, self.valid_pairs = self._read_data()
        if tokenizer is None:
            proto = [None]
            if self.rank == 0:
                proto[0] = Tokenizer.train(
                    [s for pair in self.train_pairs for s in pair], min(config.vocab_size, self._vocab_cap())
                ).model_proto
            if self.distributed:  # one vocabulary: SentencePiece samples big corpora differently in each process
                dist.broadcast_object_list(proto, src=0, device=self.device)
            tokenizer = Tokenizer(proto[0])
        self.tokenizer = tokenizer
        self.train_examples = encode_pairs(tokenizer, self.train_pairs, config.max_len)
        self.valid_examples = encode_pairs(tokenizer, self.valid_pairs, config.max_len)
        if not self.train_examples:
            raise ValueError("no training pairs left after cleaning and the length filter")

        self.model_config = config.model_config(tokenizer.vocab_size)
        self.model = Transformer(self.model_config).to(self.device)
        self.fused_adamw = self.device.type in FUSED_ADAMW_DEVICES
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(),
            lr=config.lr,
            betas=(0.9, 0.98),
            eps=1e-9,
            weight_decay=config.weight_decay,
            fused=self.fused_adamw or None,
        )
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, inverse_sqrt_schedule(config.warmup, config.max_steps, config.cooldown_steps)
        )
        self.bf16 = use_bf16(self.device, config.bf16)
        self.step, self.epoch, self.batch_in_epoch, self.elapsed = 0, 0, 0, 0.0
        self.history: list[dict] = []  # {"step", "loss", "elapsed_s"} and validation entries
        if resume is not None:
            self._load_resume(resume)
        self.ddp_model = self.model
        if self.distributed:
            self.ddp_model = torch.nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None
            )

    # ----- data -------------------------------------------------------------------------------
    def _read_data(self):
        pairs = []
        for spec in self.config.data:
            pairs += read_corpus(spec)
        pairs = clean(pairs)
        if self.config.valid:
            valid = clean(read_corpus(self.config.valid))
            held_out = {s for s, _ in valid}
            train = [p for p in pairs if p[0] not in held_out]  # never train on a valid source
        else:
            train, valid = split_by_source(pairs, self.config.valid_fraction, self.config.seed)
        if self.rank == 0:
            self.log(f"data: {len(train)} training pairs, {len(valid)} validation pairs")
        return train, valid

    def _vocab_cap(self) -> int:
        """SentencePiece fails when asked for more pieces than a small corpus supports."""
        chars = {c for pair in self.train_pairs for s in pair for c in s}
        words = {w for pair in self.train_pairs for s in pair for w in s.split()}
        return max(len(chars) + 8, min(len(words) + len(chars), 1_000_000) // 2)

    def _epoch_batches(self) -> list[list[int]]:
        batches = token_batches(self.train_examples, self.config.max_tokens, seed=self.config.seed + self.epoch)
        if self.world > 1:
            per_rank = len(batches) // self.world
            if per_rank == 0:  # every rank would skip every epoch without ever taking a step
                raise ValueError(
                    f"{len(batches)} batches per epoch cannot feed {self.world} processes; lower max_tokens"
                )
            batches = batches[self.rank * per_rank : (self.rank + 1) * per_rank]
        return batches

    # ----- state ------------------------------------------------------------------------------
    def _seed_everything(self, seed: int) -> None:
        random.seed(seed)
        torch.manual_seed(seed + self.rank)

    def _read_resume(self) -> dict | None:
        path = self.work_dir / RESUME_FILE
        if not path.is_file():
            return None
        state = torch.load(path, map_location="cpu", weights_only=True)
        if self.rank == 0:
            self.log(f"resuming from {path} at step {state['step']}")
        return state

    def _load_resume(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        for group in self.optimizer.param_groups:  # the saved groups' flags would replace this run's choice
            group["fused"], group["foreach"] = self.fused_adamw or None, None
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self.epoch, self.batch_in_epoch = state["step"], state["epoch"], state["batch_in_epoch"]
        self.elapsed = state["elapsed"]
        self.history = json.loads(state["history"])
        self.resumed_command = state.get("command")
        torch.set_rng_state(state["torch_rng"])
        random.setstate(_rng_tuple(json.loads(state["python_rng"])))

    def save_resume(self) -> None:
        """Write everything needed to continue this run (rank 0; atomic rename)."""
        if self.rank != 0:
            return
        self.work_dir.mkdir(parents=True, exist_ok=True)
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "step": self.step,
            "epoch": self.epoch,
            "batch_in_epoch": self.batch_in_epoch,
            "elapsed": self.elapsed,
            "history": json.dumps(self.history),
            "torch_rng": torch.get_rng_state(),
            "python_rng": json.dumps(random.getstate()),
            "tokenizer": torch.tensor(list(self.tokenizer.model_proto), dtype=torch.uint8),
            "train_config": json.dumps(asdict(self.config)),
            "command": self.command or "",
        }
        tmp = self.work_dir / (RESUME_FILE + ".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.work_dir / RESUME_FILE)

    # ----- training ---------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask `run()` to finish after the current step (thread-safe)."""
        self._stop = True

    @property
    def stopped(self) -> bool:
        """`stop()` was called."""
        return self._stop

    def _limit_reached(self) -> bool:
        c = self.config
        reached = bool(
            self._stop
            or (c.max_steps and self.step >= c.max_steps)
            or (c.max_minutes and self.elapsed >= c.max_minutes * 60)
        )
        if self.distributed:  # all ranks stop at the same step, or the others wait forever in all-reduce
            flag = torch.tensor([float(reached)], device=self.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            reached = bool(flag.item())
        return reached

    def _autocast(self):
        if self.bf16:
            return torch.autocast(self.device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def train_step(self, batch: list[Example]) -> tuple[float, int]:
        """One optimizer step on a batch; returns (loss, target tokens)."""
        self.ddp_model.train()
        src, tgt_in, tgt_out = (t.to(self.device) for t in collate(batch))
        with self._autocast():
            logits = self.ddp_model(src, tgt_in)
        loss = sequence_loss(logits, tgt_out, self.config.label_smoothing)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.config.clip:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.clip)
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        return loss.item(), int((tgt_out != PAD_ID).sum())

    def run(self) -> Iterator[TrainEvent]:
        """Train until a limit or `stop()`; yields progress events."""
        c = self.config
        last_save = time.monotonic()
        window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, time.monotonic()
        while not self._limit_reached():
            batches = self._epoch_batches()
            while self.batch_in_epoch < len(batches) and not self._limit_reached():
                t0 = time.monotonic()
                loss, tokens = self.train_step([self.train_examples[i] for i in batches[self.batch_in_epoch]])
                self.batch_in_epoch += 1
                window_loss, window_steps, window_tokens = window_loss + loss, window_steps + 1, window_tokens + tokens
                event = None
                if self.step % c.log_every == 0:
                    now = time.monotonic()
                    event = self._event(window_loss / window_steps, window_tokens / max(now - window_start, 1e-9))
                    self.history.append({"step": self.step, "loss": event.loss, "elapsed_s": round(self.elapsed, 1)})
                    window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, now
                if c.eval_every and self.step % c.eval_every == 0:
                    event = event or self._event(loss, 0.0)
                    event.valid = self.validate()
                    self.export()
                if self.rank == 0 and time.monotonic() - last_save >= c.save_every_minutes * 60:
                    self.save_resume()
                    last_save = time.monotonic()
                self.elapsed += time.monotonic() - t0  # wall time, validation and saving included
                if event is not None:
                    yield event
            if self.batch_in_epoch >= len(batches):
                self.epoch, self.batch_in_epoch = self.epoch + 1, 0
        last = self.history[-1] if self.history else {}
        final = self._event(window_loss / window_steps if window_steps else last.get("loss", 0.0), 0.0)
        already_validated = last.get("valid") and last.get("step") == self.step
        final.valid, final.done = (last if already_validated else self.validate()), True
        self.save_resume()
        self.export()
        yield final

    def _event(self, loss: float, tokens_per_s: float) -> TrainEvent:
        return TrainEvent(self.step, self.epoch, loss, self.scheduler.get_last_lr()[0], tokens_per_s, self.elapsed)

    @torch.no_grad()
    def validate(self) -> dict | None:
        """Validation loss, and BLEU/chrF of greedy decodes on `bleu_sample` evenly spaced sources (rank 0)."""
        from .evaluate import group_references, score_translations
        from ..interpret.decoding import greedy_batch

        if self.rank != 0 or not self.valid_examples:
            return None
        self.model.eval()
        loss = mean_loss(self.model, self.valid_examples, self.config.max_tokens, self.device, self._autocast)
        groups = group_references(self.valid_pairs)
        if len(groups) > self.config.bleu_sample:  # evenly spaced: corpora sorted by length must not bias the sample
            stride = len(groups) / self.config.bleu_sample
            groups = [groups[int(i * stride)] for i in range(self.config.bleu_sample)]
        sources = [self.tokenizer.encode(s)[: self.config.max_len - 1] + [self.model_config.eos_id] for s, _ in groups]
        hyps = []
        for start in range(0, len(sources), 64):
            hyps += [self.tokenizer.decode(ids) for ids in greedy_batch(self.model, sources[start : start + 64])]
        scores = score_translations(hyps, [refs for _, refs in groups])
        result = {
            "step": self.step,
            "elapsed_s": round(self.elapsed, 1),
            "loss": loss,
            "bleu": scores["bleu"],
            "chrf": scores["chrf"],
            "sentences": len(groups),
            "examples": [(groups[i][0], hyps[i]) for i in range(min(5, len(groups)))],
        }
        self.history.append({k: v for k, v in result.items() if k != "examples"} | {"valid": True})
        self.log(
            f"step {self.step}: valid loss {result['loss']:.3f}, BLEU {result['bleu']:.1f}, chrF {result['chrf']:.1f} "
            f"on {len(groups)} sources ({self.elapsed / 60:.1f} min)"
        )
        return result

    def metadata(self) -> dict:
        """Training facts stored in the checkpoint's config.json and shown in the model card."""
        valid = [h for h in self.history if h.get("valid")]
        return {
            "train_config": asdict(self.config),
            "command": self.command or "explorer.training.train.Trainer from Python (see train_config)",
            "steps": self.step,
            "epochs": round(self.epoch + self.batch_in_epoch / max(1, len(self._epoch_batches())), 2),
            "training_minutes": round(self.elapsed / 60, 1),
            "hardware": f"{platform.machine()}, {os.cpu_count()} cores, {self.device.type}, torch {torch.__version__}",
            "bf16_autocast": self.bf16,
            "world_size": self.world,
            "parameters": self.model.num_parameters(),
            "train_pairs": len(self.train_pairs),
            "valid_pairs": len(self.valid_pairs),
            "last_validation": valid[-1] if valid else None,
            "history": self.history,
        }

    def export(self, path: str | Path | None = None) -> Path | None:
        """Write the checkpoint directory (rank 0), with the model card and loss curve."""
        from .card import loss_curve_png, render_card

        if self.rank != 0:
            return None
        metadata = self.metadata()
        extra = {}
        png = loss_curve_png(self.history)
        if png is not None:
            extra["loss_curve.png"] = png
        dtype = torch.float16 if self.config.save_dtype == "float16" else torch.float32
        return save_checkpoint(
            path or self.config.out, self.model, self.tokenizer, metadata, render_card(metadata), dtype, extra
        )


def _rng_tuple(obj):
    """json turns random.getstate()'s tuples into lists; turn them back."""
    return tuple(_rng_tuple(x) for x in obj) if isinstance(obj, list) else obj


def parse_args(argv: list[str] | None = None) -> TrainConfig:
    return _parser().parse_args(argv, namespace=_Namespace()).config()


class _Namespace(argparse.Namespace):
    def config(self) -> TrainConfig:
        return TrainConfig(**{k: v for k, v in vars(self).items() if k != "export_only"})


def _parser() -> argparse.ArgumentParser:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(prog="python -m explorer.training.train", description=__doc__.split("\n")[0])
    parser.add_argument("--export-only", action="store_true", help="load the resume state of WORK_DIR, export OUT and exit")
    parser.add_argument("--data", nargs="+", default=defaults.data, help="corpus specs: FILE.tsv, SRC,TGT, hf:NAME[:CONFIG[:SPLIT]], mini")
    for f in TrainConfig.__dataclass_fields__.values():
        if f.name == "data":
            continue
        default = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=default, metavar="BOOL")
        else:
            parser.add_argument(flag, type=type(default) if default is not None else str, default=default)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv, namespace=_Namespace())
    config = args.config()
    from tqdm import tqdm

    trainer = Trainer(config, log=tqdm.write)
    trainer.command = "python -m explorer.training.train " + shlex.join(argv if argv is not None else sys.argv[1:])
    if args.export_only:
        trainer.command = trainer.resumed_command or trainer.command  # the weights' command, not the export's
        if trainer.step == 0:
            print(f"error: no resume state in {trainer.work_dir}", file=sys.stderr)
            return 2
        print(f"exported step {trainer.step} to {trainer.export()}")
        return 0
    # a training process may keep its peak heap: on CPU that saves a page fault per freed page per step
    retained = trainer.device.type == "cpu" and retain_freed_memory()
    previous = {sig: signal.signal(sig, lambda *_: trainer.stop()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:  # SIGTERM/SIGINT finish the step, validate, save and export, then exit
        if trainer.rank == 0:
            print(
                f"model: {trainer.model.num_parameters():,} parameters, vocab {trainer.tokenizer.vocab_size}, "
                f"device {trainer.device}{' (bf16 autocast)' if trainer.bf16 else ''}, world size {trainer.world}"
                f"{', malloc keeps freed memory' if retained else ''}",
                flush=True,
            )
        total = config.max_steps or None
        with tqdm(total=total, initial=trainer.step, disable=trainer.rank != 0, unit="step", mininterval=5) as bar:
            last = trainer.step
            for event in trainer.run():
                bar.update(event.step - last)
                last = event.step
                bar.set_postfix(loss=f"{event.loss:.3f}", lr=f"{event.lr:.2e}", tok_s=f"{event.tokens_per_s:.0f}")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if trainer.distributed:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
