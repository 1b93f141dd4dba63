"""Dropout with a cheaper random mask on CPU.

`torch.nn.functional.dropout` on CPU draws one Bernoulli sample per element; on the project's 2-core
training machine its 32 masks per step were about a fifth of a bf16 training step
(`python bench/train_throughput.py --bf16 --profile`). Here one 31-bit random integer
(`Tensor.random_`) serves two elements: each of its 16-bit halves, masked to its low 15 bits, is
uniform on [0, 32768) and keeps its element when it is at least round(p * 32768). The drop
probability is thus p rounded to a multiple of 1/32768, and the kept values are scaled by the exact
inverse of the rounded keep probability, so the expectation is unchanged. Other devices use torch's
fused dropout.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

LEVELS = 1 << 15  # resolution of the drop probability


def dropout(x: torch.Tensor, p: float, training: bool = True) -> torch.Tensor:
    """Zero each element of x with probability p (rounded to 1/32768) and scale the rest by 1/(1-p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be in [0, 1], not {p}")
    if not training or p == 0.0:
        return x
    if x.device.type != "cpu":
        return F.dropout(x, p, True)
    threshold = round(p * LEVELS)
    if threshold >= LEVELS:
        return x * 0.0
    n = x.numel()
    halves = torch.empty((n + 1) // 2, dtype=torch.int32).random_().view(torch.int16)[:n]
    keep = (halves & (LEVELS - 1)) >= threshold
    mask = keep.view(x.shape).to(x.dtype).mul_(LEVELS / (LEVELS - threshold))
    return x * mask


class Dropout(nn.Module):
    """`nn.Dropout` with the cheaper CPU mask of `dropout`."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], not {p}")
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
