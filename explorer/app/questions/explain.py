"""Explain a cell: one attention weight's arithmetic (q, k, q·k/√d_k, the mask, the softmax), from the model's own
projections (`explorer.interpret.explain`)."""

from __future__ import annotations

from typing import Literal

from ...interpret.explain import explain_cell
from ...interpret.request import Index, Kind
from . import Answer, Question, register
from .common import DIGITS, ablation_of, index, labels, layer_head, rounded


class Explain(Question):
    """One attention weight's arithmetic: q, k, q·k/√d_k, the mask, the softmax."""

    what: Literal["explain"] = "explain"
    kind: Kind
    layer: Index
    head: Index
    row: Index
    column: Index


class ExplainAnswer(Answer):
    what: Literal["explain"]
    kind: Kind
    layer: int
    head: int
    row: int
    column: int
    row_token: str
    column_token: str
    column_tokens: list[str]
    query: list[float]
    key: list[float]
    dot: float
    scale: float  # √d_k
    scores: list[float | None]  # the row's q·k/√d_k; None where the mask sets −∞
    max_score: float
    denominator: float
    weights: list[float]
    weight: float


@register(Explain, ExplainAnswer)
def explain(handle, trace, question: Explain) -> ExplainAnswer:
    kind = question.kind
    queries, keys = labels(trace, kind)
    layer, head = layer_head(handle, question)
    row = index(question.row, len(queries), "row")
    column = index(question.column, len(keys), "column")
    ablation = ablation_of(handle, trace.request)
    cell = explain_cell(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, row, column, ablation)
    return ExplainAnswer(
        what="explain",
        kind=kind,
        layer=layer,
        head=head,
        row=row,
        column=column,
        row_token=queries[row],
        column_token=keys[column],
        column_tokens=keys,
        query=rounded(cell.query),
        key=rounded(cell.key),
        dot=round(cell.dot, DIGITS),
        scale=round(cell.scale, DIGITS),
        scores=[round(float(s), DIGITS) if ok else None for s, ok in zip(cell.scores, cell.allowed)],
        max_score=round(cell.max_score, DIGITS),
        denominator=round(cell.denominator, DIGITS),
        weights=rounded(cell.weights),
        weight=round(cell.weight, DIGITS + 2),
    )
