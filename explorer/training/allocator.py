"""Make glibc keep freed memory in the process, so CPU training stops page-faulting every step.

glibc's malloc serves every block above its mmap threshold (at most 32 MB) with fresh pages from
mmap and hands them back with munmap on free. A training step allocates many such blocks (the logits
and their gradient alone are (tokens x vocabulary) floats, 64-131 MB for a 4,096-token batch), so
every step the kernel maps, zeroes and page-faults hundreds of megabytes again. With mmap disabled
and trimming pushed out of reach, freed blocks stay on malloc's heap and are reused.

Measured on the shipped recipe (2-core CPU, bf16, steps 2,000-2,150 of the same resume state, same
losses to the last digit) with these settings given as MALLOC_* environment variables (there the trim
threshold can exceed mallopt's int): 1.24 s/step with glibc's defaults against 0.89 s/step
(27 M minor page faults and 60 s of system time against 1 M and 4 s). The price is resident memory:
the process keeps its peak heap until it exits, which is right for a training run and wrong for a
long-lived server, so only the training CLI calls this. A known cost, measured but not fixed: as the
single heap fragments, malloc itself gets slower (its share of a step doubles within ~10 minutes;
bench/RESULTS.md (a3)).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
import sys

# mallopt parameters from glibc's malloc.h
M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_MAX = -4

TRIM_THRESHOLD = 2**31 - 1  # mallopt takes an int: never trim below 2 GiB of free heap top
TOP_PAD = 1 << 30  # grow the heap in steps of up to 1 GiB of address space (touched pages only are resident)


def retain_freed_memory() -> bool:
    """Configure glibc malloc to reuse freed blocks instead of unmapping them; False where not glibc."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return all(
        mallopt(param, value) == 1
        for param, value in ((M_MMAP_MAX, 0), (M_TRIM_THRESHOLD, TRIM_THRESHOLD), (M_TOP_PAD, TOP_PAD))
    )
