"""Whether two explanations that score the same AER are the same: the words each aligns right, compared.

    python -m bench.alignment_overlap [--checkpoint DIR] [--gold TSV ...]

The model card's table (`model_report`, the About tab) gives attention rollout and gradient × input the same AER and
accuracy for the lecture model (0.577, 44.0%) and for the Tatoeba model on the everyday pairs (0.532, 48.7%). This
computes both again, each on its own, and prints how many target words each aligns to the right source word, how many
of those words they share, and at how many words their choices differ: equal scores from different words are a tie,
not a copy.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from explorer.app import SHIPPED_CHECKPOINT
from explorer.interpret.alignment import alignment_scores, piece_maps, pool_words, read_gold
from explorer.interpret.attribution import attribute
from explorer.interpret.handle import load_handle
from explorer.interpret.rollout import cross_rollout

GOLD = ["explorer/app/alignments/everyday.tsv", "explorer/app/alignments/lecture.tsv"]


def hits(pairs, word_maps) -> set:
    """(pair, source word, target word) of every target word aligned to a gold source word."""
    out = set()
    for n, (pair, w) in enumerate(zip(pairs, word_maps)):
        for t in range(w.size(0)):
            s = int(w[t].argmax())
            if (s, t) in pair.links:
                out.add((n, s, t))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--gold", nargs="+", default=GOLD)
    args = parser.parse_args()
    handle = load_handle(args.checkpoint)
    pairs = [pair for path in args.gold for pair in read_gold(path)]
    pieces = [piece_maps(handle.model, handle.tokenizer, p) for p in pairs]
    rollout = [
        pool_words(p, torch.from_numpy(cross_rollout(p.cross.numpy(), p.encoder_self.numpy()).mean(0)).float())
        for p in pieces
    ]
    gradient = [
        pool_words(p, torch.from_numpy(np.stack([
            attribute(handle.model, p.source_ids, p.target_ids, j, "gradient_x_input").scores
            for j in range(len(p.target_ids))
        ])).float())
        for p in pieces
    ]  # fmt: skip
    right_r, right_g = hits(pairs, rollout), hits(pairs, gradient)
    differ = sum(int((a.argmax(-1) != b.argmax(-1)).sum()) for a, b in zip(rollout, gradient))
    words = sum(w.size(0) for w in rollout)
    print(f"{args.checkpoint}, {len(pairs)} pairs, {words} target words")
    print(f"- attention rollout: {alignment_scores(pairs, rollout)}, {len(right_r)} words right")
    print(f"- gradient × input: {alignment_scores(pairs, gradient)}, {len(right_g)} words right")
    print(f"- right in both: {len(right_r & right_g)}; the two choose different source words at {differ} target words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
