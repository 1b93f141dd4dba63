"""Why the look-ahead mask: the same small model trained with it and without it (checkpoints/mask-companions, made
by bench/maskless.py with the project's CLI: same data, steps and seed), on the sentence on screen.

The answer (`Companions.answer`) puts side by side what a class should see:
- both training losses: without the mask the loss falls far lower, because the decoder reads the word it must
  predict;
- both greedy translations: without the mask, garbage, because when decoding the future is not there to read;
- the maskless model's decoder self-attention, teacher-forced on its twin's translation as in training: the weight
  on the next position (the cheat made visible), and how often its teacher-forced prediction is right.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..interpret.decoding import greedy_decode, prepare_source
from ..interpret.hooks import record
from ..model.checkpoint import Checkpoint, CheckpointError, load_checkpoint
from ..model.config import BOS_ID, EOS_ID
from . import SHIPPED_CHECKPOINT

COMPANIONS = SHIPPED_CHECKPOINT.parent / "mask-companions"
TAIL = 100  # training steps at the end whose mean loss is "the loss at the end"


def _history(checkpoint: Checkpoint) -> list[list[float]]:
    """The run's logged training loss as [step, loss] pairs."""
    history = checkpoint.metadata.get("history")  # the checkpoint's loader leaves it unchecked: read it with care
    points = []
    for h in history if isinstance(history, list) else []:
        step, loss = (h.get("step"), h.get("loss")) if isinstance(h, dict) and not h.get("valid") else (None, None)
        if isinstance(step, int) and isinstance(loss, int | float) and math.isfinite(loss):
            points.append([step, round(float(loss), 4)])
    return points


def _final_loss(checkpoint: Checkpoint) -> float:
    history = _history(checkpoint)
    last = history[-1][0] if history else 0
    tail = [loss for step, loss in history if step > last - TAIL] or [float("nan")]
    return round(float(np.mean(tail)), 3)


@dataclass
class Companions:
    """The masked model and its maskless twin (one tokenizer: the same data and seed made both)."""

    masked: Checkpoint
    maskless: Checkpoint

    @classmethod
    def load(cls, masked: Path | None = None, maskless: Path | None = None) -> Companions:
        """The pair at `masked` and `maskless` (default: the shipped ones, in `COMPANIONS`)."""
        masked = masked or COMPANIONS / "with-mask"
        maskless = maskless or COMPANIONS / "without-mask"
        pair = cls(load_checkpoint(masked), load_checkpoint(maskless))
        if not pair.masked.model.config.lookahead_mask or pair.maskless.model.config.lookahead_mask:
            raise ValueError(f"{masked} must be trained with the look-ahead mask and {maskless} without it")
        if pair.masked.tokenizer.vocab_size != pair.maskless.tokenizer.vocab_size:
            raise ValueError("the two companions must share one vocabulary (the same data and seed)")
        return pair

    def summary(self) -> dict:
        """Each run's loss at the end, validation loss and chrF, and steps (from its checkpoint)."""

        def one(checkpoint: Checkpoint) -> dict:
            valid = checkpoint.metadata.get("last_validation") or {}
            return {
                "final_loss": _final_loss(checkpoint),
                "valid_loss": round(valid.get("loss", float("nan")), 3),
                "chrf": valid.get("chrf"),
                "steps": checkpoint.metadata.get("steps"),
            }

        return {"with_mask": one(self.masked), "without_mask": one(self.maskless)}

    def answer(self, sentence: str) -> dict:
        """What the "Without the mask" view draws for `sentence` (see the module's docstring)."""
        tokenizer = self.masked.tokenizer
        source = prepare_source(tokenizer, sentence, self.masked.model.config.max_len)
        decoded = {
            name: greedy_decode(c.model, [source.ids])[0]
            for name, c in (("with_mask", self.masked), ("without_mask", self.maskless))
        }
        translated = {name: tokenizer.decode([i for i in ids if i != EOS_ID]) for name, ids in decoded.items()}
        # teacher forcing, as in training: the maskless model reads its twin's translation, the future included
        target = decoded["with_mask"]
        if not target or target[-1] != EOS_ID:
            target = target + [EOS_ID]
        inputs = [BOS_ID] + target[:-1]
        maps, logits = record(self.maskless.model, [source.ids], [inputs], kinds=("decoder_self",))
        weights = maps.stacked("decoder_self").numpy()  # (L, H, T, T)
        T = len(inputs)
        if T < 2:
            raise UserError("The translation is one token long: there is no next position to look at.")
        nexts = weights[:, :, np.arange(T - 1), np.arange(1, T)].mean(-1)  # (L, H): mean weight on position i + 1
        layer, head = np.unravel_index(int(nexts.argmax()), nexts.shape)
        predicted = logits[0].argmax(-1).tolist()
        return {
            "what": "maskless",
            "runs": self.summary(),
            "losses": {"with_mask": _history(self.masked), "without_mask": _history(self.maskless)},
            "translations": translated,
            "forced": {
                "inputs": tokenizer.pieces(inputs),
                "targets": tokenizer.pieces(target),
                "layer": int(layer),
                "head": int(head),
                "weights": np.round(weights[layer, head], 4).tolist(),  # (T, T): row i is input i's query
                "next_weight": round(float(nexts[layer, head]), 4),
                "accuracy": round(float(np.mean([p == t for p, t in zip(predicted, target, strict=True)])), 4),
            },
        }


@functools.cache
def companions() -> Companions:
    """The shipped companions, loaded once (about 6 MB); a server without them says how to make them."""
    try:
        return Companions.load()
    except (CheckpointError, ValueError) as exc:
        raise UserError(
            f"The models trained with and without the look-ahead mask are not installed ({exc}); make them with "
            "python -m bench.maskless --ship checkpoints/mask-companions."
        ) from None
