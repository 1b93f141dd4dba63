"""Training metadata (config.json's "training" section): every field the explorer reads, checked once at loading.

The About tab, the default view and the model card index these fields without further checks, so a
checkpoint whose metadata has the wrong type, range or shape is refused here, with the field named.
Fields nobody reads (the training history, notes) pass unchecked; names shown in the app must be plain
text (no HTML, no control characters) and short.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import NoReturn

from .config import ModelConfig

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


def validate_metadata(meta: object, config: ModelConfig) -> dict:
    """Check the fields the explorer reads; returns `meta`, or raises ValueError naming the field and value."""
    _mapping("training", meta)
    _optional(meta, "name", _plain, MAX_NAME_CHARS)
    _optional(meta, "hardware", _plain, MAX_LABEL_CHARS)
    _optional(meta, "data_credit", _plain, MAX_CREDIT_CHARS)
    _optional(meta, "known_limits", _strings)
    _optional(meta, "data_sources", _data_sources)
    _optional(meta, "recipe", _recipe)
    for key in ("command", "report_command", "card_note"):
        _optional(meta, key, _string)
    for key in ("steps", "parameters", "train_pairs", "valid_pairs"):
        _optional(meta, key, _integer, 0)
    _optional(meta, "world_size", _integer, 1)
    for key in ("training_minutes", "epochs"):
        _optional(meta, key, _number, 0, math.inf)
    _optional(meta, "bf16_autocast", _boolean)
    _optional(meta, "train_config", _train_config)
    _optional(meta, "last_validation", _last_validation)
    _optional(meta, "evaluation", _evaluation)
    _optional(meta, "alignment", _alignment, config)
    return meta


# ----- sections ---------------------------------------------------------------------------------
def _train_config(field: str, tc: object) -> None:
    _mapping(field, tc)
    _optional(tc, "model", _mapping, prefix=field)
    data = tc.get("data")
    if data is not None:
        _list(f"{field}.data", data)
        for i, item in enumerate(data):
            _string(f"{field}.data[{i}]", item)
    _optional(tc, "valid", _string, prefix=field)


def _data_sources(field: str, sources: object) -> None:
    """[{"spec", "weight", "name", "licence"}] as `explorer.training.recipe.DataSource.fact` writes them."""
    _list(field, sources)
    for i, source in enumerate(sources):
        where = f"{field}[{i}]"
        _mapping(where, source)
        _string(f"{where}.spec", _required(source, "spec", where))
        _number(f"{where}.weight", _required(source, "weight", where), 0, math.inf)
        for key, limit in (("name", MAX_LABEL_CHARS), ("licence", MAX_CREDIT_CHARS)):
            _plain(f"{where}.{key}", _required(source, key, where), limit)


def _recipe(field: str, recipe: object) -> None:
    """{"name", "file", "text"} as `explorer.training.recipe.LoadedRecipe.facts` writes it."""
    _mapping(field, recipe)
    for key in ("name", "file", "text"):
        _string(f"{field}.{key}", _required(recipe, key, field))


def _last_validation(field: str, last: object) -> None:
    _mapping(field, last)
    for key in ("step", "sentences"):
        _optional(last, key, _integer, 0, prefix=field)
    _optional(last, "loss", _real, prefix=field)  # NaN when a run diverged: shown as such
    for key in ("bleu", "chrf"):
        _optional(last, key, _number, 0, 100, prefix=field)


def _evaluation(field: str, evaluation: object) -> None:
    """{test set name: {"bleu", "chrf", "sentences", ...}} as `explorer.training.evaluate` writes it."""
    _mapping(field, evaluation)
    for name, ev in evaluation.items():
        _plain(f"{field} name", name, MAX_LABEL_CHARS)
        at = f"{field}[{_show(name)}]"
        _mapping(at, ev)
        for key in ("bleu", "chrf"):
            _number(f"{at}.{key}", _required(ev, key, at), 0, 100)
        _integer(f"{at}.sentences", _required(ev, "sentences", at), 0)
        for key in ("references", "beam", "threads"):
            _optional(ev, key, _integer, 0, prefix=at)
        for key in ("tokens_per_s", "seconds"):
            _optional(ev, key, _number, 0, math.inf, prefix=at)
        for key in ("bleu_signature", "chrf_signature"):
            _optional(ev, key, _string, prefix=at)
        for i, row in enumerate(_list(f"{at}.by_length", ev.get("by_length") or [])):
            row_at = f"{at}.by_length[{i}]"
            _mapping(row_at, row)
            _string(f"{row_at}.words", _required(row, "words", row_at))
            _integer(f"{row_at}.segments", _required(row, "segments", row_at), 0)
            for key in ("bleu", "chrf"):
                _number(f"{row_at}.{key}", _required(row, key, row_at), 0, 100)
        for i, example in enumerate(_list(f"{at}.examples", ev.get("examples") or [])):
            ex_at = f"{at}.examples[{i}]"
            _mapping(ex_at, example)
            for key in ("source", "hypothesis"):
                _string(f"{ex_at}.{key}", _required(example, key, ex_at))
            references = _list(f"{ex_at}.references", _required(example, "references", ex_at))
            if not references:
                _fail(f"{ex_at}.references", references, "must name at least one reference")
            for j, reference in enumerate(references):
                _string(f"{ex_at}.references[{j}]", reference)


def _alignment(field: str, alignment: object, config: ModelConfig) -> None:
    """{"best": row, "pairs": n, "gold": file name, "heads": [row, ...]}, as `model_report` writes it."""
    _mapping(field, alignment)
    _head_row(f"{field}.best", _required(alignment, "best", field), config)
    _integer(f"{field}.pairs", _required(alignment, "pairs", field), 0)
    _optional(alignment, "gold", _string, prefix=field)
    for i, row in enumerate(_list(f"{field}.heads", alignment.get("heads") or [])):
        _head_row(f"{field}.heads[{i}]", row, config)
    for i, row in enumerate(_list(f"{field}.methods", alignment.get("methods") or [])):
        at = f"{field}.methods[{i}]"
        _mapping(at, row)
        _plain(f"{at}.method", _required(row, "method", at), MAX_LABEL_CHARS)
        _number(f"{at}.aer", _required(row, "aer", at), 0, 1)
        _optional(row, "accuracy", _number, 0, 1, prefix=at)


def _head_row(field: str, row: object, config: ModelConfig) -> None:
    """One cross-attention head (or a mean) of this model with its alignment error rate."""
    _mapping(field, row)
    layer = _required(row, "layer", field)
    if layer != "all" and not (_is_int(layer) and 0 <= layer < config.n_decoder_layers):
        last = config.n_decoder_layers - 1
        _fail(f"{field}.layer", layer, f"is not a decoder layer of this model (0 to {last}, or 'all')")
    head = _required(row, "head", field)
    number = int(head) if isinstance(head, str) and HEAD_DIGITS.fullmatch(head) else head
    if head != "mean" and not (_is_int(number) and 0 <= number < config.n_heads):
        _fail(f"{field}.head", head, f"is not a head of this model (0 to {config.n_heads - 1}, or 'mean')")
    _number(f"{field}.aer", _required(row, "aer", field), 0, 1)
    _optional(row, "accuracy", _number, 0, 1, prefix=field)


# ----- field checks: each names the field and shows the value -----------------------------------
def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fail(field: str, value: object, problem: str) -> NoReturn:
    raise ValueError(f"{field}={_show(value)} {problem}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _required(mapping: dict, key: str, field: str) -> object:
    if key not in mapping:
        raise ValueError(f"{field}.{key} is missing")
    return mapping[key]


def _optional(mapping: dict, key: str, check, *args, prefix: str = "") -> None:
    """Run `check` on mapping[key] when it is there and not null."""
    if mapping.get(key) is not None:
        check(f"{prefix}.{key}" if prefix else key, mapping[key], *args)


def _mapping(field: str, value: object) -> dict:
    if not isinstance(value, dict):
        _fail(field, value, "must be a JSON object")
    return value


def _list(field: str, value: object) -> list:
    if not isinstance(value, list):
        _fail(field, value, "must be a JSON list")
    return value


def _strings(field: str, value: object) -> None:
    for i, item in enumerate(_list(field, value)):
        _string(f"{field}[{i}]", item)


def _string(field: str, value: object) -> None:
    if not isinstance(value, str):
        _fail(field, value, "must be a string")


def _plain(field: str, value: object, max_chars: int) -> None:
    if not is_plain_text(value, max_chars):
        _fail(field, value, f"must be plain text: one line of 1 to {max_chars} characters, no < > & or controls")


def _boolean(field: str, value: object) -> None:
    if not isinstance(value, bool):
        _fail(field, value, "must be true or false")


def _integer(field: str, value: object, low: int, high: int | None = None) -> None:
    if not _is_int(value) or value < low or (high is not None and value > high):
        most = f" and at most {high}" if high is not None else ""
        _fail(field, value, f"must be an integer of at least {low}{most}")


def _real(field: str, value: object) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        _fail(field, value, "must be a number")


def _number(field: str, value: object, low: float, high: float) -> None:
    real = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (real and math.isfinite(value) and low <= value <= high):
        span = f"a number from {low} to {high}" if math.isfinite(high) else f"a finite number of at least {low}"
        _fail(field, value, f"must be {span}")
