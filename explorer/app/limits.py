"""The ranges a request's numbers may take (`LIMITS`, with their `LABELS`), the size of one HTTP request, and the
check that turns a value a person sent into a number, or a `UserError` that names it.

The API's schemas (`schemas.py`) put these ranges on their fields, the viewer gets them in its settings, and the
UI builds its sliders from them (each slider's step is the UI's own); the defaults are the decoders'
(`explorer.interpret.request.DEFAULTS`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..interpret.request import DEFAULTS, UserError, shown

MAX_REQUEST_BYTES = 64 * 1024  # one HTTP request to the app (a sentence of MAX_CHARS fits many times over)


@dataclass(frozen=True)
class Limit:
    """A number's range and default."""

    low: float
    high: float
    default: float


LIMITS = {
    "temperature": Limit(0.05, 5.0, DEFAULTS["temperature"]),
    "top_k": Limit(0, 50, DEFAULTS["top_k"]),
    "seed": Limit(0, 2**31 - 1, DEFAULTS["seed"]),
    "beam_size": Limit(1, 8, DEFAULTS["beam_size"]),
    "alpha": Limit(0.0, 2.0, DEFAULTS["alpha"]),
    "minutes": Limit(0.2, 5.0, 1.0),  # one in-app training run
}
LABELS = {
    "temperature": "Temperature",
    "top_k": "Top-k",
    "seed": "Seed",
    "beam_size": "Beam size",
    "alpha": "Length penalty",
    "minutes": "Training time (minutes)",
}


def number(value, name: str) -> float:
    """A finite number from a UI value (which may arrive as text through the API), or a UserError naming it."""
    if isinstance(value, str) and len(value) > 40:
        raise UserError(f"{name} must be a number (got a text of {len(value):,} characters).")
    if isinstance(value, bool):
        raise UserError(f"{name} must be a number (got {shown(value)}).")
    try:
        result = float(value)
    except OverflowError:
        raise UserError(f"{name} {shown(value)} is far too large.") from None
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a number (got {shown(value)}).") from None
    if not math.isfinite(result):
        raise UserError(f"{name} must be a finite number (got {shown(value)}).")
    return result
