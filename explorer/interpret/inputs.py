"""What a person may ask for: validated trace requests, text, numbers and heads, with messages that name the value.

Every limit a UI control or an API argument has is declared here once (`LIMITS`); the UI builds its
sliders from it and the core refuses anything outside it with a `UserError` whose message is shown as is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.config import ATTENTION_KINDS
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


def parse_kind(kind) -> str:
    if kind not in ATTENTION_KINDS:
        raise UserError(f"Unknown attention kind {str(kind)[:40]!r}; choose one of {', '.join(ATTENTION_KINDS)}.")
    return kind


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


def parse_request(
    sentence,
    strategy="greedy",
    temperature=LIMITS["temperature"].default,
    top_k=LIMITS["top_k"].default,
    seed=LIMITS["seed"].default,
    beam_size=LIMITS["beam_size"].default,
    alpha=LIMITS["alpha"].default,
    prefix="",
    forced_ids=(),
    ablation=(),
    max_forced: int = 256,
) -> TraceRequest:
    """Validate every field of a trace request; the first bad one raises a UserError that names it."""
    text = clean_text(sentence)
    if strategy not in STRATEGIES:
        raise UserError(f"Unknown strategy {str(strategy)[:40]!r}; choose one of {', '.join(STRATEGIES)}.")
    values = dict(
        temperature=bounded(temperature, "temperature"),
        top_k=bounded(top_k if top_k is not None else 0, "top_k", integer=True),
        seed=bounded(seed if seed is not None else 0, "seed", integer=True),
        beam_size=bounded(beam_size, "beam_size", integer=True),
        alpha=bounded(alpha, "alpha"),
    )
    defaults = TraceRequest("x")
    if strategy != "sample":
        values.update(temperature=defaults.temperature, top_k=defaults.top_k, seed=defaults.seed)
    if strategy != "beam":
        values.update(beam_size=defaults.beam_size, alpha=defaults.alpha)
    if prefix is None:
        prefix = ""
    if not isinstance(prefix, str):
        raise UserError(f"The German prefix must be text (got {type(prefix).__name__}).")
    prefix = clean_text(prefix, "a German prefix") if prefix.strip() else ""
    forced = _forced_ids(forced_ids, max_forced)
    if forced:
        prefix = ""
    return TraceRequest(text, strategy, forced_ids=forced, prefix=prefix, ablation=_ablation(ablation), **values)


def _forced_ids(ids, max_forced: int) -> tuple[int, ...]:
    if ids is None or ids == "":
        return ()
    if not isinstance(ids, (list, tuple)):
        raise UserError(f"Forced token ids must be a list of numbers (got {str(ids)[:40]!r}).")
    if len(ids) > max_forced:
        raise UserError(f"{len(ids)} forced tokens are more than the model can produce ({max_forced}).")
    out = []
    for value in ids:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
            raise UserError(f"Forced token id {str(value)[:40]!r} is not a token id.")
        out.append(value)
    return tuple(out)


def _ablation(heads) -> tuple[tuple[str, int, int], ...]:
    """[(kind, layer, head), ...] in any order -> a sorted tuple; ranges are checked against the model later."""
    if heads is None or heads == "":
        return ()
    if not isinstance(heads, (list, tuple)) or len(heads) > 1024:
        raise UserError(f"Switched-off heads must be a list of [kind, layer, head] (got {str(heads)[:40]!r}).")
    out = set()
    for item in heads:
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            raise UserError(f"{str(item)[:40]!r} is not a head: give [kind, layer, head].")
        kind, layer, head = item
        parse_kind(kind)
        if any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 4096 for v in (layer, head)):
            raise UserError(f"{str(item)[:40]!r} is not a head: layer and head must be small whole numbers.")
        out.add((kind, layer, head))
    return tuple(sorted(out))


LINK_FIELDS = {  # deep-link parameter -> TraceRequest field (explorer/ui/static/link.js writes the same names)
    "s": "sentence",
    "strategy": "strategy",
    "temperature": "temperature",
    "top_k": "top_k",
    "seed": "seed",
    "beam_size": "beam_size",
    "alpha": "alpha",
    "prefix": "prefix",
    "forced": "forced_ids",
    "ablate": "ablation",
}


def parse_link(params) -> TraceRequest | None:
    """The trace request a deep link's query parameters describe, or None when the link names no sentence."""
    if not params.get("s"):
        return None
    values = {field: params[name] for name, field in LINK_FIELDS.items() if name in params}
    if "forced_ids" in values:
        values["forced_ids"] = _link_ints(values["forced_ids"], "forced")
    if "ablation" in values:
        heads = []
        for item in str(values["ablation"]).split(","):
            parts = item.split(".")
            if len(parts) != 3:
                raise UserError(f"The link's ablate={str(item)[:40]!r} is not a head: heads look like cross.2.1.")
            heads.append([parts[0], *_link_ints(",".join(parts[1:]), "ablate")])
        values["ablation"] = heads
    return parse_request(**values)


def _link_ints(text, name: str) -> list[int]:
    try:
        return [int(x) for x in str(text)[:4000].split(",") if x.strip()]
    except ValueError:
        raise UserError(f"The link's {name}={str(text)[:40]!r} must be whole numbers separated by commas.") from None
