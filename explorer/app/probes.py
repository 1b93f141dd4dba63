"""Questions the viewer asks about the trace it shows, answered on demand as JSON: one cell's arithmetic, which
heads matter, attention against gradient attribution for one step, the beam search tree, the same sentence in the
models trained with and without the look-ahead mask (`maskless.py`). The typed trace (kept
in the shared cache beside its wire form) supplies the tokens and the weights at full precision; the core
(`explorer.interpret`) computes.

A question is one of the schemas of `explorer.app.schemas` (already validated there); what depends on the model
(a layer or row that does not exist) is refused here with a message naming the value. The answer repeats `what`.
"""

from __future__ import annotations

import math

import numpy as np

from ..interpret.attribution import METHODS, attribute, rank_correlation
from ..interpret.decoding import beam_search
from ..interpret.explain import explain_cell
from ..interpret.handle import ModelHandle
from ..interpret.head_importance import HeadImportance, head_gradients, head_importance, spearman
from ..interpret.lens import Lens, lens_of
from ..interpret.no_position import without_position
from ..interpret.qk_space import qk_space
from ..interpret.request import TraceRequest, UserError, shown
from ..interpret.rollout import cross_rollout
from ..interpret.trace import DecodeTrace
from ..interpret.value_path import value_path
from ..model.config import EOS_ID
from ..model.transformer import Ablation
from .maskless import companions
from .schemas import (
    Attribution,
    BeamTree,
    Explain,
    Heads,
    LensQuestion,
    Maskless,
    NoPositionQuestion,
    QKSpaceQuestion,
    Question,
    ValuePathQuestion,
)

DIGITS = 5  # decimals of the numbers sent (the panel shows 3 or 4; the browser test compares to 1e-5)


def answer(handle: ModelHandle, trace: DecodeTrace, question: Question) -> dict:
    """The answer to `question` about `trace` (decoded with `handle`'s model)."""
    request = trace.request
    ablation = _ablation(handle, request)
    out = {"what": question.what}
    if isinstance(question, Explain):
        return out | _explain(handle, trace, question, ablation)
    if isinstance(question, Attribution):
        return out | _attribution(handle, trace, question, ablation)
    if isinstance(question, BeamTree):
        return out | _beam_tree(handle, request, trace, ablation)
    if isinstance(question, Maskless):
        return companions().answer(request.sentence)
    if isinstance(question, ValuePathQuestion):
        return out | _value_path(handle, trace, question, ablation)
    if isinstance(question, QKSpaceQuestion):
        return out | _qk_space(handle, trace, question, ablation)
    if isinstance(question, NoPositionQuestion):
        return out | _no_position(handle, trace)
    if isinstance(question, LensQuestion):
        return out | lens_lists(trace_lens(handle, trace), handle)
    if isinstance(question, Heads):
        return out | _heads(handle, trace, request, question.method)
    raise TypeError(f"no computation for the question {question.what!r}")


def _value_path(handle: ModelHandle, trace: DecodeTrace, question: ValuePathQuestion, ablation) -> dict:
    kind, config = question.kind, handle.config
    rows = len(trace.source_ids) if kind == "encoder_self" else len(trace.target_ids)
    layer = _index(question.layer, config.n_layers(kind), "layer")
    head = _index(question.head, config.n_heads, "head")
    row = _index(question.row, rows, "row")
    p = value_path(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, row, ablation)
    queries = trace.source_tokens if kind == "encoder_self" else trace.target_tokens
    keys = {"encoder_self": trace.source_tokens, "cross": trace.source_tokens}.get(kind, trace.decoder_input_tokens)
    vectors = ("x", "normed", "query", "weights", "z", "concat", "out", "residual")
    return {
        "kind": kind,
        "layer": layer,
        "head": head,
        "row": row,
        "row_token": queries[row],
        "key_tokens": keys[: len(p.weights)],
        "d_model": config.d_model,
        "d_head": config.d_head,
        "norm_first": p.norm_first,
        "embedding": None if p.embedding is None else _round(p.embedding),
        "position": None if p.position is None else _round(p.position),
        "keys": [_round(k) for k in p.keys],
        "values": [_round(v) for v in p.values],
    } | {name: _round(getattr(p, name)) for name in vectors}


