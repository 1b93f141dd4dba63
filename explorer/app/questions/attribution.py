"""Attention against attribution: one step's token attributed to the source by gradient × input and integrated
gradients (`explorer.interpret.attribution`), beside a cross-attention row."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...interpret.attribution import METHODS, attribute, rank_correlation
from ...interpret.request import Index
from ...interpret.rollout import cross_rollout
from ..schemas import Sent
from . import Answer, Question, register
from .common import DIGITS, ablation_of, finite, index, rounded


class Attribution(Question):
    """Step `step`'s token attributed to the source, beside one cross-attention row (a head, the mean, rollout)."""

    what: Literal["attribution"] = "attribution"
    step: Annotated[int, Field(ge=1, lt=4096)]
    layer: Index
    head: Index | Literal["mean", "rollout"]


class AttentionRow(Sent):
    which: str
    weights: list[float]


class AttributionMethod(Sent):
    scores: list[float]
    rank_correlation: float | None  # None: undefined (a constant row)
    log_prob: float
    steps: int | None = None  # integrated gradients only
    baseline_log_prob: float | None = None
    completeness_gap: float | None = None


class AttributionAnswer(Answer):
    what: Literal["attribution"]
    step: int
    token: str
    source_tokens: list[str]
    attention: AttentionRow
    methods: dict[Literal["gradient_x_input", "integrated_gradients"], AttributionMethod]


@register(Attribution, AttributionAnswer)
def attribution(handle, trace, question: Attribution) -> AttributionAnswer:
    """Step `step`'s token (1..T) attributed to the source by both methods, beside a cross-attention row."""
    config = handle.config
    step = index(question.step, len(trace.target_ids) + 1, "step")
    layer = index(question.layer, config.n_decoder_layers, "layer")
    head, cross = question.head, trace.cross  # (Ld, H, T, S)
    if head == "mean":
        row, which = cross[layer, :, step - 1].mean(0), f"L{layer}, mean of heads"
    elif head == "rollout":
        rollout = cross_rollout(trace.cross, trace.encoder_self)  # (Ld, T, S), as the wire sends it
        row, which = rollout[layer, step - 1], f"L{layer}, attention rollout"
    else:
        head = index(head, config.n_heads, "head")
        row, which = cross[layer, head, step - 1], f"L{layer}·H{head}"
    ablation, methods = ablation_of(handle, trace.request), {}
    for method in METHODS:
        result = attribute(handle.model, trace.source_ids, trace.target_ids, step - 1, method, ablation=ablation)
        methods[method] = {
            "scores": rounded(result.scores),
            "rank_correlation": finite(rank_correlation(result.scores, row)),
            "log_prob": round(result.log_prob, DIGITS),
        }
        if method == "integrated_gradients":
            methods[method] |= {
                "steps": result.steps,
                "baseline_log_prob": round(result.baseline_log_prob, DIGITS),
                "completeness_gap": round(result.completeness_gap, 4),
            }
    return AttributionAnswer(
        what="attribution",
        step=step,
        token=trace.target_tokens[step - 1],
        source_tokens=trace.source_tokens,
        attention=AttentionRow(which=which, weights=rounded(row)),
        methods=methods,
    )
