"""Without the mask: the same small model trained with and without the look-ahead mask, on the sentence on screen
(`explorer.app.maskless`: its companions, its answer)."""

from __future__ import annotations

from typing import Literal

from .. import maskless as companions_of
from ..schemas import Sent
from . import Answer, Question, register


class Maskless(Question):
    """The same small model trained without the look-ahead mask, beside its masked twin, on this sentence."""

    what: Literal["maskless"] = "maskless"


class CompanionRun(Sent):
    final_loss: float  # mean training loss over its last logged steps
    valid_loss: float
    chrf: float | None
    steps: int | None


class ForcedAttention(Sent):
    """The maskless model teacher-forced on its twin's translation, as in training: one decoder self-attention head."""

    inputs: list[str]  # decoder inputs: <s> and the translation
    targets: list[str]  # what each position must predict (the next input)
    layer: int
    head: int  # the head that puts the most weight on the next position
    weights: list[list[float]]  # (T, T): row i is input i's query, the future included
    next_weight: float  # mean weight on position i + 1: the word it is asked to predict
    accuracy: float  # teacher-forced next-token accuracy (it reads the answer)


class MasklessAnswer(Answer):
    what: Literal["maskless"]
    runs: dict[Literal["with_mask", "without_mask"], CompanionRun]
    losses: dict[Literal["with_mask", "without_mask"], list[list[float]]]  # [step, training loss]
    translations: dict[Literal["with_mask", "without_mask"], str]  # greedy, of the sentence on screen
    forced: ForcedAttention


@register(Maskless, MasklessAnswer)
def maskless(handle, trace, question: Maskless) -> MasklessAnswer:
    return MasklessAnswer.model_validate(companions_of.companions().answer(trace.request.sentence))