def _qk_space(handle: ModelHandle, trace: DecodeTrace, question: QKSpaceQuestion, ablation) -> dict:
    kind, config = question.kind, handle.config
    layer = _index(question.layer, config.n_layers(kind), "layer")
    head = _index(question.head, config.n_heads, "head")
    space = qk_space(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, ablation)
    queries = trace.source_tokens if kind == "encoder_self" else trace.target_tokens
    keys = {"encoder_self": trace.source_tokens, "cross": trace.source_tokens}.get(kind, trace.decoder_input_tokens)
    return {
        "kind": kind,
        "layer": layer,
        "head": head,
        "query_tokens": queries,
        "key_tokens": keys,
        "query_points": [_round(p) for p in space.query_points],
        "key_points": [_round(p) for p in space.key_points],
        "weights": [_round(w) for w in space.weights],
        "explained": _round(space.explained),
        "components": [_round(c) for c in space.components],
        "mean": _round(space.mean),
    }


def _no_position(handle: ModelHandle, trace: DecodeTrace) -> dict:
    found = without_position(handle.model, trace.source_ids)
    text = {name: handle.tokenizer.decode([i for i in ids if i != EOS_ID]) for name, ids in found.translations.items()}
    return {
        "source_tokens": trace.source_tokens,
        "order": found.order,
        "original": [[[_round(r) for r in h] for h in layer] for layer in found.original],
        "reversed": [[[_round(r) for r in h] for h in layer] for layer in found.reversed],
        "gap_without": float(f"{found.gap_without:.3g}"),
        "gap_with": round(found.gap_with, DIGITS),
        "translations": text,
    }


def _explain(handle: ModelHandle, trace: DecodeTrace, question: Explain, ablation) -> dict:
    kind = question.kind
    config = handle.config
    S, T = len(trace.source_ids), len(trace.target_ids)
    rows, columns = (S, S) if kind == "encoder_self" else (T, T) if kind == "decoder_self" else (T, S)
    layer = _index(question.layer, config.n_layers(kind), "layer")
    head = _index(question.head, config.n_heads, "head")
    row = _index(question.row, rows, "row")
    column = _index(question.column, columns, "column")
    cell = explain_cell(handle.model, trace.source_ids, trace.target_ids, kind, layer, head, row, column, ablation)
    labels = {
        "encoder_self": (trace.source_tokens, trace.source_tokens),
        "decoder_self": (trace.target_tokens, trace.decoder_input_tokens),
        "cross": (trace.target_tokens, trace.source_tokens),
    }[kind]
    return {
        "kind": kind,
        "layer": layer,
        "head": head,
        "row": row,
        "column": column,
        "row_token": labels[0][row],
        "column_token": labels[1][column],
        "column_tokens": labels[1],
        "query": _round(cell.query),
        "key": _round(cell.key),
        "dot": round(cell.dot, DIGITS),
        "scale": round(cell.scale, DIGITS),
        "scores": [round(float(s), DIGITS) if ok else None for s, ok in zip(cell.scores, cell.allowed)],
        "max_score": round(cell.max_score, DIGITS),
        "denominator": round(cell.denominator, DIGITS),
        "weights": _round(cell.weights),
        "weight": round(cell.weight, DIGITS + 2),
    }


def _heads(handle: ModelHandle, trace: DecodeTrace, request: TraceRequest, method: str) -> dict:
    """The estimate alone (one pass), or the exact drops with the estimate and their rank correlation beside them."""
    args = (handle.model, trace.source_ids, trace.target_ids)
    estimate = head_gradients(*args, off=request.ablation)
    exact = head_importance(*args, off=request.ablation) if method == "exact" else None
    result = exact or estimate
    return {
        "method": method,
        "log_prob": round(result.log_prob, DIGITS),
        "drops": _drops(result),
        "translation": trace.outputs[-1],
        "estimate": _drops(estimate) if exact else None,
        "rho": _finite(spearman(_flat(exact), _flat(estimate))) if exact else None,
    }


def _drops(importance: HeadImportance) -> dict:
    return {kind: [[_finite(v) for v in row] for row in drops] for kind, drops in importance.drops.items()}


def _flat(importance: HeadImportance) -> np.ndarray:
    return np.concatenate([drops.ravel() for drops in importance.drops.values()])


