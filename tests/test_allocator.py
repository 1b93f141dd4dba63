"""retain_freed_memory: freed large tensors are reused instead of being unmapped and faulted in again."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only"
)

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 16
NUMEL = 16 << 20  # two 64 MB float tensors per round, like a step's logits and their gradient
# Allocate, fill and free the tensors ROUNDS times; print each round's minor page faults.
CHILD = f"""
import resource, sys, torch
from explorer.training.allocator import retain_freed_memory
if sys.argv[1] == "retain":
    assert retain_freed_memory()
faults = []
for _ in range({ROUNDS}):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    x = torch.ones({NUMEL}); y = x * 2; del x, y
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(*faults)
"""


def faults_per_round(mode: str) -> list[int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for name in ("MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_THRESHOLD_"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True, env=env)
    return [int(n) for n in out.stdout.split()]


@pytest.mark.slow
def test_freed_memory_is_reused_instead_of_faulted_in_every_round():
    pages = 2 * NUMEL * 4 // 4096  # one round's worth of pages
    default, retained = faults_per_round("default"), faults_per_round("retain")
    assert min(default[1:]) > pages // 2  # glibc's default: unmapped on free, faulted in again every round
    # kept: only while the heap grows to fit a round. How many rounds that takes, and which, varies with the layout
    # (in session 33, 2 to 5 of the 15 rounds, e.g. rounds 1, 2, 7, 8 and 9): under half the rounds fault, and they
    # fault under half the pages the default faults in the same run
    assert sum(retained[1:]) < sum(default[1:]) // 2, (retained, default)
    assert len([n for n in retained[1:] if n > pages // 4]) < (ROUNDS - 1) / 2, retained
