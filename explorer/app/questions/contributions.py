"""Source or prefix: how much of each generated token comes from the English sentence and how much from the
translation written so far, by ALTI+ (`explorer.interpret.alti`), with each source and prefix token's part."""

from __future__ import annotations

from typing import Literal

from ...errors import UserError
from ...interpret.alti import source_prefix
from . import Answer, Question, register
from .common import ablation_of, rounded


class Contributions(Question):
    """Each generated token's contributions: the source against the target prefix (ALTI+)."""

    what: Literal["contributions"] = "contributions"


class ContributionsAnswer(Answer):
    what: Literal["contributions"]
    source_tokens: list[str]
    target_tokens: list[str]  # the token each step wrote
    prefix_tokens: list[str]  # the decoder inputs: <s>, then the tokens written before each step
    source_share: list[float]  # [step]: how much of the token written at that step comes from the source
    source: list[list[float]]  # [step][source token]
    prefix: list[list[float]]  # [step][decoder input]: zero beyond the step (the look-ahead mask)


@register(Contributions, ContributionsAnswer)
def contributions(handle, trace, question: Contributions) -> ContributionsAnswer:
    if not handle.config.lookahead_mask:
        raise UserError(
            "This model was trained without the look-ahead mask: each position saw the whole translation, the future "
            "too, so what comes from the translation so far is not what it used."
        )
    found = source_prefix(handle.model, trace.source_ids, trace.target_ids, ablation_of(handle, trace.request))
    return ContributionsAnswer(
        what="contributions",
        source_tokens=trace.source_tokens,
        target_tokens=trace.target_tokens,
        prefix_tokens=trace.decoder_input_tokens,
        source_share=rounded(found.source_share),
        source=[rounded(row) for row in found.source],
        prefix=[rounded(row) for row in found.prefix],
    )
