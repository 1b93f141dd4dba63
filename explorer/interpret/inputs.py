"""What a person may ask for: every limit (`LIMITS`), the trace request the core decodes, text and numbers.

Every limit a UI control or an API argument has is declared here once (`LIMITS`); the UI builds its
sliders from it and the schemas of `explorer.app.schemas` put it on their fields, where every request is
validated. A refusal is a `UserError` whose message is shown as is. `TraceRequest` is what the decoders get:
already valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.tokenizer import normalize

MAX_CHARS = 1000  # longer pastes are refused with a message
MAX_REQUEST_BYTES = (
    64 * 1024
)  # one HTTP request to the app (a sentence of MAX_CHARS fits many times over); more is refused unread
HEAD_MEAN = "mean"
STRATEGIES = ("greedy", "sample", "beam")
TOP_CANDIDATES = 10  # next-token candidates reported per step


@dataclass(frozen=True)
class Limit:
    """A numeric control: its range, default and slider step."""

    low: float
    high: float
    default: float
    step: float = 1


LIMITS = {
    "temperature": Limit(0.05, 5.0, 1.0, 0.05),
    "top_k": Limit(0, 50, 0),
    "seed": Limit(0, 2**31 - 1, 0),
    "beam_size": Limit(1, 8, 4),
    "alpha": Limit(0.0, 2.0, 0.6, 0.1),
    "minutes": Limit(0.2, 5.0, 1.0, 0.1),  # one in-app training run
}
LABELS = {
    "temperature": "Temperature",
    "top_k": "Top-k",
    "seed": "Seed",
    "beam_size": "Beam size",
    "alpha": "Length penalty",
    "minutes": "Training time (minutes)",
}


class UserError(ValueError):
    """Something the person typed or chose that cannot be used; the message is shown to them as is."""


def clean_text(text, what: str = "an English sentence") -> str:
    """Normalized text, or a UserError saying what is wrong with it (the length is checked before any work)."""
    if not isinstance(text, str):
        raise UserError(f"Type {what} first.")
    if len(text) > 4 * MAX_CHARS:  # refuse a huge paste before normalizing it
        raise UserError(_too_long(len(text)))
    cleaned = normalize(text)
    if not cleaned:
        raise UserError(f"Type {what} first: the box is empty.")
    if len(cleaned) > MAX_CHARS:
        raise UserError(_too_long(len(cleaned)))
    return cleaned


def _too_long(n: int) -> str:
    return (
        f"That text is {n:,} characters long; the explorer takes up to {MAX_CHARS:,} characters "
        "(a sentence or two). Shorten it and try again."
    )


def shown(value) -> str:
    """A value as a message quotes it: its repr, cut to 40 characters."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        text = f"a {type(value).__name__} too long to show"
    return text if len(text) <= 40 else text[:39] + "…"


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


def flag(value, name: str) -> bool:
    """A yes/no value (a checkbox; missing means no), or a UserError naming it."""
    if value is None or isinstance(value, bool):
        return bool(value)
    raise UserError(f"{name} must be true or false (got {shown(value)}).")


def bounded(value, key: str, integer: bool = False) -> float | int:
    """A number within LIMITS[key], or a UserError naming the value and the range."""
    limit, name = LIMITS[key], LABELS[key]
    result = number(value, name)
    if integer:
        if result != int(result):
            raise UserError(f"{name} must be a whole number (got {shown(value)}).")
        result = int(result)
    if not limit.low <= result <= limit.high:
        low, high = (int(limit.low), int(limit.high)) if integer else (limit.low, limit.high)
        raise UserError(f"{name} {shown(value)} is out of range: choose {low} to {high}.")
    return result


@dataclass(frozen=True)
class TraceRequest:
    """Everything that decides a decode trace; frozen and normalized, so equal requests are equal cache keys.

    Options the strategy ignores are reset to their defaults (a greedy request does not depend on the seed).
    """

    sentence: str
    strategy: str = "greedy"
    temperature: float = LIMITS["temperature"].default
    top_k: int = int(LIMITS["top_k"].default)
    seed: int = int(LIMITS["seed"].default)
    beam_size: int = int(LIMITS["beam_size"].default)
    alpha: float = LIMITS["alpha"].default
    prefix: str = ""  # German text whose tokens are forced first (what-if)
    forced_ids: tuple[int, ...] = ()  # forced target ids (a clicked candidate); overrides `prefix`
    ablation: tuple[tuple[str, int, int], ...] = ()  # switched-off heads, sorted

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence,
            "strategy": self.strategy,
            "temperature": self.temperature,
            "top_k": self.top_k,
            "seed": self.seed,
            "beam_size": self.beam_size,
            "alpha": self.alpha,
            "prefix": self.prefix,
            "forced_ids": list(self.forced_ids),
            "ablation": [list(h) for h in self.ablation],
        }
