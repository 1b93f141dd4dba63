"""The value path: what one head carries for one query, from the residual stream through LN, q/k/v, the weights and
Σ w·v to the output projection and back (`explorer.interpret.value_path`)."""

from __future__ import annotations

from typing import Literal

from ...interpret.request import Index, Kind
from ...interpret.value_path import value_path as path_of
from . import Answer, Question, register
from .common import ablation_of, index, labels, layer_head, rounded

VECTORS = ("x", "normed", "query", "weights", "z", "concat", "out", "residual")


class ValuePathQuestion(Question):
    """What head `head` of `kind` layer `layer` carries for query `row`: x, LN(x), q/k/v, weights, Σ w·v, the heads
    concatenated, the output projection and the residual."""

    what: Literal["value_path"] = "value_path"
    kind: Kind
    layer: Index
    head: Index
    row: Index


class ValuePathAnswer(Answer):
    what: Literal["value_path"]
    kind: Kind
    layer: int
    head: int
    row: int
    row_token: str
    key_tokens: list[str]  # the keys the query may see
    d_model: int
    d_head: int
    norm_first: bool
    embedding: list[float] | None  # embedding · √d_model, at layer 0 of a self-attention
    position: list[float] | None  # PE(row), likewise
    x: list[float]
    normed: list[float]
    query: list[float]
    keys: list[list[float]]
    values: list[list[float]]
    weights: list[float]
    z: list[float]  # Σ_j w_j v_j
    concat: list[float]  # every head's z side by side (the module's own)
    out: list[float]
    residual: list[float]


@register(ValuePathQuestion, ValuePathAnswer)
def value_path(handle, trace, question: ValuePathQuestion) -> ValuePathAnswer:
    kind, config = question.kind, handle.config
    queries, keys = labels(trace, kind)
    layer, head = layer_head(handle, question)
    row = index(question.row, len(queries), "row")
    ablation = ablation_of(handle, trace.request)
    p = path_of(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, row, ablation)
    return ValuePathAnswer(
        what="value_path",
        kind=kind,
        layer=layer,
        head=head,
        row=row,
        row_token=queries[row],
        key_tokens=keys[: len(p.weights)],
        d_model=config.d_model,
        d_head=config.d_head,
        norm_first=p.norm_first,
        embedding=None if p.embedding is None else rounded(p.embedding),
        position=None if p.position is None else rounded(p.position),
        keys=[rounded(k) for k in p.keys],
        values=[rounded(v) for v in p.values],
        **{name: rounded(getattr(p, name)) for name in VECTORS},
    )
