"""The beam tree: every hypothesis beam search kept, pruned, finished or cut for the sentence
(`explorer.interpret.decoding.beam_search` with its tree recorded)."""

from __future__ import annotations

from typing import Literal

from ...interpret.decoding import beam_search
from ..schemas import Sent
from . import Answer, Question, register
from .common import ablation_of


class BeamTree(Question):
    """Every hypothesis beam search kept, pruned, finished or cut."""

    what: Literal["beam_tree"] = "beam_tree"


class BeamNode(Sent):
    id: int
    parent: int  # -1: the root <s>
    step: int
    token: str
    token_id: int
    log_prob: float
    status: Literal["kept", "pruned", "finished", "cut"]
    score: float | None


class BeamTreeAnswer(Answer):
    what: Literal["beam_tree"]
    beam_size: int
    alpha: float
    winner: int
    translation: str
    nodes: list[BeamNode]


@register(BeamTree, BeamTreeAnswer, priority=2)  # the page asks it by itself (the line under the greedy output)
def beam_tree(handle, trace, question: BeamTree) -> BeamTreeAnswer:
    """The request's beam size and length penalty (the defaults where the request is not a beam search)."""
    request, nodes = trace.request, []
    found = beam_search(
        handle.model, trace.source_ids, request.beam_size, request.alpha, ablation=ablation_of(handle, request),
        tree=nodes,
    )  # fmt: skip
    pieces = handle.tokenizer.pieces([n.token for n in nodes])
    return BeamTreeAnswer(
        what="beam_tree",
        beam_size=request.beam_size,
        alpha=request.alpha,
        winner=found[0].node,
        translation=handle.tokenizer.decode(found[0].ids),
        nodes=[
            BeamNode(
                id=n.id,
                parent=n.parent,
                step=n.step,
                token=piece,
                token_id=n.token,
                log_prob=round(n.log_prob, 4),
                status=n.status,
                score=None if n.score is None else round(n.score, 4),
            )
            for n, piece in zip(nodes, pieces)
        ],
    )
