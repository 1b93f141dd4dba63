"""No positions: the sentence without the positional encoding, as typed and reversed: the encoder's maps and the
translations (`explorer.interpret.no_position`)."""

from __future__ import annotations

from typing import Literal

from ...interpret.no_position import without_position
from ...model.config import EOS_ID
from . import Answer, Question, register
from .common import DIGITS, rounded


class NoPositionQuestion(Question):
    """The sentence without the positional encoding, as typed and reversed: the encoder's maps, the translations."""

    what: Literal["no_position"] = "no_position"


class NoPositionAnswer(Answer):
    what: Literal["no_position"]
    source_tokens: list[str]
    order: list[int]  # position i of the reversed sentence holds piece order[i]
    original: list[list[list[list[float]]]]  # [layer][head][query][key] without PE, as typed
    reversed: list[list[list[list[float]]]]  # the same, the pieces reversed
    gap_without: float  # how far the reversed maps are from the original ones permuted, without PE (rounding only)
    gap_with: float  # the same with PE: the maps change with the order
    translations: dict[Literal["with", "without", "reversed_without"], str]


@register(NoPositionQuestion, NoPositionAnswer)
def no_position(handle, trace, question: NoPositionQuestion) -> NoPositionAnswer:
    found = without_position(handle.model, trace.source_ids)
    text = {name: handle.tokenizer.decode([i for i in ids if i != EOS_ID]) for name, ids in found.translations.items()}
    return NoPositionAnswer(
        what="no_position",
        source_tokens=trace.source_tokens,
        order=found.order,
        original=[[[rounded(r) for r in h] for h in layer] for layer in found.original],
        reversed=[[[rounded(r) for r in h] for h in layer] for layer in found.reversed],
        gap_without=float(f"{found.gap_without:.3g}"),
        gap_with=round(found.gap_with, DIGITS),
        translations=text,
    )
