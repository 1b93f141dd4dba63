"""Gradient attributions: how much each source token's embedding moved the log-probability of a chosen token.

For step t of a decode (decoder inputs `<s> y_1 .. y_{t-1}`, chosen token y_t), f(e) = log p(y_t | e, y_<t),
a function of the source embeddings e (S, D) (the lookup, before the √d scaling and the positional encoding,
which stay as they are):

    gradient × input        a_i = ∇_{e_i} f(e) · e_i
    integrated gradients    a_i = (e_i − e'_i) · mean over α of ∇_{e_i} f(e' + α(e − e'))   (Sundararajan et al., 2017)

with the baseline e' = 0 (all-zero embeddings: no word, the positions kept) and α at the midpoints of
`steps` equal intervals, evaluated in batches. Integrated gradients satisfy completeness: the a_i sum to
f(e) − f(e'), up to the Riemann error, which `completeness_gap` reports. That error is not small here: near the
baseline the model's gradient jumps from one α to the next (tiny embeddings are far from anything it was trained
on), so the step count doubles from IG_STEPS until the gap is within IG_TOLERANCE or IG_MAX_STEPS is reached.
Both methods say which inputs the output is sensitive to; attention says where a head looked. Comparing them
(`rank_correlation`) is the "is attention explanation?" question, asked of one sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..model.config import BOS_ID
from ..model.transformer import Ablation, DecoderState, Transformer, evaluating

IG_STEPS = 32  # Riemann midpoints along the straight path to start with
IG_MAX_STEPS = 512  # doubling stops here, whatever the gap
IG_TOLERANCE = 0.05  # completeness: |sum of scores − (f(e) − f(e'))| at most this share of |f(e) − f(e')|
IG_BATCH = 64  # path points per forward and backward pass (bounds the memory of one request)
IG_TOKEN_STEPS = 512 * 24  # steps x (source + target tokens) one attribution may spend: 512 steps for ~24 tokens
METHODS = ("gradient_x_input", "integrated_gradients")
NAMES = {"gradient_x_input": "gradient × input", "integrated_gradients": "integrated gradients"}


@dataclass
class Attribution:
    """Per source token scores of one method for one step; `total` is what they should add up to (IG)."""

    method: str
    scores: np.ndarray  # (S,)
    log_prob: float  # f(e), the chosen token's log-probability
    baseline_log_prob: float  # f(e'), at the all-zero baseline (integrated gradients only; NaN otherwise)
    steps: int = 0

    @property
    def completeness_gap(self) -> float:
        """|sum of scores − (f(e) − f(e'))| relative to |f(e) − f(e')| (integrated gradients)."""
        change = self.log_prob - self.baseline_log_prob
        return abs(float(self.scores.sum()) - change) / max(abs(change), 1e-12)


def _log_prob(model: Transformer, src: torch.Tensor, embeddings: torch.Tensor, decoder_inputs, token: int, ablation):
    """f for a batch of source embeddings (B, S, D) of one sentence: (B,) log-probabilities of `token`."""
    B = embeddings.size(0)
    memory, src_mask = model.encode(src.expand(B, -1), ablation, src_embeddings=embeddings)
    tgt = torch.tensor([decoder_inputs], device=src.device).expand(B, -1)
    logits, _ = model.decode(tgt, DecoderState(memory, src_mask), ablation)
    return torch.log_softmax(logits[:, -1].float(), dim=-1)[:, token]


def attribute(
    model: Transformer,
    source_ids: list[int],
    target_ids: list[int],
    step: int,
    method: str = "integrated_gradients",
    steps: int = IG_STEPS,
    ablation: Ablation | None = None,
    tolerance: float = IG_TOLERANCE,
    max_steps: int = IG_MAX_STEPS,
) -> Attribution:
    """Attribution of step `step`'s token (target_ids[step], decoder inputs <s> + target_ids[:step]) to the source.

    Integrated gradients start at `steps` path points and double them until the completeness gap is within
    `tolerance` or `max_steps` is reached, fewer for long sentences (IG_TOKEN_STEPS bounds the work of one
    request); the result says how many it used and what gap remained.
    """
    if method not in METHODS:
        raise ValueError(f"method={method!r} must be one of {METHODS}")
    if not 0 <= step < len(target_ids):
        raise ValueError(f"step={step} is outside the translation's {len(target_ids)} steps")
    device = next(model.parameters()).device
    with evaluating(model):
        src = torch.tensor([source_ids], device=device)
        inputs, token = [BOS_ID] + list(target_ids[:step]), int(target_ids[step])
        with torch.no_grad():
            embedded = model.embed(src)  # (1, S, D)
        if method == "gradient_x_input":
            e = embedded.clone().requires_grad_(True)
            value = _log_prob(model, src, e, inputs, token, ablation)
            (grad,) = torch.autograd.grad(value.sum(), e)
            scores = (grad * embedded).sum(-1)[0]
            return Attribution(method, scores.detach().cpu().numpy(), float(value.detach()), float("nan"))
        max_steps = max(steps, min(max_steps, IG_TOKEN_STEPS // (len(source_ids) + step + 1)))
        with torch.no_grad():
            ends = _log_prob(model, src, torch.cat([embedded, torch.zeros_like(embedded)]), inputs, token, ablation)
        while True:
            scores = (embedded[0] * _mean_gradient(model, src, embedded, inputs, token, ablation, steps)).sum(
                -1
            )  # (S,)
            result = Attribution(method, scores.detach().cpu().numpy(), float(ends[0]), float(ends[1]), steps)
            if result.completeness_gap <= tolerance or steps * 2 > max_steps:
                return result
            steps *= 2


def _mean_gradient(model, src, embedded, inputs, token, ablation, steps: int) -> torch.Tensor:
    """Mean of ∇_e f over the midpoints α = (k + 0.5) / steps of the path α·e: (S, D)."""
    total = torch.zeros_like(embedded[0])
    alphas = (torch.arange(steps, device=embedded.device, dtype=embedded.dtype) + 0.5) / steps
    for chunk in alphas.split(IG_BATCH):
        path = (chunk[:, None, None] * embedded).requires_grad_(True)  # (n, S, D), baseline 0
        (grads,) = torch.autograd.grad(_log_prob(model, src, path, inputs, token, ablation).sum(), path)
        total += grads.sum(0)
    return total / steps


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ of two score vectors (ties get their mean rank); NaN when either is constant."""
    ra, rb = _ranks(np.asarray(a, dtype=np.float64)), _ranks(np.asarray(b, dtype=np.float64))
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x), dtype=np.float64)
    for value in np.unique(x):  # ties share their mean rank
        tied = x == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks
