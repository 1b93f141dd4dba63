"""The .npz export: a trace's attention tensors, logit lens and tokens as they stand at one step, for a notebook
(the typed trace's float32 weights, not the 16-bit wire form)."""

from __future__ import annotations

import io

import numpy as np

from ..errors import UserError, shown
from ..interpret.lens import Lens
from ..interpret.trace import DecodeTrace
from ..model.config import ATTENTION_KINDS


def attention_arrays(trace: DecodeTrace, step: int, lens: Lens | None = None) -> dict[str, np.ndarray]:
    """Every attention map of a trace cut to `step` (rows 0..step-1 of the decoder), with its tokens."""
    T = len(trace.steps)
    if not 0 <= step <= T:
        raise UserError(f"Step {shown(step)} does not exist: this translation has steps 0..{T}.")
    arrays = {f"{kind}_weights": trace.attention(kind).astype(np.float32) for kind in ATTENTION_KINDS}
    arrays["decoder_self_weights"] = arrays["decoder_self_weights"][:, :, :step, :step]
    arrays["cross_weights"] = arrays["cross_weights"][:, :, :step]
    arrays["decoder_self_scores"] = trace.decoder_self_scores[:, :, :step, :step].astype(np.float32)
    arrays["source_tokens"] = np.array(trace.source_tokens, dtype=str)
    arrays["source_ids"] = np.array(trace.source_ids, dtype=np.int64)
    arrays["target_tokens"] = np.array(trace.target_tokens[:step], dtype=str)
    arrays["target_ids"] = np.array(trace.target_ids[:step], dtype=np.int64)
    arrays["decoder_input_tokens"] = np.array(trace.decoder_input_tokens[:step], dtype=str)
    if lens is not None:
        arrays |= lens_arrays(lens, step)
    arrays["source_text"] = np.array(trace.request.sentence)
    arrays["step"] = np.array(step)
    return arrays


def lens_arrays(lens: Lens, step: int) -> dict[str, np.ndarray]:
    """The logit lens up to the step: (Ld, step, k) top ids and probabilities, (Ld, step) the chosen token's."""
    return {
        "lens_top_ids": lens.top_ids[:, :step].astype(np.int64),
        "lens_top_probs": lens.top_probs[:, :step].astype(np.float32),
        "lens_chosen_prob": lens.chosen[:, :step].astype(np.float32),
    }


def lens_of_answer(answer) -> Lens:
    """The logit lens from its registered question's answer (the probabilities as the viewer gets them: 4 decimals)."""
    return Lens(
        np.asarray(answer.top_ids, dtype=np.int64),
        np.asarray(answer.top_probs, dtype=np.float32),
        np.asarray(answer.chosen, dtype=np.float32),
    )


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """The arrays as a compressed .npz file (the CPU work of a download: a caller runs it off the event loop)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()