def _attribution(handle: ModelHandle, trace: DecodeTrace, question: Attribution, ablation) -> dict:
    """Step `step`'s token (1..T) attributed to the source by both methods, beside a cross-attention row."""
    config = handle.config
    T = len(trace.target_ids)
    step = _index(question.step, T + 1, "step")
    layer = _index(question.layer, config.n_decoder_layers, "layer")
    head = question.head
    cross = trace.cross  # (Ld, H, T, S)
    if head == "mean":
        row, which = cross[layer, :, step - 1].mean(0), f"L{layer}, mean of heads"
    elif head == "rollout":
        rollout = cross_rollout(trace.cross, trace.encoder_self)  # (Ld, T, S), as the wire sends it
        row, which = rollout[layer, step - 1], f"L{layer}, attention rollout"
    else:
        head = _index(head, config.n_heads, "head")
        row, which = cross[layer, head, step - 1], f"L{layer}·H{head}"
    methods = {}
    for method in METHODS:
        result = attribute(handle.model, trace.source_ids, trace.target_ids, step - 1, method, ablation=ablation)
        methods[method] = {
            "scores": _round(result.scores),
            "rank_correlation": _finite(rank_correlation(result.scores, row)),
            "log_prob": round(result.log_prob, DIGITS),
        }
        if method == "integrated_gradients":
            methods[method] |= {
                "steps": result.steps,
                "baseline_log_prob": round(result.baseline_log_prob, DIGITS),
                "completeness_gap": round(result.completeness_gap, 4),
            }
    return {
        "step": step,
        "token": trace.target_tokens[step - 1],
        "source_tokens": trace.source_tokens,
        "attention": {"which": which, "weights": _round(row)},
        "methods": methods,
    }


def _beam_tree(handle: ModelHandle, request: TraceRequest, trace: DecodeTrace, ablation) -> dict:
    """Every hypothesis beam search kept, pruned, finished or cut for this sentence (the request's beam size
    and length penalty, or the defaults), the winner marked."""
    beam_size, alpha = request.beam_size, request.alpha  # the defaults where the request is not a beam search
    nodes: list = []
    beams = beam_search(handle.model, trace.source_ids, beam_size, alpha, ablation=ablation, tree=nodes)
    pieces = handle.tokenizer.pieces([n.token for n in nodes])
    return {
        "beam_size": beam_size,
        "alpha": alpha,
        "winner": beams[0].node,
        "translation": handle.tokenizer.decode(beams[0].ids),
        "nodes": [
            {
                "id": n.id,
                "parent": n.parent,
                "step": n.step,
                "token": piece,
                "token_id": n.token,
                "log_prob": round(n.log_prob, 4),
                "status": n.status,
                "score": None if n.score is None else round(n.score, 4),
            }
            for n, piece in zip(nodes, pieces)
        ],
    }


def trace_lens(handle: ModelHandle, trace: DecodeTrace) -> Lens:
    """The logit lens of `trace`: its decode's chosen tokens, with its switched-off heads."""
    return lens_of(handle.model, trace.source_ids, trace.target_ids, _ablation(handle, trace.request))


def lens_lists(lens: Lens, handle: ModelHandle) -> dict:
    """The logit lens as plain lists ([layer][step][rank]): small, layers × steps × LENS_TOP."""
    pieces = handle.tokenizer.pieces
    return {
        "top_tokens": [[pieces(ids) for ids in layer.tolist()] for layer in lens.top_ids],
        "top_ids": lens.top_ids.tolist(),
        "top_probs": np.round(lens.top_probs.astype(np.float64), 4).tolist(),
        "chosen": np.round(lens.chosen.astype(np.float64), 4).tolist(),
    }


def _ablation(handle: ModelHandle, request: TraceRequest) -> Ablation | None:
    """The trace's switched-off heads: the explained weights are those of the model the trace shows."""
    return Ablation(handle.config, request.ablation) if request.ablation else None


def _index(value, size: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
        raise UserError(f"The viewer asked for {name} {shown(value)}, which does not exist (0 to {size - 1}).")
    return value


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined correlation (a constant row) travels as null."""
    value = float(value)  # a numpy scalar would travel as a string
    return round(value, DIGITS) if math.isfinite(value) else None


def _round(values) -> list:
    return [round(float(v), DIGITS) for v in values]
