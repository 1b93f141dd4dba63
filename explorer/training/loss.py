"""Label-smoothed cross-entropy over the vocabulary, computed in row chunks without fp32 copies of the logits.

`F.cross_entropy(logits.float(), ...)` on a (tokens x 8,000) bf16 logit matrix writes a float copy, a
log-softmax, a dense gradient of the same size and its bf16 cast: about 1.5 GB of memory traffic per
4,096-token training step on CPU. `label_smoothed_cross_entropy` computes the same loss,

    loss_i = logsumexp(z_i) - (1 - eps) * z_i[y_i] - eps * mean(z_i)      (PyTorch's definition)

averaged over the rows whose target is not `ignore_index`, and its gradient

    d loss / d z_i = (softmax(z_i) - (1 - eps) * onehot(y_i) - eps / V) / n_rows,

chunk by chunk in float32 (a chunk of rows fits in the CPU's last-level cache) and writes the gradient
once, in the logits' dtype. On a GPU all rows are one chunk: there a chunk costs its kernel launches (a
32k-token batch in 256-row chunks is ~1,800 small kernels a step), not cache misses. Numerics match
`F.cross_entropy` on float32 logits to float32 rounding (tests/test_loss.py); speed: bench/RESULTS.md (a6).
"""

from __future__ import annotations

import math

import torch

CHUNK_ROWS = 256  # on CPU: 256 x 8,000 float32 = 8 MB of working set per chunk


def chunk_rows(logits: torch.Tensor) -> int:
    """Rows per chunk: CHUNK_ROWS on CPU, every row at once elsewhere (at least 1 for an empty batch)."""
    return CHUNK_ROWS if logits.device.type == "cpu" else max(1, logits.size(0))


class _LabelSmoothedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits: torch.Tensor, target: torch.Tensor, smoothing: float, ignore_index: int):
        keep = target != ignore_index
        count = keep.sum().clamp(min=1)
        safe_target = target.masked_fill(~keep, 0).unsqueeze(1)
        lse = torch.empty(logits.size(0), dtype=torch.float32, device=logits.device)
        rows = torch.empty_like(lse)
        step = chunk_rows(logits)
        for start in range(0, logits.size(0), step):
            z = logits[start : start + step].float()
            chunk_lse = torch.logsumexp(z, dim=1)
            picked = z.gather(1, safe_target[start : start + step]).squeeze(1)
            lse[start : start + step] = chunk_lse
            rows[start : start + step] = chunk_lse - (1 - smoothing) * picked - smoothing * z.mean(dim=1)
        ctx.save_for_backward(logits, safe_target, keep, lse, count)
        ctx.smoothing = smoothing
        return (rows * keep).sum() / count

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        logits, safe_target, keep, lse, count = ctx.saved_tensors
        eps, vocab = ctx.smoothing, logits.size(1)
        scale = keep.float() * (grad_output.float() / count)  # (N,): 0 on ignored rows
        grad = torch.empty_like(logits)
        step = chunk_rows(logits)
        for start in range(0, logits.size(0), step):
            end = start + step
            # a float copy even of float32 logits: the in-place ops below must not write into them
            p = logits[start:end].to(torch.float32, copy=True).sub_(lse[start:end, None]).exp_()  # softmax
            if eps:
                p.sub_(eps / vocab)
            p.scatter_add_(1, safe_target[start:end], torch.full_like(p[:, :1], -(1 - eps)))
            grad[start:end] = p.mul_(scale[start:end, None])
        return grad, None, None, None


def label_smoothed_cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, smoothing: float = 0.0, ignore_index: int = -100
) -> torch.Tensor:
    """Mean label-smoothed cross-entropy of logits (N, V) against target (N,), skipping ignore_index rows."""
    if logits.dim() != 2 or target.shape != logits.shape[:1]:
        raise ValueError(f"expected logits (N, V) and target (N,), got {tuple(logits.shape)} and {tuple(target.shape)}")
    return _LabelSmoothedCrossEntropy.apply(logits, target, float(smoothing), int(ignore_index))


def smoothing_floor(label_smoothing: float, vocab_size: int) -> float:
    """The lowest value the label-smoothed loss can take: the entropy of its target, (1 - eps) + eps / V on the
    right token and eps / V on each other one. A model that has learnt its corpus flattens out here, not at 0."""
    if not 0.0 < label_smoothing < 1.0:
        return 0.0
    right = 1.0 - label_smoothing + label_smoothing / vocab_size
    other = label_smoothing / vocab_size
    return -(right * math.log(right) + (vocab_size - 1) * other * math.log(other))
