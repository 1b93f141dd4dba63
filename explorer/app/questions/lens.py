"""The logit lens: what each decoder layer would predict at each step if decoding stopped there
(`explorer.interpret.lens`); the .npz export and the training time-lapse read it too."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...interpret.handle import ModelHandle
from ...interpret.lens import Lens, lens_of
from ...interpret.trace import DecodeTrace
from ..schemas import WireLens
from . import Answer, Question, register
from .common import ablation_of


class LensQuestion(Question):
    """The logit lens: what each decoder layer would predict at each step if decoding stopped there."""

    what: Literal["lens"] = "lens"


class LensAnswer(WireLens, Answer):
    what: Literal["lens"]


@register(LensQuestion, LensAnswer)
def lens(handle, trace, question: LensQuestion) -> LensAnswer:
    return LensAnswer(what="lens", **lens_lists(trace_lens(handle, trace), handle))


def trace_lens(handle: ModelHandle, trace: DecodeTrace) -> Lens:
    """The logit lens of `trace`: its decode's chosen tokens, with its switched-off heads."""
    return lens_of(handle.model, trace.source_ids, trace.target_ids, ablation_of(handle, trace.request))


def lens_lists(lens: Lens, handle: ModelHandle) -> dict:
    """The logit lens as plain lists ([layer][step][rank]): small, layers × steps × LENS_TOP."""
    pieces = handle.tokenizer.pieces
    return {
        "top_tokens": [[pieces(ids) for ids in layer.tolist()] for layer in lens.top_ids],
        "top_ids": lens.top_ids.tolist(),
        "top_probs": np.round(lens.top_probs.astype(np.float64), 4).tolist(),
        "chosen": np.round(lens.chosen.astype(np.float64), 4).tolist(),
    }
