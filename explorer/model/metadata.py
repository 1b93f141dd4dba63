"""Training metadata (config.json's "training" section): every field the explorer reads, checked once at loading.

The About tab, the default view and the model card index these fields without further checks, so a checkpoint
whose metadata has the wrong type, range or shape is refused here, with the field named. The sections are pydantic
models (`Training` and the models it holds); each value the app reads is an annotated type whose check says, in
words, what the value must be, and `validate_metadata` turns pydantic's errors into one sentence naming the field
and showing the value. Fields nobody reads (the training history, notes) pass unchecked; names shown in the app
must be plain text (no HTML, no control characters) and short.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from .config import ATTENTION_KINDS, ModelConfig

MAX_NAME_CHARS = 80  # the model's display name
MAX_LABEL_CHARS = 200  # other short texts the app shows: the hardware, evaluation names
MAX_CREDIT_CHARS = 400  # the attribution a dataset's licence asks for
HTML_CHARACTERS = "<>&"
HEAD_DIGITS = re.compile(r"0|[1-9][0-9]{0,3}")  # a head number written as a string, e.g. "2"


def is_plain_text(text: object, max_chars: int = MAX_NAME_CHARS) -> bool:
    """A one-line string of at most `max_chars`, not blank, without HTML or control characters."""
    return (
        isinstance(text, str)
        and len(text) <= max_chars
        and text.strip() != ""
        and not any(c in HTML_CHARACTERS or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text)
    )


# ----- the values: each check says what the value must be ---------------------------------------
def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _checked(ok, problem: str):
    """A value type: anything JSON holds, accepted when `ok(value)`, else refused with `problem`."""

    def check(value: object) -> object:
        if not ok(value):
            raise ValueError(problem)
        return value

    return Annotated[Any, BeforeValidator(check)]


def plain(max_chars: int):
    return _checked(
        lambda v: is_plain_text(v, max_chars),
        f"must be plain text: one line of 1 to {max_chars} characters, no < > & or controls",
    )


def integer(low: int, high: int | None = None):
    most = f" and at most {high}" if high is not None else ""
    return _checked(
        lambda v: _is_int(v) and v >= low and (high is None or v <= high), f"must be an integer of at least {low}{most}"
    )


def number(low: float, high: float):
    span = f"a number from {low} to {high}" if math.isfinite(high) else f"a finite number of at least {low}"
    return _checked(lambda v: _is_real(v) and math.isfinite(v) and low <= v <= high, f"must be {span}")


Text = _checked(lambda v: isinstance(v, str), "must be a string")
Real = _checked(_is_real, "must be a number")  # NaN included: a diverged run's loss, shown as such
Boolean = _checked(lambda v: isinstance(v, bool), "must be true or false")
Score = number(0, 100)  # BLEU, chrF
Rate = number(0, 1)  # AER, accuracy
Count = integer(0)
Label = plain(MAX_LABEL_CHARS)


class Section(BaseModel):
    """A JSON object the app reads some fields of; the others pass unchecked."""

    model_config = ConfigDict(extra="allow")


# ----- the sections -----------------------------------------------------------------------------
class TrainConfigFacts(Section):
    model: dict | None = None
    data: list[Text] | None = None
    valid: Text | None = None


class DataSourceFact(Section):
    """As `explorer.training.recipe.DataSource.fact` writes it."""

    spec: Text
    weight: number(0, math.inf)
    name: Label
    licence: plain(MAX_CREDIT_CHARS)


class RecipeFact(Section):
    """As `explorer.training.recipe.LoadedRecipe.facts` writes it."""

    name: Text
    file: Text
    text: Text


class LastValidation(Section):
    step: Count | None = None
    sentences: Count | None = None
    loss: Real | None = None
    bleu: Score | None = None
    chrf: Score | None = None


class ByLength(Section):
    words: Text
    segments: Count
    bleu: Score
    chrf: Score


class Example(Section):
    source: Text
    hypothesis: Text
    references: Annotated[list[Text], Field(min_length=1)]


class Evaluation(Section):
    """One test set's scores, as `explorer.training.evaluate` writes them."""

    bleu: Score
    chrf: Score
    sentences: Count
    references: Count | None = None
    beam: Count | None = None
    threads: Count | None = None
    tokens_per_s: number(0, math.inf) | None = None
    seconds: number(0, math.inf) | None = None
    bleu_signature: Text | None = None
    chrf_signature: Text | None = None
    by_length: list[ByLength] | None = None
    examples: list[Example] | None = None


class HeadRow(Section):
    """One cross-attention head (or a layer's mean, or all layers') of this model with its alignment error rate."""

    layer: Any
    head: Any
    aer: Rate
    accuracy: Rate | None = None

    @field_validator("layer")
    @classmethod
    def _a_decoder_layer(cls, layer: object, info: ValidationInfo) -> object:
        config: ModelConfig = info.context["config"]
        if layer != "all" and not (_is_int(layer) and 0 <= layer < config.n_decoder_layers):
            raise ValueError(f"is not a decoder layer of this model (0 to {config.n_decoder_layers - 1}, or 'all')")
        return layer

    @field_validator("head")
    @classmethod
    def _a_head(cls, head: object, info: ValidationInfo) -> object:
        config: ModelConfig = info.context["config"]
        number = int(head) if isinstance(head, str) and HEAD_DIGITS.fullmatch(head) else head
        if head != "mean" and not (_is_int(number) and 0 <= number < config.n_heads):
            raise ValueError(f"is not a head of this model (0 to {config.n_heads - 1}, or 'mean')")
        return head


