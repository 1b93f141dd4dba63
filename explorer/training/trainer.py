"""The training loop: `Trainer` is handed a model, its tokenizer and the examples, and trains until a limit.

AdamW (its fused kernel on CPU and CUDA) with linear warmup and inverse-square-root decay (optionally a
linear cooldown to zero over the last steps before `max_steps`), label smoothing, gradient clipping,
token-count batches, periodic validation (loss, sacreBLEU and chrF of greedy decodes on a sample),
resumable from `WORK_DIR/resume.pt` (model, optimizer, schedule, step, RNG states, history), device
auto-detected (cuda, mps, cpu) with bf16 autocast on CUDA and on CPUs with native bf16 (AVX512-BF16, AMX).
Inside a torchrun process group it trains with DistributedDataParallel; rank 0 validates and saves.
Reading corpora and building the ingredients is `Trainer.from_pairs` (the app) and
`explorer.training.train.build_trainer` (the command line).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import random
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
import torch.distributed as dist

from ..model.checkpoint import save_checkpoint
from ..model.config import PAD_ID, ModelConfig
from ..model.tokenizer import Tokenizer
from ..model.transformer import Transformer
from .card import render_card
from .data import Example, Pair, collate, encode_pairs, token_batches, weighted_epoch
from .evaluate import group_references, score_translations, translate
from .loss import label_smoothed_cross_entropy
from .loss_curve import loss_curve_png

RESUME_FILE = "resume.pt"
SNAPSHOT_DIR = "snapshots"  # the weights at `snapshot_steps`, for a training time-lapse
# AdamW's single fused kernel: the same update; torch's CPU default, a loop over the 131 parameter tensors,
# took 2x as long per optimizer step and 1.09x as long per bf16 training step (bench/RESULTS.md (a5)).
# MPS has no fused AdamW in every torch version.
FUSED_ADAMW_DEVICES = ("cpu", "cuda")


@dataclass
class TrainConfig:
    """Everything a training run needs; stored in the checkpoint's metadata. Recipes set these, flags override."""

    # the architecture; its vocab_size is what the tokenizer is asked for (a small corpus gives fewer pieces)
    model: ModelConfig = field(default_factory=ModelConfig)
    data: list[str] = field(default_factory=lambda: ["mini"])  # corpus specs, see data.read_corpus
    data_weights: list[float] = field(default_factory=list)  # one per corpus: times per epoch (0.1: a tenth); [] all 1
    exclude: list[str] = field(
        default_factory=list
    )  # TSV test sets whose sources (and near-copies) are never trained on
    init_from: str | None = None  # a checkpoint directory to start from: its weights, vocabulary and architecture
    grow: list[int] = field(default_factory=list)  # [encoder, decoder] layers to deepen init_from to (grow.py); []
    valid: str | None = None  # a corpus spec; default: split off valid_fraction of the training data
    valid_fraction: float = 0.05
    out: str = "runs/model"  # checkpoint directory written at the end (and at each validation)
    work_dir: str | None = None  # resume state; default: OUT.work
    max_tokens: int = 4096  # padded tokens per batch (per process); longer pairs than model.max_len are dropped
    lr: float = 1e-3
    warmup: int = 1000
    weight_decay: float = 0.01
    label_smoothing: float = 0.1
    clip: float = 1.0
    max_steps: int = 0  # 0: no step limit
    cooldown_steps: int = 0  # lr falls linearly to 0 over the last this many steps before max_steps
    max_minutes: float = 0.0  # 0: no time limit; counts training time across resumes
    cooldown_minutes: float = 0.0  # lr falls linearly to 0 over the last this many minutes before max_minutes
    eval_every: int = 1000  # steps between validations (0: only at the end)
    save_every_minutes: float = 10.0  # resume state at least this often
    bleu_sample: int = 500  # valid sources (evenly spaced) decoded for BLEU/chrF at each validation
    seed: int = 1234
    device: str = "auto"
    threads: int = 0  # torch CPU threads; 0: leave torch's default
    bf16: str = "auto"  # bf16 autocast: "auto" (CUDA, or a CPU with native bf16), "true", "false"
    save_dtype: str = "float32"  # "float16" halves the exported weights
    log_every: int = 50
    loader_workers: int = 0  # processes that collate batches ahead of the loop (a GPU's feed); 0: in the loop
    snapshot_steps: list[int] = field(default_factory=list)  # steps whose weights are kept in WORK_DIR/snapshots

    def __post_init__(self):
        if self.data_weights and len(self.data_weights) != len(self.data):
            raise ValueError(f"data_weights has {len(self.data_weights)} values for {len(self.data)} corpora")
        if any(not (w >= 0 and math.isfinite(w)) for w in self.data_weights):
            raise ValueError(f"data_weights {self.data_weights} must be finite and >= 0")
        if self.cooldown_minutes and not self.max_minutes:
            raise ValueError(f"cooldown_minutes {self.cooldown_minutes} needs max_minutes")
        if self.grow and (len(self.grow) != 2 or not self.init_from):
            raise ValueError(f"grow {self.grow} needs two layer counts (encoder, decoder) and init_from")
        if self.loader_workers < 0:
            raise ValueError(f"loader_workers {self.loader_workers} must be >= 0")


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


