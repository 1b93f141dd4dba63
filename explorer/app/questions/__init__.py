"""The viewer's questions about the trace it shows, as a registry: each module of this package is one question. It
registers (`register`) its request (a `Question`, `what` naming it), its answer (an `Answer`) and its computation,
which returns that answer. The API's routes (`POST /ae/api/ask/<what>`) and their OpenAPI bodies (`ASKS`), the
validation of any question (`Ask`), the documented answers (`ANSWERS`) and the dispatch (`answer`) all come from
`REGISTRY`: a new question is its module here and, where it computes something new, its module in
`explorer.interpret`.

An answer is its model: the computation returns it, and it is serialised and compressed once (`encoded`: what the
answer cache keeps and the route sends), so the schema is what is sent, never a parallel description. What depends
on the model (a layer or row that does not exist) is refused by the computation with a message naming the value
(`common.index`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Union

from pydantic import Field, create_model

from ...interpret.handle import ModelHandle
from ...interpret.trace import DecodeTrace
from ..encoded import FAST, REVALIDATE, Encoded
from ..schemas import AskAbout, Sent, Strict


class Question(Strict):
    """A question's request; its `what` is a Literal that names it (and its route)."""


class Answer(Sent):
    """A question's answer; its `what` repeats the question's."""


@dataclass(frozen=True)
class Entry:
    """One registered question: its request, its answer and its computation, `compute(handle, trace, question)`;
    with `asks_models`, `compute(models, asked, caller)` is a coroutine that asks the model registry itself (a second
    trace); with `per_model`, the answer is the model's whatever the trace (`compute(handle, None, question)`): it is
    computed and kept once per model, and its asker's sentence is never decoded for it. `priority`: its place in the
    model line (`scheduler.Scheduler`): 1 after the traces waiting, 2 after the questions people asked too (what the
    page asks by itself)."""

    question: type[Question]
    answer: type[Answer]
    compute: Callable
    asks_models: bool = False
    per_model: bool = False
    priority: int = 1


REGISTRY: dict[str, Entry] = {}


def register(
    question: type[Question],
    answer: type[Answer],
    asks_models: bool = False,
    per_model: bool = False,
    priority: int = 1,
):
    """Register the decorated computation as the answer to `question` (a decorator)."""

    def decorate(compute: Callable) -> Callable:
        what = question.model_fields["what"].default
        assert what not in REGISTRY and answer.model_fields["what"].annotation.__args__ == (what,), what
        REGISTRY[what] = Entry(question, answer, compute, asks_models, per_model, priority)
        return compute

    return decorate


def answer(handle: ModelHandle, trace: DecodeTrace | None, question: Question) -> Answer:
    """The answer to `question` about `trace` (decoded with `handle`'s model; None for a per-model question)."""
    return REGISTRY[question.what].compute(handle, trace, question)


def encoded(answer: Answer) -> Encoded:
    """An answer serialised once, as its model says, and compressed once."""
    return Encoded.of(answer.model_dump_json().encode(), "application/json", REVALIDATE, FAST)


for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):  # every question registers itself
    importlib.import_module(f"{__name__}.{_module}")

QUESTIONS = tuple(REGISTRY)
ANSWERS = {what: entry.answer for what, entry in REGISTRY.items()}
AnyQuestion = Annotated[Union[tuple(e.question for e in REGISTRY.values())], Field(discriminator="what")]  # noqa: UP007
Ask = create_model("Ask", __base__=AskAbout, __doc__=AskAbout.__doc__, question=(AnyQuestion, ...))
# each question's route takes its own body (`POST /ae/api/ask/explain` an `AskExplain`, ...): typed and documented
ASKS = {
    what: create_model(
        f"Ask{e.question.__name__}", __base__=AskAbout, __doc__=e.question.__doc__, question=(e.question, ...)
    )
    for what, e in REGISTRY.items()
}
