"""What the questions' computations share: the decimals sent, the checks of an index against the model, and the
trace's switched-off heads."""

from __future__ import annotations

import math

from ...errors import UserError, shown
from ...interpret.handle import ModelHandle
from ...interpret.request import TraceRequest
from ...model.transformer import Ablation

DIGITS = 5  # decimals of the numbers sent (the panel shows 3 or 4; the browser test compares to 1e-5)


def ablation_of(handle: ModelHandle, request: TraceRequest) -> Ablation | None:
    """The trace's switched-off heads: the explained weights are those of the model the trace shows."""
    return Ablation(handle.config, request.ablation) if request.ablation else None


def index(value, size: int, name: str) -> int:
    """`value` as an index below `size`, or a UserError naming it (a layer, head or row the model does not have)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
        raise UserError(f"The viewer asked for {name} {shown(value)}, which does not exist (0 to {size - 1}).")
    return value


def layer_head(handle: ModelHandle, question) -> tuple[int, int]:
    """The layer and head a question names, checked against the model (its `kind`'s layers)."""
    config = handle.config
    return index(question.layer, config.n_layers(question.kind), "layer"), index(question.head, config.n_heads, "head")


def finite(value: float) -> float | None:
    """JSON has no NaN: an undefined correlation (a constant row) travels as null."""
    value = float(value)  # a numpy scalar would travel as a string
    return round(value, DIGITS) if math.isfinite(value) else None


def rounded(values) -> list:
    return [round(float(v), DIGITS) for v in values]


def labels(trace, kind: str) -> tuple[list[str], list[str]]:
    """(query tokens, key tokens) of an attention kind in `trace` (a decoder query: the token its position makes)."""
    return {
        "encoder_self": (trace.source_tokens, trace.source_tokens),
        "decoder_self": (trace.target_tokens, trace.decoder_input_tokens),
        "cross": (trace.target_tokens, trace.source_tokens),
    }[kind]