class MethodRow(Section):
    method: Label
    aer: Rate
    accuracy: Rate | None = None


class Alignment(Section):
    """As `explorer.training.model_report` writes it."""

    best: HeadRow
    pairs: Count
    gold: Text | None = None
    heads: list[HeadRow] | None = None
    methods: list[MethodRow] | None = None


class HeadRoleFact(Section):
    """One head's role as `explorer/interpret/head_roles.py` measured it on the explorer's probe set."""

    kind: _checked(lambda v: v in ATTENTION_KINDS, f"must be one of {', '.join(ATTENTION_KINDS)}")
    layer: integer(0)
    head: integer(0)
    role: plain(MAX_NAME_CHARS) | None = None
    says: plain(MAX_CREDIT_CHARS)
    scores: dict[str, Real]

    @field_validator("head")
    @classmethod
    def _a_head(cls, head: int, info: ValidationInfo) -> int:
        config: ModelConfig = info.context["config"]
        if head >= config.n_heads:
            raise ValueError(f"is not a head of this model (0 to {config.n_heads - 1})")
        return head


class HeadRoles(Section):
    """Every head's role, measured once on the probe set (`probe` sentences) and stored with the model."""

    probe: Count
    heads: list[HeadRoleFact]

    @field_validator("heads")
    @classmethod
    def _every_head_once(cls, heads: list, info: ValidationInfo) -> list:
        config: ModelConfig = info.context["config"]
        sites = {(h.kind, h.layer, h.head) for h in heads}
        wanted = {(k, i, h) for k in ATTENTION_KINDS for i in range(config.n_layers(k)) for h in range(config.n_heads)}
        if sites != wanted or len(heads) != len(wanted):
            raise ValueError(f"must name each of this model's {len(wanted)} heads once")
        return heads


class ConvertedFrom(Section):
    """A model converted from another format (explorer/model/marian.py): what it was and its licence."""

    format: plain(MAX_NAME_CHARS)
    source: plain(MAX_LABEL_CHARS)
    licence: plain(MAX_LABEL_CHARS)


class Training(Section):
    """config.json's "training" section: the fields the explorer reads."""

    name: plain(MAX_NAME_CHARS) | None = None
    hardware: Label | None = None
    data_credit: plain(MAX_CREDIT_CHARS) | None = None
    known_limits: list[Text] | None = None
    data_sources: list[DataSourceFact] | None = None
    recipe: RecipeFact | None = None
    command: Text | None = None
    report_command: Text | None = None
    card_note: Text | None = None
    steps: Count | None = None
    parameters: Count | None = None
    train_pairs: Count | None = None
    valid_pairs: Count | None = None
    world_size: integer(1) | None = None
    training_minutes: number(0, math.inf) | None = None
    epochs: number(0, math.inf) | None = None
    bf16_autocast: Boolean | None = None
    train_config: TrainConfigFacts | None = None
    last_validation: LastValidation | None = None
    evaluation: dict[Label, Evaluation] | None = None
    alignment: Alignment | None = None
    converted_from: ConvertedFrom | None = None
    head_roles: HeadRoles | None = None


def validate_metadata(meta: object, config: ModelConfig) -> dict:
    """Check the fields the explorer reads; returns `meta`, or raises ValueError naming the field and value."""
    if not isinstance(meta, dict):
        raise ValueError(f"training={_show(meta)} must be a JSON object")
    try:
        Training.model_validate(meta, context={"config": config})
    except ValidationError as exc:
        raise ValueError(_sentence(exc.errors()[0])) from None
    return meta


# ----- pydantic's error, as one sentence --------------------------------------------------------
PROBLEMS = {  # pydantic's error types for the containers; a value's own check says its problem itself
    "model_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
    "list_type": "must be a JSON list",
    "too_short": "must not be empty",
}


def _sentence(error: dict) -> str:
    """`field=value problem`, e.g. "alignment.best.head='x' is not a head of this model (0 to 3, or 'mean')"."""
    loc = list(error["loc"])
    named = loc[-1] == "[key]"  # a dict's key: the name of an evaluation
    field = _path(loc[:-2] if named else loc) + (" name" if named else "")
    if error["type"] == "missing":
        return f"{field} is missing"
    problem = PROBLEMS.get(error["type"]) or error["msg"].removeprefix("Value error, ")
    shown = loc[-2] if named else error["input"]
    return f"{field}={_show(shown)} {problem}"


def _path(loc: list) -> str:
    """("evaluation", "valid", "examples", 0, "source") -> "evaluation.valid.examples[0].source"."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
