"""Hand alignments on the cross-attention heatmap: the gold pairs of `alignments/`, found by the sentence on screen.

`alignments/everyday.tsv` holds 31 everyday pairs and `alignments/lecture.tsv` 26 sentences a lecturer says (the
checkpoints' AER tables are measured on them), `alignments/examples.tsv` the Translate tab's examples, each aligned by
hand (Pharaoh `i-j` word links, sure links
only; explorer.interpret.alignment says how words and pieces map). A trace of such a sentence carries its gold
translation, and, when the trace wrote that translation, the gold links at the piece level and every
cross-attention head's alignment error rate on it: the heatmap outlines the links and names the head's AER.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ..interpret.alignment import GoldPair, on_trace, read_gold
from ..interpret.handle import ModelHandle
from ..interpret.trace import DecodeTrace
from ..model.languages import LanguagePair
from ..model.tokenizer import normalize

FOLDER = Path(__file__).parent / "alignments"
GOLD_LANGUAGES = LanguagePair("en", "de")  # what the hand alignments pair


@functools.cache
def gold_pairs() -> dict[str, GoldPair]:
    """Every hand-aligned pair, by its (normalized) English sentence; a sentence is aligned once."""
    pairs: dict[str, GoldPair] = {}
    for path in sorted(FOLDER.glob("*.tsv")):
        for pair in read_gold(path):
            if pair.source in pairs:
                raise ValueError(f"{path}: {pair.source!r} is aligned twice")
            pairs[pair.source] = pair
    return pairs


def gold_of(trace: DecodeTrace, handle: ModelHandle) -> dict | None:
    """The wire's `gold`: the sentence's hand alignment against this trace, or None for a sentence without one (and
    for every sentence of a model that does not translate English into German: the alignments are of German)."""
    pair = gold_pairs().get(normalize(trace.request.sentence))
    if pair is None or handle.languages != GOLD_LANGUAGES:
        return None
    found = on_trace(handle.tokenizer, pair, trace.source_ids, trace.target_ids, trace.cross)
    return {
        "target": pair.target,
        "target_ids": handle.tokenizer.encode_target(pair.target),
        "links": len(pair.links),
        "matches": found is not None,
        "cells": found.cells if found else [],
        "aer": found.aer if found else [],
        "aer_mean": found.aer_mean if found else [],
    }
