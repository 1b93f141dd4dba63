"""The .npz export: a trace's attention tensors and tokens as they stand at one step, for a notebook."""

from __future__ import annotations

import numpy as np

from ..interpret.inputs import UserError, number, shown
from ..model.config import ATTENTION_KINDS
from .wire import unpack


def attention_arrays(wire: dict, sentence: str, step) -> dict[str, np.ndarray]:
    """Every attention map of a wire trace cut to `step` (rows 0..step-1 of the decoder), with its tokens."""
    T = len(wire["steps"])
    value = number(step, "Step")
    if value != int(value) or not 0 <= value <= T:
        raise UserError(f"Step {shown(step)} does not exist: this translation has steps 0..{T}.")
    step = int(value)
    arrays = {f"{kind}_weights": unpack(wire["attention"][kind]) for kind in ATTENTION_KINDS}
    arrays["decoder_self_weights"] = arrays["decoder_self_weights"][:, :, :step, :step]
    arrays["cross_weights"] = arrays["cross_weights"][:, :, :step]
    arrays["decoder_self_scores"] = unpack(wire["scores"]["decoder_self"])[:, :, :step, :step]
    arrays["source_tokens"] = np.array(wire["source_tokens"], dtype=str)
    arrays["source_ids"] = np.array(wire["source_ids"], dtype=np.int64)
    arrays["target_tokens"] = np.array(wire["target_tokens"][:step], dtype=str)
    arrays["target_ids"] = np.array(wire["target_ids"][:step], dtype=np.int64)
    arrays["decoder_input_tokens"] = np.array(wire["decoder_input_tokens"][:step], dtype=str)
    arrays["source_text"] = np.array(sentence)
    arrays["step"] = np.array(step)
    return arrays
