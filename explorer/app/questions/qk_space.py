"""Q·K space: one head's queries and keys projected together onto two principal directions
(`explorer.interpret.qk_space`)."""

from __future__ import annotations

from typing import Literal

from ...interpret.qk_space import qk_space as space_of
from ...interpret.request import Index, Kind
from . import Answer, Question, register
from .common import ablation_of, labels, layer_head, rounded


class QKSpaceQuestion(Question):
    """Head `head` of `kind` layer `layer`: every query and key projected together onto two principal directions."""

    what: Literal["qk_space"] = "qk_space"
    kind: Kind
    layer: Index
    head: Index


class QKSpaceAnswer(Answer):
    what: Literal["qk_space"]
    kind: Kind
    layer: int
    head: int
    query_tokens: list[str]
    key_tokens: list[str]
    query_points: list[list[float]]  # [query][x, y]
    key_points: list[list[float]]  # [key][x, y]
    weights: list[list[float]]  # [query][key]
    explained: list[float]  # the share of the variance of each direction
    components: list[list[float]]  # the two directions (d_head each)
    mean: list[float]  # the centre subtracted first


@register(QKSpaceQuestion, QKSpaceAnswer)
def qk_space(handle, trace, question: QKSpaceQuestion) -> QKSpaceAnswer:
    kind = question.kind
    layer, head = layer_head(handle, question)
    ablation = ablation_of(handle, trace.request)
    space = space_of(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, ablation)
    queries, keys = labels(trace, kind)
    return QKSpaceAnswer(
        what="qk_space",
        kind=kind,
        layer=layer,
        head=head,
        query_tokens=queries,
        key_tokens=keys,
        query_points=[rounded(p) for p in space.query_points],
        key_points=[rounded(p) for p in space.key_points],
        weights=[rounded(w) for w in space.weights],
        explained=rounded(space.explained),
        components=[rounded(c) for c in space.components],
        mean=rounded(space.mean),
    )
