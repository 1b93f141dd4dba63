"""Shared benchmark plumbing: flags, seeding, the model under test, interleaved timing, tables, JSON.

Timing is always interleaved: each round runs every variant once (the order alternates between
rounds, so AB BA AB ...), warm-up rounds are discarded, and medians/p90 are taken over rounds. Drift
from other processes then hits all variants alike, and ratios are only ever taken between variants
measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from explorer.model.config import BOS_ID, EOS_ID, PAD_ID, UNK_ID, ModelConfig
from explorer.model.transformer import DecoderState, Transformer
from explorer.training.trainer import TrainConfig


def parser(description: str) -> argparse.ArgumentParser:
    """The flags every benchmark takes; scripts add their own."""
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="torch CPU threads (default: all cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=int, default=None, help="discarded rounds (default depends on the script)")
    p.add_argument("--repeat", type=int, default=None, help="measured rounds (default depends on the script)")
    p.add_argument("--quick", action="store_true", help="a few rounds only, to check that the script works")
    p.add_argument("--checkpoint", default=None, help="checkpoint directory (default: random shipped-size model)")
    p.add_argument("--json", default=None, metavar="OUT", help="also write the results as JSON to OUT")
    return p


def setup(args: argparse.Namespace, warmup: int, repeat: int, quick_warmup: int = 1, quick_repeat: int = 3) -> None:
    """Apply --threads and --seed; fill in warm-up/repeat defaults (smaller under --quick)."""
    args.loadavg_start = round(os.getloadavg()[0], 2)
    torch.set_num_threads(args.threads)
    seed_everything(args.seed)
    if args.warmup is None:
        args.warmup = quick_warmup if args.quick else warmup
    if args.repeat is None:
        args.repeat = quick_repeat if args.quick else repeat
    if args.repeat < 1 or args.warmup < 0 or args.threads < 1:
        raise SystemExit(
            f"need --repeat >= 1, --warmup >= 0, --threads >= 1; got {args.repeat}, {args.warmup}, {args.threads}"
        )


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def shipped_config() -> ModelConfig:
    """The size of the shipped model: the training defaults (vocab 8000, 256/4 heads, 3+3, 1024, pre-LN)."""
    return TrainConfig().model


class IdTokenizer:
    """Stand-in for a Tokenizer when there is no checkpoint: pieces are the ids themselves."""

    vocab_size = shipped_config().vocab_size

    def piece(self, token_id: int) -> str:
        return {PAD_ID: "<pad>", UNK_ID: "<unk>", BOS_ID: "<s>", EOS_ID: "</s>"}.get(int(token_id), f"#{int(token_id)}")

    def pieces(self, ids) -> list[str]:
        return [self.piece(i) for i in ids]

    def decode(self, ids) -> str:
        return " ".join(self.piece(i) for i in ids if i not in (PAD_ID, BOS_ID, EOS_ID))


def load_model(checkpoint: str | None, seed: int = 0):
    """(model in eval mode, tokenizer, description) from a checkpoint, or a seeded random shipped-size model."""
    if checkpoint:
        from explorer.model.checkpoint import load_checkpoint

        ckpt = load_checkpoint(checkpoint)
        return ckpt.model, ckpt.tokenizer, f"checkpoint {checkpoint}"
    torch.manual_seed(seed)
    return Transformer(shipped_config()).eval(), IdTokenizer(), "random init, shipped size"


SENTENCE = "When I was young, my grandmother told me many long stories about the old village by the river."


def source_ids(tokenizer, length: int, seed: int = 0) -> list[int]:
    """A source of exactly `length` ids ending with EOS: a fixed English sentence, or seeded random ids."""
    if isinstance(tokenizer, IdTokenizer):
        g = torch.Generator().manual_seed(seed)
        ids = torch.randint(4, tokenizer.vocab_size, (length - 1,), generator=g).tolist()
    else:
        ids = tokenizer.encode(SENTENCE)
        while len(ids) < length - 1:
            ids += tokenizer.encode(SENTENCE)
        ids = ids[: length - 1]
    return ids + [EOS_ID]


@torch.no_grad()
def next_token(logits: torch.Tensor) -> torch.Tensor:
    """Greedy choice from logits (1, V) among ordinary pieces: the special ids (pad, unk, bos, eos) are
    never chosen, so decoding runs for exactly the requested number of steps."""
    logits = logits.clone()
    logits[:, [PAD_ID, UNK_ID, BOS_ID, EOS_ID]] = float("-inf")
    return logits.argmax(-1, keepdim=True)  # (1, 1)


@torch.no_grad()
def greedy_cached(model: Transformer, source: list[int], n_tokens: int, need_weights: bool = False) -> list[int]:
    """Greedy decoding of exactly n_tokens with the KV cache: encode once, then `model.decode` one token
    per step with the DecoderState (the loop of `decoding.greedy_decode`, without its EOS stop); `need_weights`:
    every attention call computes its weights (for a recorder)."""
    memory, src_mask = model.encode(torch.tensor([source]), need_weights=need_weights)
    state = DecoderState(memory, src_mask)
    token = torch.tensor([[BOS_ID]])
    out = []
    for _ in range(n_tokens):
        logits, state = model.decode(token, state, need_weights=need_weights)  # (1, 1, V)
        token = next_token(logits[:, -1])
        out.append(int(token))
    return out


# ----- timing -----------------------------------------------------------------------------------


def cold_trace(handle, request):
    """`request` traced with `handle` as the server traces it (its model line, from a fresh registry: nothing kept),
    as the server's own caller; the `models.Traced` (typed trace and wire form)."""
    import asyncio

    from explorer.app.callers import SERVER
    from explorer.app.models import ModelRegistry

    return asyncio.run(ModelRegistry(handle).atraced(handle, request, SERVER))


def interleaved(
    variants: dict[str, Callable[[], object]],
    warmup: int,
    repeat: int,
    before_round: Callable[[int], object] | None = None,
) -> dict[str, list[float]]:
    """Seconds per call of each variant over `repeat` rounds after `warmup` discarded rounds.

    Each round calls every variant once; the order is reversed on every other round (AB BA AB ...).
    `before_round(r)` (untimed) prepares round r's input, e.g. the next batch.
    """
    names = list(variants)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(warmup + repeat):
        if before_round is not None:
            before_round(r)
        for name in names if r % 2 == 0 else reversed(names):
            gc.collect()
            start = time.perf_counter()
            variants[name]()
            elapsed = time.perf_counter() - start
            if r >= warmup:
                times[name].append(elapsed)
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    """90th percentile, linear interpolation between closest ranks."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = 0.9 * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# ----- reporting --------------------------------------------------------------------------------


def table(headers: list[str], rows: list[list]) -> str:
    """A markdown table; floats get 3 significant decimals unless already formatted."""

    def cell(v):
        if isinstance(v, float):
            return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"
        return str(v)

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def environment(args: argparse.Namespace) -> dict:
    """What the numbers depend on; the load average says whether the machine was busy."""
    return {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "loadavg_1m_start": getattr(args, "loadavg_start", None),
        "loadavg_1m_end": round(os.getloadavg()[0], 2),
        "quick": args.quick,
        "warmup": args.warmup,
        "repeat": args.repeat,
    }


def header(title: str, args: argparse.Namespace, model_desc: str) -> str:
    env = environment(args)
    mode = "QUICK (smoke test, not a measurement)" if args.quick else "full"
    return (
        f"## {title}\n\n{model_desc}; torch {env['torch']} ({env['cpu_capability']}), {env['threads']} threads "
        f"of {env['cpu_count']} cores, load average {env['loadavg_1m_start']} at start; {mode}: "
        f"{args.warmup} warm-up + {args.repeat} measured rounds, interleaved.\n"
    )


def write_json(args: argparse.Namespace, benchmark: str, results: dict) -> None:
    if args.json:
        payload = {"benchmark": benchmark, "args": vars(args), "environment": environment(args), "results": results}
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {args.json}")


def in_checkout(checkout: Path, script: str, call: str) -> dict:
    """The JSON that `call` (an expression on `b`, the benchmark file `script` loaded by its path) prints, run in a
    fresh process whose `explorer` is `checkout`'s: an older checkout has its own bench/ without the script."""
    code = f"import sys, json, importlib.util; sys.path.insert(0, {str(checkout)!r}); "
    code += f"spec = importlib.util.spec_from_file_location('bench_script', {script!r}); "
    code += "b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b); "
    code += f"print(json.dumps({call}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def checkouts(refs: list[str]):
    """[("this checkout", ROOT)] and each git ref checked out into a temporary worktree, removed afterwards."""
    root = Path(__file__).resolve().parent.parent
    designs, made = [("this checkout", root)], []
    try:
        for ref in refs:
            worktree = Path(tempfile.mkdtemp(prefix="bench-ref-"))
            subprocess.run(["git", "worktree", "add", "--detach", str(worktree), ref], cwd=root, check=True)
            made.append(worktree)
            designs.append((ref[:7], worktree))
        yield designs
    finally:
        for worktree in made:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=root, check=False)
            shutil.rmtree(worktree, ignore_errors=True)


def in_turns(designs: list, rounds: int):
    """(round, name, checkout) for each design in each round, the order reversed every other round: a busy moment of
    the machine, or going first, falls on every design alike."""
    for k in range(rounds):
        for name, cwd in designs if k % 2 == 0 else designs[::-1]:
            yield k, name, cwd


# The viewer on a page, for the browser benches, in every design they compare: before issue 66 the bundle put it on
# window.aeViewer; since, main.js offers it as AttentionExplorer.viewer (and no module reads a global). The benches
# read window.aeViewer, which this init script makes answer either way.
VIEWER_ALIAS = """Object.defineProperty(window, "aeViewer", { configurable: true,
  get() { return window.aeViewerSet || (window.AttentionExplorer && window.AttentionExplorer.viewer); },
  set(viewer) { window.aeViewerSet = viewer; } });"""


def viewer_page(browser, **options):
    """A new page of `browser` (playwright) whose window.aeViewer is the viewer on it, in any design."""
    page = browser.new_page(**options)
    page.add_init_script(VIEWER_ALIAS)
    return page
