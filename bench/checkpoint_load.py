"""Checkpoint loading time and size: `python -m bench.checkpoint_load [--checkpoint DIR] [--repeat N]`.

Times `explorer.model.checkpoint.load_checkpoint` (read + validate + build the model) in a fresh process
each time, so file caches are warm but nothing of Python or torch is reused from an earlier load,
and reports the directory's size. Reference in the same run: the bare `safetensors.torch.load_file`
of the same weights file, the floor any loader pays. Target: load < 1 s, directory <= 25 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from explorer.app import SHIPPED_CHECKPOINT

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import time
import torch
from safetensors.torch import load_file
from explorer.model.checkpoint import load_checkpoint
t0 = time.perf_counter(); load_file({weights!r}); t1 = time.perf_counter()
load_checkpoint({ckpt!r}); t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    ckpt = Path(args.checkpoint)
    code = PROBE.format(weights=str(ckpt / "model.safetensors"), ckpt=str(ckpt))
    raw, full = [], []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        raw.append(float(out[0]))
        full.append(float(out[1]))
    size = sum(f.stat().st_size for f in ckpt.iterdir() if f.is_file())
    result = {
        "load_median_s": round(statistics.median(full), 3),
        "safetensors_only_median_s": round(statistics.median(raw), 3),
        "ratio": round(statistics.median(full) / statistics.median(raw), 1),
        "directory_mb": round(size / 1e6, 2),
        "weights_mb": round((ckpt / "model.safetensors").stat().st_size / 1e6, 2),
    }
    print("| measure | value | target |\n|---|---|---|")
    print(
        f"| load_checkpoint (read, validate, build), median of {args.repeat} fresh processes | "
        f"{result['load_median_s']} s | < 1 s |"
    )
    print(f"| reference: safetensors load_file of the weights alone | {result['safetensors_only_median_s']} s | |")
    print(
        f"| checkpoint directory size (weights) | {result['directory_mb']} MB ({result['weights_mb']} MB) | ≤ 25 MB |"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
