"""What the core is asked to decode: `TraceRequest`, with the decoding defaults (`DEFAULTS`), the text it takes
(`clean_text`), and `UserError`, the refusal whose message a person reads as is.

The ranges a request's numbers may take and the size of an HTTP request are the app's facts
(`explorer.app.limits`); a slider's step is the UI's. `TraceRequest` is what the decoders get: already valid.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.tokenizer import normalize

MAX_CHARS = 1000  # longer pastes are refused with a message
HEAD_MEAN = "mean"
STRATEGIES = ("greedy", "sample", "beam")
TOP_CANDIDATES = 10  # next-token candidates reported per step
# what a request that names no option decodes with (beam search's length penalty α as in Wu et al. 2016)
DEFAULTS = {"temperature": 1.0, "top_k": 0, "seed": 0, "beam_size": 4, "alpha": 0.6}


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


@dataclass(frozen=True)
class TraceRequest:
    """Everything that decides a decode trace; frozen and normalized, so equal requests are equal cache keys.

    Options the strategy ignores are reset to their defaults (a greedy request does not depend on the seed).
    """

    sentence: str
    strategy: str = "greedy"
    temperature: float = DEFAULTS["temperature"]
    top_k: int = DEFAULTS["top_k"]
    seed: int = DEFAULTS["seed"]
    beam_size: int = DEFAULTS["beam_size"]
    alpha: float = DEFAULTS["alpha"]
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
