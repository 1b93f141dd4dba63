"""Heads that matter: the log-probability the translation loses with each head off alone, estimated in one pass or
exact (`explorer.interpret.head_importance`)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...interpret.head_importance import HeadImportance, head_gradients, head_importance, spearman, top_overlap
from ...interpret.request import Kind
from . import Answer, Question, register
from .common import DIGITS, finite


class Heads(Question):
    """The log-probability the translation loses with each head off alone: estimated to first order in one pass (the
    gradient of a gate on each head's output, Michel et al. 2019), or exact (each head switched off), which comes
    with the estimate beside it and the rank correlation of the two."""

    what: Literal["heads"] = "heads"
    method: Literal["estimate", "exact"] = "exact"


class HeadsAnswer(Answer):
    what: Literal["heads"]
    method: Literal["estimate", "exact"]
    drops: dict[Kind, list[list[float | None]]]  # [layer][head]: log p lost with that head off; None: off already
    log_prob: float
    translation: str
    estimate: dict[Kind, list[list[float | None]]] | None  # exact answers: the one-pass estimate, on the same scale
    rho: float | None  # exact answers: Spearman's rank correlation of the estimate with the exact drops
    top3: int | None  # exact answers: how many of the exact top 3 heads the estimate's top 3 also names (0-3)


@register(Heads, HeadsAnswer)
def heads(handle, trace, question: Heads) -> HeadsAnswer:
    """The estimate alone (one pass), or the exact drops with the estimate and their rank correlation beside them."""
    args, off = (handle.model, trace.source_ids, trace.target_ids), trace.request.ablation
    estimate = head_gradients(*args, off=off)
    exact = head_importance(*args, off=off) if question.method == "exact" else None
    result = exact or estimate
    return HeadsAnswer(
        what="heads",
        method=question.method,
        log_prob=round(result.log_prob, DIGITS),
        drops=_drops(result),
        translation=trace.outputs[-1],
        estimate=_drops(estimate) if exact else None,
        rho=finite(spearman(_flat(exact), _flat(estimate))) if exact else None,
        top3=top_overlap(_flat(exact), _flat(estimate)) if exact else None,
    )


def _drops(importance: HeadImportance) -> dict:
    return {kind: [[finite(v) for v in row] for row in drops] for kind, drops in importance.drops.items()}


def _flat(importance: HeadImportance) -> np.ndarray:
    return np.concatenate([drops.ravel() for drops in importance.drops.values()])
