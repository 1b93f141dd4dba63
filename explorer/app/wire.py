"""The trace's wire form: compact JSON for the browser and the `/trace` API, and its exact inverse.

Attention weights travel as unsigned 16-bit integers, w ≈ q / 65535: the absolute error is at most
1/131070 ≈ 7.6e-6 per weight, 0 and 1 stay exact (so the masked future is exactly 0). The decoder_self
scores travel as signed 16-bit integers with one scale per array, s ≈ q · scale with
scale = max|s| / 32767: the absolute error is at most scale / 2. Each array is
{"shape", "dtype", "scale", "data"}: base64 of the little-endian integers in C order, so

    numpy.frombuffer(base64.b64decode(a["data"]), a["dtype"]).reshape(a["shape"]) * a["scale"]

gives the floats back in any language with base64 and typed arrays.
"""

from __future__ import annotations

import base64
from dataclasses import asdict

import numpy as np

from ..interpret.handle import ModelHandle
from ..interpret.rollout import cross_rollout, encoder_rollout
from ..interpret.trace import DecodeTrace
from .gold import gold_of

VERSION = 1
WEIGHT_DTYPE, WEIGHT_LEVELS = "<u2", 65535
SCORE_DTYPE, SCORE_LEVELS = "<i2", 32767
WEIGHT_ERROR = 0.5 / WEIGHT_LEVELS  # the largest absolute error of a weight after the round trip


def pack_weights(weights: np.ndarray) -> dict:
    """Probabilities in [0, 1] -> 16-bit wire array."""
    q = np.rint(np.clip(weights, 0.0, 1.0) * WEIGHT_LEVELS).astype(WEIGHT_DTYPE)
    return _array(q, 1.0 / WEIGHT_LEVELS)


def pack_scores(scores: np.ndarray) -> dict:
    """Real scores -> 16-bit wire array with one scale."""
    peak = float(np.abs(scores).max()) if scores.size else 0.0
    scale = peak / SCORE_LEVELS if peak > 0 else 1.0
    q = np.rint(scores / scale).astype(SCORE_DTYPE)
    return _array(q, scale)


def _array(q: np.ndarray, scale: float) -> dict:
    return {
        "shape": list(q.shape),
        "dtype": np.dtype(q.dtype).str,
        "scale": scale,
        "data": base64.b64encode(np.ascontiguousarray(q).tobytes()).decode("ascii"),
    }


def unpack(array: dict) -> np.ndarray:
    """A wire array back to float32."""
    q = np.frombuffer(base64.b64decode(array["data"]), np.dtype(array["dtype"])).reshape(array["shape"])
    return (q.astype(np.float64) * float(array["scale"])).astype(np.float32)


def languages(handle: ModelHandle) -> dict:
    """The model's language pair as `schemas.Languages`: codes and names."""
    pair = handle.languages
    return {
        "source": pair.source,
        "target": pair.target,
        "source_name": pair.source_name,
        "target_name": pair.target_name,
    }


def to_wire(trace: DecodeTrace, handle: ModelHandle) -> dict:
    """The trace as JSON-ready data: tokens and steps as plain values, attention as packed arrays."""
    config = handle.config
    best = handle.best_head
    return {
        "version": VERSION,
        "model": {
            "name": handle.name,
            "fingerprint": handle.fingerprint,
            "n_layers": {
                "encoder_self": config.n_encoder_layers,
                "decoder_self": config.n_decoder_layers,
                "cross": config.n_decoder_layers,
            },
            "n_heads": config.n_heads,
            "d_head": config.d_head,
            "best_head": {"kind": best[0], "layer": best[1], "head": best[2]} if best else None,
            "languages": languages(handle),
        },
        "request": trace.request.model_dump(mode="json"),
        "source_tokens": trace.source_tokens,
        "source_ids": trace.source_ids,
        "target_tokens": trace.target_tokens,
        "target_ids": trace.target_ids,
        "decoder_input_tokens": trace.decoder_input_tokens,
        "outputs": trace.outputs,
        "finished": trace.finished,
        "notes": trace.notes,
        "beams": [asdict(b) | {"score": round(b.score, 4), "log_prob": round(b.log_prob, 4)} for b in trace.beams],
        "steps": [
            {
                "token": s.token,
                "id": s.token_id,
                "prob": round(s.prob, 6),
                "forced": s.forced,
                "top": [
                    {"token": t, "id": i, "prob": round(p, 6)} for t, i, p in zip(s.top_tokens, s.top_ids, s.top_probs)
                ],
            }
            for s in trace.steps
        ],
        "attention": {
            "encoder_self": pack_weights(trace.encoder_self),
            "decoder_self": pack_weights(trace.decoder_self),
            "cross": pack_weights(trace.cross),
        },
        "scores": {"decoder_self": pack_scores(trace.decoder_self_scores)},
        "gold": gold_of(trace, handle),
        "rollout": {  # explorer.interpret.rollout: (Le, S, S) after each encoder layer; (Ld, T, S) per decoder layer
            "encoder_self": pack_weights(encoder_rollout(trace.encoder_self)),
            "cross": pack_weights(cross_rollout(trace.cross, trace.encoder_self)),
        },
    }
