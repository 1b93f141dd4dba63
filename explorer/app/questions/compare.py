"""Compare two: a second trace beside the one on screen: another sentence with the same options, or the same
sentence with another model. It asks the model registry for that trace (from its cache, like any trace)."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field

from ...errors import UserError
from ...interpret.request import MAX_CHARS, MODEL_KEY, TraceRequest
from ..schemas import Wire, validate
from . import Answer, Question, register


class Compare(Question):
    """A second trace: another sentence with the same options, or the same one with another model: a model's key,
    "own" (the page's trained model), or "other" (the trained model beside a shipped one, else the next shipped
    model)."""

    what: Literal["compare"] = "compare"
    sentence: str = Field("", max_length=4 * MAX_CHARS)
    model: str = Field(
        "same",
        pattern=MODEL_KEY,
        description='"same", "other", "own" (the trained model), or a model\'s key',
    )


class CompareAnswer(Answer):
    what: Literal["compare"]
    wire: Wire


@register(Compare, CompareAnswer, asks_models=True)
async def compare(models, asked, caller) -> CompareAnswer:
    second = compared(models, asked.trace, asked.question, asked.own_model)
    wire = (await models.atraced(models.get(second.model), second, caller)).wire
    # a whole wire trace: checked in a thread, never on the event loop that serves the class
    return await asyncio.to_thread(CompareAnswer.model_validate, {"what": "compare", "wire": wire})


def compared(models, query: TraceRequest, question: Compare, own_model: str | None) -> TraceRequest:
    """The second trace's request: `question.sentence` (or the same) with the request's options, with the same model,
    a model named by its key, the page's trained model ("own"), or "other": the page's trained model beside a
    shipped one, else the next shipped model (the lecture model beside the Tatoeba model)."""
    first = models.key_of(models.get(query.model))
    if question.model == "same":
        other = first
    elif question.model == "own":
        if own_model is None:
            raise UserError("There is no model trained on this page to compare with: train one in the Train tab.")
        other = own_model
    elif question.model != "other":
        other = question.model
    elif first not in models.served:  # a trained model's trace: beside the default
        other = models.default_key
    elif own_model is not None:
        other = own_model
    elif len(models.served) > 1:
        keys = list(models.served)
        other = keys[(keys.index(first) + 1) % len(keys)]
    else:
        raise UserError("There is no other model to compare with: train one in the Train tab first.")
    values = query.model_dump() | {"model": other, "forced_ids": (), "prefix": ""}
    if question.sentence.strip():
        values["sentence"] = question.sentence
    return validate(TraceRequest, values)  # the second sentence is checked like any other
