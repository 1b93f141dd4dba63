"""Training from the command line: `python -m explorer.training.train [--recipe NAME] [--FLAG VALUE ...]`.

A recipe (`explorer/training/recipes/NAME.py`) sets every value of the run; flags override single values
(`--d-model 128`, `--lr 2e-3`, one per field of `TrainConfig` and `ModelConfig`). `build_trainer` is the
factory behind it: it joins torchrun's process group (gloo on CPU, nccl on GPU), reads the resume state
or the corpora, trains the vocabulary and builds the model. Under `torchrun` it trains with
DistributedDataParallel. On CPU the command line keeps freed memory in the process
(`explorer.training.allocator`), which makes steps faster. SIGTERM/SIGINT finish the step, validate,
save and export; the same command resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
from dataclasses import fields, replace

import torch
import torch.distributed as dist

from ..model.checkpoint import load_checkpoint
from ..model.config import ModelConfig
from ..model.tokenizer import Tokenizer
from .allocator import retain_freed_memory
from .data import Pair, clean, held_out_filter, read_corpus, read_rows, split_by_source, weighted_epoch
from .grow import deepened
from .recipe import LoadedRecipe, load_recipe
from .trainer import TrainConfig, Trainer, read_resume, train_tokenizer, training_device

PROG = "python -m explorer.training.train"
MODEL_FIELDS = {f.name for f in fields(ModelConfig)}


def read_data(config: TrainConfig, log=print) -> tuple[list[Pair], list[Pair], list[int]]:
    """Cleaned training pairs (the corpora end to end, and each one's size) and validation pairs.

    No validation source is ever trained on, nor a source of an `exclude` test set or a near-copy of one
    (`data.held_out_filter`); a pair seen in an earlier corpus is not repeated by a later one.
    """
    corpora = [clean(read_corpus(spec)) for spec in config.data]
    if config.valid:
        valid = clean(read_corpus(config.valid))
    else:
        joined, valid = split_by_source([p for c in corpora for p in c], config.valid_fraction, config.seed)
        kept = set(joined)
        corpora = [[p for p in c if p in kept] for c in corpora]
    held_out_sources = {s for s, _ in valid}
    is_test = held_out_filter(s for spec in config.exclude for s, *_ in read_rows(spec))
    seen: set[Pair] = set()
    train, sizes = [], []
    for spec, corpus in zip(config.data, corpora):
        kept = [p for p in corpus if p not in seen and p[0] not in held_out_sources and not is_test(p[0])]
        seen.update(kept)
        if len(kept) < len(corpus):
            log(f"data: {spec}: {len(corpus) - len(kept)} pairs held out (validation, test sets, earlier corpora)")
        train += kept
        sizes.append(len(kept))
    log(f"data: {len(train)} training pairs in {len(sizes)} corpora {sizes}, {len(valid)} validation pairs")
    return train, valid, sizes


def build_trainer(config: TrainConfig, log=print, recipe: LoadedRecipe | None = None) -> Trainer:
    """The command line's factory: process group, resume state or corpora, vocabulary, model, `Trainer`."""
    if config.threads:
        torch.set_num_threads(config.threads)
    device = training_device(config.device)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1 and dist.is_available() and not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    distributed = dist.is_available() and dist.is_initialized()
    rank = dist.get_rank() if distributed else 0
    say = log if rank == 0 else (lambda *_: None)
    work_dir = config.work_dir or f"{config.out}.work"
    resume = read_resume(work_dir)
    if resume is not None:
        say(f"resuming from {work_dir} at step {resume['step']}")
        stored = json.loads(resume["train_config"]).get("model")
        if stored is not None:  # the weights exist for this architecture only; the schedule may change on resume
            config = replace(config, model=ModelConfig.from_dict(stored))
    start = None
    if resume is None and config.init_from:  # continue a trained model: its architecture and vocabulary
        start = load_checkpoint(config.init_from)
        say(f"starting from the weights and vocabulary of {config.init_from}")
        if config.grow:  # deeper, with new layers that start as the identity: the same translations at step 0
            start = replace(start, model=deepened(start.model, *config.grow, seed=config.seed))
            say(f"grown to {config.grow[0]}+{config.grow[1]} layers, the new ones starting as the identity")
        config = replace(config, model=start.model.config)
    train, valid, sizes = read_data(config, say)
    tokenizer = start.tokenizer if start is not None else None  # resuming: from_pairs takes the resume state's
    if resume is None and start is None:  # one vocabulary: SentencePiece samples big corpora differently per process
        mix = (
            [train[i] for i in weighted_epoch(sizes, config.data_weights, config.seed)]
            if config.data_weights
            else train
        )
        proto = [train_tokenizer(mix, config.model.vocab_size).model_proto if rank == 0 else None]
        if distributed:
            dist.broadcast_object_list(proto, src=0, device=device)
        tokenizer = Tokenizer(proto[0])
    facts = recipe.facts() if recipe is not None else None
    trainer = Trainer.from_pairs(config, train, valid, tokenizer, resume, log, facts, sizes)
    if start is not None:
        trainer.model.load_state_dict(start.model.state_dict())
        trainer.save_snapshot()  # step 0 of the time-lapse: the model before this run
    return trainer


def parse_args(argv: list[str] | None = None) -> TrainConfig:
    """The TrainConfig a command line describes (a recipe's, with the flags' values over it)."""
    return _config(_parser().parse_args(argv))[0]


def _config(args: argparse.Namespace) -> tuple[TrainConfig, LoadedRecipe | None]:
    values = {k: v for k, v in vars(args).items() if k not in ("recipe", "export_only")}
    recipe = load_recipe(args.recipe) if args.recipe else None
    base = recipe.recipe.config if recipe else TrainConfig()
    model = replace(base.model, **{k: v for k, v in values.items() if k in MODEL_FIELDS})
    return replace(base, model=model, **{k: v for k, v in values.items() if k not in MODEL_FIELDS}), recipe


def _parser() -> argparse.ArgumentParser:
    """Every flag defaults to "not given", so that only what was typed overrides the recipe."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0], argument_default=argparse.SUPPRESS)
    parser.add_argument("--recipe", default=None, help="a recipe name (explorer/training/recipes/) or a .py file")
    parser.add_argument(
        "--export-only", action="store_true", default=False, help="export OUT from WORK_DIR's resume state and exit"
    )
    parser.add_argument(
        "--data",
        nargs="+",
        help="corpus specs: FILE.tsv, DIR (its .tsv files), SRC,TGT, hf:NAME[:CONFIG[:SPLIT]], mini",
    )
    defaults = TrainConfig()
    options = [(f.name, getattr(defaults.model, f.name)) for f in fields(ModelConfig)]
    options += [(f.name, getattr(defaults, f.name)) for f in fields(TrainConfig) if f.name not in ("model", "data")]
    for name, default in options:
        flag = "--" + name.replace("_", "-")
        if isinstance(default, list):
            kind = {"data_weights": float, "snapshot_steps": int, "grow": int}.get(name, str)
            parser.add_argument(flag, nargs="*", type=kind, help=f"default {default}")
        elif isinstance(default, bool):
            parser.add_argument(flag, type=_boolean, metavar="BOOL", help=f"default {default}")
        else:
            parser.add_argument(flag, type=type(default) if default is not None else str, help=f"default {default}")
    return parser


def _boolean(text: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


def command_line(argv: list[str]) -> str:
    """The command as the card shows it: where this run wrote (--out, --work-dir) becomes OUT and WORK_DIR."""
    shown, skip = [], None
    for arg in argv:
        if skip:
            shown.append(skip)
            skip = None
            continue
        name = arg.split("=", 1)[0]
        if name in ("--out", "--work-dir"):
            placeholder = "OUT" if name == "--out" else "WORK_DIR"
            if "=" in arg:
                shown.append(f"{name}={placeholder}")
            else:
                shown.append(arg)
                skip = placeholder
            continue
        shown.append(arg)
    return f"{PROG} {shlex.join(shown)}".rstrip()


def main(argv: list[str] | None = None) -> int:
    argv = list(argv if argv is not None else sys.argv[1:])
    args = _parser().parse_args(argv)
    try:
        config, recipe = _config(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    try:
        trainer = build_trainer(config, log=tqdm.write, recipe=recipe)
    except ValueError as exc:  # what the data or the machine cannot do (e.g. more ranks than GPUs), in one line
        print(f"error: {exc}", file=sys.stderr)
        return 2
    trainer.command = command_line(argv)
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
    try:
        if trainer.rank == 0:
            print(
                f"model: {trainer.model.num_parameters():,} parameters, vocab {trainer.tokenizer.vocab_size}, "
                f"device {trainer.device}{' (bf16 autocast)' if trainer.bf16 else ''}, world size {trainer.world}"
                f"{', malloc keeps freed memory' if retained else ''}",
                flush=True,
            )
        with tqdm(
            total=config.max_steps or None, initial=trainer.step, disable=trainer.rank != 0, unit="step", mininterval=5
        ) as bar:
            last = trainer.step
            for event in trainer.run():
                bar.update(event.step - last)
                last = event.step
                bar.set_postfix(loss=f"{event.loss:.3f}", lr=f"{event.lr:.2e}", tok_s=f"{event.tokens_per_s:.0f}")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if trainer.distributed:  # together: a rank that tore gloo down while rank 0 still exported aborted (SIGABRT)
        dist.barrier()
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
