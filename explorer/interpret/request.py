"""What the core is asked to decode: `TraceRequest`, the one trace request of the whole app, with the text it takes
(`clean_text`); what cannot be used is refused with a `UserError` (`explorer/errors.py`).

`TraceRequest` is a frozen pydantic model. Each field carries its own limits, default and title, and the validators
normalise it: a sentence is cleaned, switched-off heads are sorted, and the options the strategy does not read are
reset to their defaults (a greedy request does not depend on the seed). Equal decodes are therefore equal requests.
The same model is the API's query string and JSON body (FastAPI validates it), the trace cache's key and the echo
in the wire trace. The browser gets its fields and defaults from the page's settings (`fields`), and a deep link
uses the same names: `?sentence=...&forced_ids=5&forced_ids=9&ablation=cross.2.1`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from ..errors import UserError, shown
from ..model.tokenizer import normalize

MAX_CHARS = 1000  # longer pastes are refused with a message
HEAD_MEAN = "mean"
STRATEGIES = ("greedy", "sample", "beam")
TOP_CANDIDATES = 10  # next-token candidates reported per step
MAX_FORCED = 256  # forced target tokens in one request (more than any model here produces)
MAX_HEADS = 1024  # switched-off heads listed in one request
MODEL_KEY = r"^[A-Za-z0-9_-]{1,64}$"  # a shipped model's key ("shipped": the default), or a trained model's
SHIPPED = "shipped"
# the options each strategy reads; the others are reset to their defaults
READS = {"sample": ("temperature", "top_k", "seed"), "beam": ("beam_size", "alpha"), "greedy": ()}


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


def _head(value):
    """A switched-off head as `[kind, layer, head]`; a query string or a link names it `cross.2.1`."""
    if isinstance(value, str):
        parts = value.split(".")
        if len(parts) != 3:
            raise UserError(f"{shown(value)} is not a head: heads look like cross.2.1 (kind.layer.head).")
        return parts
    return value


Kind = Literal["encoder_self", "decoder_self", "cross"]
Index = Annotated[int, Field(ge=0, lt=4096)]
TokenId = Annotated[int, Field(ge=0, lt=2**31)]
Head = Annotated[tuple[Kind, Index, Index], BeforeValidator(_head)]


class TraceRequest(BaseModel):
    """A decode to trace: the sentence, the strategy and its options, forced tokens, switched-off heads, the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sentence: str = Field(max_length=4 * MAX_CHARS, title="The sentence")
    strategy: Literal[STRATEGIES] = Field("greedy", title="Strategy")
    temperature: float = Field(1.0, ge=0.05, le=5.0, title="Temperature")
    top_k: int = Field(0, ge=0, le=50, title="Top-k", description="0 = off")
    seed: int = Field(0, ge=0, le=2**31 - 1, title="Seed")
    beam_size: int = Field(4, ge=1, le=8, title="Beam size")
    alpha: float = Field(0.6, ge=0.0, le=2.0, title="Length penalty α")  # beam search's, as in Wu et al. 2016
    prefix: str = Field(
        "",
        max_length=4 * MAX_CHARS,
        title="The target prefix",
        description="text in the target language (German for the shipped models), forced first",
    )
    forced_ids: tuple[TokenId, ...] = Field(
        (), max_length=MAX_FORCED, title="Forced token ids", description="target ids forced first (overrides prefix)"
    )
    ablation: tuple[Head, ...] = Field(
        (), max_length=MAX_HEADS, title="Switched-off heads", description="[kind, layer, head], or kind.layer.head"
    )
    model: str = Field(
        SHIPPED,
        pattern=MODEL_KEY,
        title="The model key",
        description='a shipped model\'s key (GET /models lists them; "shipped" is the default one), or the key of a '
        "model trained here",
    )

    @field_validator("sentence")
    @classmethod
    def _sentence(cls, value: str) -> str:
        return clean_text(value)

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        return clean_text(value, "a target prefix") if value.strip() else ""

    @field_validator("ablation")
    @classmethod
    def _sorted(cls, value: tuple) -> tuple:
        return tuple(sorted(set(value)))

    @model_validator(mode="after")
    def _normalised(self) -> TraceRequest:
        """Options the strategy does not read reset to their defaults, a prefix dropped where tokens are forced:
        equal decodes are equal requests, so they share a cache entry. (Set on the instance being made: frozen
        models are written once, here.)"""
        for name in READS["sample"] + READS["beam"]:
            if name not in READS[self.strategy]:
                object.__setattr__(self, name, TraceRequest.model_fields[name].default)
        if self.forced_ids:
            object.__setattr__(self, "prefix", "")
        return self

    def with_model(self, key: str) -> TraceRequest:
        """The same decode with the model named by its registry key (a trace's own echo names its model so)."""
        return self if key == self.model else self.model_copy(update={"model": key})


@dataclass(frozen=True)
class Limit:
    """A number's range and default."""

    low: float
    high: float
    default: float


def limits_of(model: type[BaseModel]) -> dict[str, Limit]:
    """The ranges and defaults of a model's number fields, read from the fields themselves (for the sliders, the
    browser's settings and the refusals)."""
    out = {}
    for name, field in model.model_fields.items():
        bounds = {key: getattr(m, key) for m in field.metadata for key in ("ge", "le") if hasattr(m, key)}
        if len(bounds) == 2:
            out[name] = Limit(bounds["ge"], bounds["le"], field.default)
    return out


LIMITS = limits_of(TraceRequest)  # temperature, top_k, seed, beam_size, alpha
DEFAULTS = {name: limit.default for name, limit in LIMITS.items()}


def fields() -> dict:
    """What the browser is told of the request (`explorer.ui.viewer.settings`): each field's default, in order."""
    return {name: "" if name == "sentence" else field.default for name, field in TraceRequest.model_fields.items()}