def seed_everything(seed: int, rank: int = 0) -> None:
    """Python's and torch's generators; each process of a distributed run draws its own dropout masks."""
    random.seed(seed)
    torch.manual_seed(seed + rank)


def vocabulary_cap(pairs: Sequence[Pair]) -> int:
    """SentencePiece fails when asked for more pieces than a small corpus supports."""
    chars = {c for pair in pairs for s in pair for c in s}
    words = {w for pair in pairs for s in pair for w in s.split()}
    return max(len(chars) + 8, min(len(words) + len(chars), 1_000_000) // 2)


def train_tokenizer(pairs: Sequence[Pair], vocab_size: int) -> Tokenizer:
    """A joint vocabulary of both sides of the pairs, at most `vocab_size` pieces (fewer for a small corpus)."""
    return Tokenizer.train([s for pair in pairs for s in pair], min(vocab_size, vocabulary_cap(pairs)))


def read_resume(work_dir: str | Path) -> dict | None:
    """The resume state `Trainer.save_resume` wrote in `work_dir`, if there is one."""
    path = Path(work_dir) / RESUME_FILE
    return torch.load(path, map_location="cpu", weights_only=True) if path.is_file() else None


def training_device(name: str = "auto") -> torch.device:
    """`pick_device`, and under torchrun on CUDA this process's own GPU."""
    device = pick_device(name)
    if device.type == "cuda" and "LOCAL_RANK" in os.environ:
        rank, count = int(os.environ["LOCAL_RANK"]), torch.cuda.device_count()
        if rank >= count:  # NCCL cannot share one GPU between two ranks
            raise ValueError(
                f"torchrun started local rank {rank}, but this machine has {count} GPU(s): "
                f"run at most --nproc-per-node {count}, or pass --device cpu"
            )
        device = torch.device("cuda", rank)
    return device


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


def time_cooldown(elapsed_s: float, max_minutes: float, cooldown_minutes: float) -> float:
    """Multiplier of the lr when time decides the run's end: 1, then linearly to 0 over the last
    `cooldown_minutes` before `max_minutes` (a lease's minutes are known before its step speed is)."""
    if not cooldown_minutes:
        return 1.0
    return min(1.0, max(0.0, (max_minutes * 60 - elapsed_s) / (cooldown_minutes * 60)))


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
    """A training run that can be iterated (`run()`), stopped (`stop()`), resumed and exported.

    It is handed its ingredients: the model (built for `config.model` with the tokenizer's vocabulary), the
    tokenizer, the training examples and the validation pairs; `resume` is a state `save_resume` wrote.
    """

    def __init__(
        self,
        config: TrainConfig,
        model: Transformer,
        tokenizer: Tokenizer,
        train_examples: list[Example],
        valid_pairs: list[Pair],
        resume: dict | None = None,
        log=print,
        facts: dict | None = None,
        corpus_sizes: list[int] | None = None,
    ):
        if not train_examples:
            raise ValueError("no training pairs left after cleaning and the length filter")
        self.config = config
        self.log = log
        self.facts = dict(facts or {})  # what the checkpoint's metadata says beyond the run: name, data credit, recipe
        self.distributed = dist.is_available() and dist.is_initialized()
        self.rank, self.world = (dist.get_rank(), dist.get_world_size()) if self.distributed else (0, 1)
        self.device = training_device(config.device)
        self.work_dir = Path(config.work_dir or f"{config.out}.work")
        self.command: str | None = None  # the command line, when run as `python -m explorer.training.train`
        self.resumed_command: str | None = None  # the command that wrote the resume state, if it recorded one
        self._stop = False
        self.tokenizer = tokenizer
        self.train_examples = train_examples
        # train_examples are the corpora laid end to end; with data_weights each epoch samples them by weight
        self.corpus_sizes = corpus_sizes or [len(train_examples)]
        if config.data_weights and len(self.corpus_sizes) != len(config.data_weights):
            raise ValueError(f"{len(config.data_weights)} data_weights for {len(self.corpus_sizes)} corpora")
        self.valid_pairs = valid_pairs
        self.valid_examples = encode_pairs(tokenizer, valid_pairs, model.config.max_len)
        self.model = model.to(self.device)
        self.fused_adamw = self.device.type in FUSED_ADAMW_DEVICES
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(),
            lr=config.lr,
            betas=(0.9, 0.98),
            eps=1e-9,
            weight_decay=config.weight_decay,
            fused=self.fused_adamw or None,
        )
        self.step, self.epoch, self.batch_in_epoch, self.elapsed = 0, 0, 0, 0.0  # the schedule reads elapsed
        by_step = inverse_sqrt_schedule(config.warmup, config.max_steps, config.cooldown_steps)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer,
            lambda step: by_step(step) * time_cooldown(self.elapsed, config.max_minutes, config.cooldown_minutes),
        )
        self.bf16 = use_bf16(self.device, config.bf16)
        self.history: list[dict] = []  # {"step", "loss", "elapsed_s"} and validation entries
        if resume is not None:
            self._load_resume(resume)
        self.ddp_model = self.model
        if self.distributed:
            self.ddp_model = torch.nn.parallel.DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None
            )

    @classmethod
    def from_pairs(
        cls,
        config: TrainConfig,
        train_pairs: Sequence[Pair],
        valid_pairs: list[Pair],
        tokenizer: Tokenizer | None = None,
        resume: dict | None = None,
        log=print,
        facts: dict | None = None,
        corpus_sizes: list[int] | None = None,
    ) -> Trainer:
        """Seed, build the vocabulary (the resume state's, else trained on the training pairs, unless given),
        build the model, encode the examples. `corpus_sizes` splits `train_pairs` into the corpora that
        `config.data_weights` weigh."""
        seed_everything(config.seed, dist.get_rank() if dist.is_available() and dist.is_initialized() else 0)
        if tokenizer is None and resume is not None:
            tokenizer = Tokenizer(bytes(resume["tokenizer"].tolist()))  # the weights' own vocabulary
        tokenizer = tokenizer or train_tokenizer(train_pairs, config.model.vocab_size)
        model = Transformer(replace(config.model, vocab_size=tokenizer.vocab_size))
        examples, sizes, start = [], [], 0
        for size in corpus_sizes or [len(train_pairs)]:  # the length filter keeps each corpus apart
            encoded = encode_pairs(tokenizer, train_pairs[start : start + size], config.model.max_len)
            examples += encoded
            sizes.append(len(encoded))
            start += size
        facts = {"train_pairs": len(train_pairs)} | (facts or {})  # cleaned pairs, before the length filter
        return cls(config, model, tokenizer, examples, valid_pairs, resume, log, facts, sizes)

    def _epoch_indices(self) -> list[int] | None:
        """This epoch's examples: every one once, or the corpora sampled by their weights."""
        if not self.config.data_weights:
            return None
        return weighted_epoch(self.corpus_sizes, self.config.data_weights, self.config.seed + self.epoch)

    def _epoch_batches(self) -> list[list[int]]:
        batches = token_batches(
            self.train_examples,
            self.config.max_tokens,
            seed=self.config.seed + self.epoch,
            indices=self._epoch_indices(),
        )
        if not batches:  # all weights 0, or too small for their corpora: the loop would never take a step
            raise ValueError(f"an epoch of data_weights {self.config.data_weights} holds no training example")
        if self.world > 1:
            per_rank = len(batches) // self.world
            if per_rank == 0:  # every rank would skip every epoch without ever taking a step
                raise ValueError(
                    f"{len(batches)} batches per epoch cannot feed {self.world} processes; lower max_tokens"
                )
            batches = batches[self.rank * per_rank : (self.rank + 1) * per_rank]
        return batches

    # ----- state ------------------------------------------------------------------------------
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
        self.facts = json.loads(state.get("facts", "{}")) | self.facts  # an export-only run keeps the recipe's facts
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
            "facts": json.dumps(self.facts),
        }
        tmp = self.work_dir / (RESUME_FILE + ".tmp")
        torch.save(state, tmp)
        os.replace(tmp, self.work_dir / RESUME_FILE)

    def save_snapshot(self) -> Path | None:
        """The weights at this step, in float16, as WORK_DIR/snapshots/step_NNNNNN.safetensors (rank 0)."""
        if self.rank != 0:
            return None
        from safetensors.torch import save_file

        folder = self.work_dir / SNAPSHOT_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"step_{self.step:06d}.safetensors"
        state = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in self.model.state_dict().items()}
        save_file(state, str(path) + ".tmp")
        os.replace(str(path) + ".tmp", path)
        return path

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

    def _collated(self, batches: list[list[int]]) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """`batches` collated in order: in the loop, or by `loader_workers` processes ahead of it (pinned for a GPU)."""
        if not self.config.loader_workers:
            return (collate([self.train_examples[i] for i in batch]) for batch in batches)
        loader = torch.utils.data.DataLoader(
            _Collated(self.train_examples, batches),
            batch_size=None,  # each item is already a batch
            num_workers=self.config.loader_workers,
            pin_memory=self.device.type == "cuda",
            prefetch_factor=4,
            generator=torch.Generator(),  # its workers' seeds: not drawn from the global RNG that dropout draws from
        )
        with _stop_signals_blocked():  # forked with them blocked, the workers never see them
            return iter(loader)

    def train_step(self, src: torch.Tensor, tgt_in: torch.Tensor, tgt_out: torch.Tensor) -> tuple[torch.Tensor, int]:
        """One optimizer step on a collated batch (`data.collate`); returns (loss, target tokens). The loss stays on the
        device: reading it would wait for the GPU."""
        tokens = int((tgt_out != PAD_ID).sum())  # counted before the copy: on the host, no wait
        self.ddp_model.train()
        src, tgt_in, tgt_out = (t.to(self.device, non_blocking=True) for t in (src, tgt_in, tgt_out))
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
        return loss.detach(), tokens

    def run(self) -> Iterator[TrainEvent]:
        """Train until a limit or `stop()`; yields progress events."""
        c = self.config
        last_save = time.monotonic()
        window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, time.monotonic()
        while not self._limit_reached():
            started = time.monotonic()
            batches = self._epoch_batches()
            self.elapsed += time.monotonic() - started  # an epoch's batching is training time too
            collated = self._collated(batches[self.batch_in_epoch :])
            while self.batch_in_epoch < len(batches) and not self._limit_reached():
                t0 = time.monotonic()
                loss, tokens = self.train_step(*next(collated))
                self.batch_in_epoch += 1
                if self.step in c.snapshot_steps:
                    self.save_snapshot()
                window_loss, window_steps, window_tokens = window_loss + loss, window_steps + 1, window_tokens + tokens
                event = None
                if self.step % c.log_every == 0:
                    now = time.monotonic()
                    event = self._event(
                        float(window_loss) / window_steps, window_tokens / max(now - window_start, 1e-9)
                    )
                    self.history.append({"step": self.step, "loss": event.loss, "elapsed_s": round(self.elapsed, 1)})
                    window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, now
                if c.eval_every and self.step % c.eval_every == 0:
                    event = event or self._event(float(loss), 0.0)
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
        final = self._event(float(window_loss) / window_steps if window_steps else last.get("loss", 0.0), 0.0)
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
        if self.rank != 0 or not self.valid_examples:
            return None
        self.model.eval()
        loss = mean_loss(self.model, self.valid_examples, self.config.max_tokens, self.device, self._autocast)
        groups = group_references(self.valid_pairs)
        if len(groups) > self.config.bleu_sample:  # evenly spaced: corpora sorted by length must not bias the sample
            stride = len(groups) / self.config.bleu_sample
            groups = [groups[int(i * stride)] for i in range(self.config.bleu_sample)]
        hyps, _, _ = translate(self.model, self.tokenizer, [source for source, _ in groups])
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
            "command": self.command or "explorer.training.trainer.Trainer from Python (see train_config)",
            "steps": self.step,
            "epochs": round(self.epoch + self.batch_in_epoch / max(1, len(self._epoch_batches())), 2),
            "training_minutes": round(self.elapsed / 60, 1),
            "hardware": f"{platform.machine()}, {os.cpu_count()} cores, {self.device.type}, torch {torch.__version__}",
            "bf16_autocast": self.bf16,
            "world_size": self.world,
            "parameters": self.model.num_parameters(),
            "train_pairs": len(self.train_examples),
            "valid_pairs": len(self.valid_pairs),
            "last_validation": valid[-1] if valid else None,
            "history": self.history,
        } | self.facts

    def export(self, path: str | Path | None = None) -> Path | None:
        """Write the checkpoint directory (rank 0), with the model card and loss curve."""
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


@contextlib.contextmanager
def _stop_signals_blocked():
    """SIGINT and SIGTERM held back from this thread for the block (then delivered), and from processes forked in it
    for good: a signal to the whole process group (Ctrl-C, `timeout`) must stop the trainer, which finishes its
    step, saves and only then ends the loader's workers; killed under it, they took the run down unsaved."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no fork, no process-group signals
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Collated(torch.utils.data.Dataset):
    """Index batches as collated tensors: what a DataLoader's worker processes build for `Trainer._collated`."""

    def __init__(self, examples: Sequence[Example], batches: list[list[int]]):
        self.examples, self.batches = examples, batches

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return collate([self.examples[i] for i in self.batches[index]])


def _rng_tuple(obj):
    """json turns random.getstate()'s tuples into lists; turn them back."""
    return tuple(_rng_tuple(x) for x in obj) if isinstance(obj, list) else obj
