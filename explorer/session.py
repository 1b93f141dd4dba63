"""One person's session on the server: which model they explore, a model they trained, and its actions.

Everything that depends on the sentence and the decoding options is a `TraceRequest` answered from the
shared `TraceCache`; the session itself keeps only what belongs to one person (their trained model,
their choice of model, a running training job, the font size of server-drawn figures). Every method
takes the session's lock, so two events of one browser session never interleave.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import numpy as np

from . import figures
from .config import ATTENTION_KINDS
from .decoding import beam_search, prepare_source
from .handle import ModelHandle
from .inputs import TraceRequest, UserError, clean_text, number
from .model import Ablation
from .trace import build_traces, plan_trace
from .trace_cache import TraceCache
from .wire import to_wire, unpack


class ExplorerSession:
    """Per-session state and actions; the shipped model is shared read-only, a trained one is private."""

    def __init__(self, shipped: ModelHandle, cache: TraceCache | None = None):
        self.lock = threading.RLock()
        self.shipped = shipped
        self.cache = cache if cache is not None else TraceCache()
        self.own: ModelHandle | None = None  # a model this session trained
        self.use_own = False
        self.font_size = 13
        self.training = None  # the Trainer of this session's running training job, if any

    # ----- model choice ----------------------------------------------------------------------
    @property
    def handle(self) -> ModelHandle:
        return self.own if (self.use_own and self.own is not None) else self.shipped

    def choose_model(self, use_own: bool) -> str:
        with self.lock:
            if use_own and self.own is None:
                raise UserError("You have not trained a model in this session yet: use the Train tab first.")
            self.use_own = bool(use_own)
            return f"Exploring **{self.handle.name}**. Press Translate & step to decode with it."

    def set_own_model(self, handle: ModelHandle) -> None:
        with self.lock:
            self.own = handle

    # ----- the decode trace -------------------------------------------------------------------
    def trace(self, request: TraceRequest) -> dict:
        """The wire trace of `request` with this session's model, from the shared cache when it has it."""
        handle = self.handle
        plan = plan_trace(handle, request)  # a bad request is refused here, before it waits for the model

        def run_batch(plans):
            return [to_wire(trace, handle) for trace in build_traces(handle, plans)]

        return self.cache.get((handle.fingerprint, request), plan, run_batch, group=handle.fingerprint)

    # ----- whole translations ---------------------------------------------------------------
    def translate(self, text, heads=()) -> str:
        """A one-click greedy translation with the current model, `heads` switched off."""
        handle = self.handle
        source = prepare_source(handle.tokenizer, clean_text(text), handle.config.max_len)
        beams = beam_search(handle.model, source.ids, beam_size=1, alpha=0.0, ablation=self.ablation(heads))
        return handle.tokenizer.decode(beams[0].ids)

    def ablation(self, heads) -> Ablation | None:
        if not heads:
            return None
        try:
            return Ablation(self.handle.config, heads)
        except ValueError as exc:
            raise UserError(f"Cannot switch that head off: {exc}.") from None

    def compare_ablation(self, text, heads: list[tuple[str, int, int]]) -> tuple[str, str, str]:
        """(translation with all heads, translation with `heads` off, a sentence saying what changed)."""
        with self.lock:
            before = self.translate(text)
            after = self.translate(text, heads)
            if not heads:
                note = "No head is switched off: both translations are the same model."
            elif before == after:
                note = f"Switching off {len(heads)} head(s) did not change the translation."
            else:
                note = f"Switching off {len(heads)} head(s) changed the translation."
            return before, after, note

    def stop_training(self) -> str:
        trainer = self.training
        if trainer is None:
            return "No training is running in this session."
        trainer.stop()
        return "Stopping after the current step…"

    # ----- positional encoding --------------------------------------------------------------
    def positional_figures(self, n_positions, n_dims, wave_dims: str):
        """Heatmap, waves and similarity of the model's own positional-encoding buffer."""
        pe_table = self.handle.model.pos_encoding.pe.cpu().numpy()
        max_pos, d_model = pe_table.shape
        n_positions, n_dims = int(number(n_positions, "Positions")), int(number(n_dims, "Dimensions"))
        if not 2 <= n_positions <= max_pos:
            raise UserError(f"Choose between 2 and {max_pos} positions (the model's table has {max_pos}).")
        if not 2 <= n_dims <= d_model:
            raise UserError(f"Choose between 2 and {d_model} dimensions (d_model = {d_model}).")
        try:
            dims = sorted({int(x) for x in str(wave_dims)[:200].replace(",", " ").split()})
        except ValueError:
            raise UserError(f"Wave dimensions must be numbers separated by commas, e.g. 0, 1, 20, 100 (got {str(wave_dims)[:60]!r}).") from None
        if not dims or any(not 0 <= d < d_model for d in dims) or len(dims) > 12:
            raise UserError(f"Give 1 to 12 wave dimensions between 0 and {d_model - 1}.")
        pe = pe_table[:n_positions]
        return (
            figures.pe_heatmap(pe[:, :n_dims], f"Positional encoding: {n_positions} positions × {n_dims} of {d_model} dimensions", self.font_size),
            figures.pe_waves(pe, dims, d_model, "Selected dimensions over position: the frequency ladder", self.font_size),
            figures.pe_similarity(pe, "PE(p)·PE(q): similarity depends on the distance p − q", self.font_size),
        )

    # ----- export ---------------------------------------------------------------------------
    def export_npz(self, request: TraceRequest, step, directory: str | Path | None = None) -> Path:
        """The attention tensors of a trace up to `step`, with tokens, as a .npz file."""
        wire = self.trace(request)
        T = len(wire["steps"])
        step = int(number(step, "Step"))
        if not 0 <= step <= T:
            raise UserError(f"Step {step} does not exist: this translation has steps 0..{T}.")
        arrays = {f"{kind}_weights": unpack(wire["attention"][kind]) for kind in ATTENTION_KINDS}
        arrays["decoder_self_weights"] = arrays["decoder_self_weights"][:, :, :step, :step]
        arrays["cross_weights"] = arrays["cross_weights"][:, :, :step]
        arrays["decoder_self_scores"] = unpack(wire["scores"]["decoder_self"])[:, :, :step, :step]
        arrays["source_tokens"] = np.array(wire["source_tokens"], dtype=str)
        arrays["source_ids"] = np.array(wire["source_ids"], dtype=np.int64)
        arrays["target_tokens"] = np.array(wire["target_tokens"][:step], dtype=str)
        arrays["target_ids"] = np.array(wire["target_ids"][:step], dtype=np.int64)
        arrays["decoder_input_tokens"] = np.array(wire["decoder_input_tokens"][:step], dtype=str)
        arrays["source_text"] = np.array(request.sentence)
        arrays["step"] = np.array(step)
        directory = Path(directory or tempfile.mkdtemp(prefix="attention-"))
        path = directory / f"attention_step{step}.npz"
        np.savez_compressed(path, **arrays)
        return path
