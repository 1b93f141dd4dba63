"""One person's exploration: their sentence, decoding steps, options, ablations and model, as plain Python.

The UI keeps one `ExplorerSession` per browser session and calls its methods; everything here returns
plain data and plotly figures, so it is tested without a browser. Every method takes the session's
lock, so two events of one browser session never interleave on the same stepper.
"""

from __future__ import annotations

import math
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from . import figures
from .config import ATTENTION_KINDS
from .decoding import Stepper, StepperOptions, beam_search, prepare_source
from .hooks import AttentionRecorder
from .masks import lookahead_mask
from .model import Ablation, Transformer
from .tokenizer import BOS_ID, EOS_ID, Tokenizer, normalize

MAX_CHARS = 1000  # longer pastes are refused with a message
HEAD_MEAN, HEAD_ALL = "mean", "all"


class UserError(ValueError):
    """Something the person typed or chose that cannot be used; the message is shown to them as is."""


@dataclass
class ModelHandle:
    """A model the explorer can use, with what the UI needs to know about it."""

    name: str
    model: Transformer
    tokenizer: Tokenizer
    metadata: dict = field(default_factory=dict)
    default_view: tuple[str, int, str] = ("cross", 0, HEAD_MEAN)  # (kind, layer, head as "2" or "mean") shown first

    @property
    def config(self):
        return self.model.config


def load_handle(path, name: str | None = None) -> ModelHandle:
    """Load a checkpoint for the explorer; its alignment finding (if any) picks the default view."""
    from .checkpoint import load_checkpoint

    ckpt = load_checkpoint(path)
    view = ("cross", ckpt.model.config.n_decoder_layers - 1, HEAD_MEAN)
    best = (ckpt.metadata.get("alignment") or {}).get("best")
    if best and best.get("layer") != "all":
        view = ("cross", int(best["layer"]), str(best["head"]))
    return ModelHandle(name or f"model in {path}", ckpt.model, ckpt.tokenizer, ckpt.metadata, view)


def clean_text(text, what: str = "an English sentence") -> str:
    """Normalized text, or a UserError saying what is wrong with it."""
    if not isinstance(text, str):
        raise UserError(f"Type {what} first.")
    cleaned = normalize(text)
    if not cleaned:
        raise UserError(f"Type {what} first: the box is empty.")
    if len(cleaned) > MAX_CHARS:
        raise UserError(
            f"That text is {len(cleaned):,} characters long; the explorer takes up to {MAX_CHARS:,} characters "
            "(a sentence or two). Shorten it and try again."
        )
    return cleaned


def number(value, name: str) -> float:
    """A finite number from a UI value (which may arrive as text through the API), or a UserError naming it."""
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be a number (got {value!r}).") from None
    if not math.isfinite(result):
        raise UserError(f"{name} must be a finite number (got {value!r}).")
    return result


def parse_head(head) -> int | str:
    """'mean', 'all' or a head number (as int or text) -> the canonical form."""
    if head in (HEAD_MEAN, HEAD_ALL):
        return head
    try:
        return int(head)
    except (TypeError, ValueError):
        raise UserError(f"Unknown head {head!r}: choose a head number, 'mean' or 'all'.") from None


@dataclass
class StepView:
    """What the Translate tab shows after any decoding action."""

    source_chips: list[tuple[str, float | None]]  # source pieces shaded by the current step's cross-attention
    target_chips: list[tuple[str, str | None]]  # target pieces, the current one marked
    status: str  # markdown: step counter, chosen token, notes
    position: int
    max_position: int  # steps computed so far (the slider's range)
    finished: bool
    output_text: str
    topk: object | None  # plotly figure or None before the first step


class ExplorerSession:
    """Per-session state and actions; the shipped model is shared read-only, a trained one is private."""

    def __init__(self, shipped: ModelHandle):
        self.lock = threading.RLock()
        self.shipped = shipped
        self.own: ModelHandle | None = None  # a model this session trained
        self.use_own = False
        self.stepper: Stepper | None = None
        self.notes: list[str] = []
        self.ablated: frozenset = frozenset()
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
            self.stepper, self.ablated = None, frozenset()
            return f"Exploring **{self.handle.name}**."

    def set_own_model(self, handle: ModelHandle) -> None:
        with self.lock:
            self.own = handle

    # ----- decoding --------------------------------------------------------------------------
    def start(
        self,
        text,
        strategy: str = "greedy",
        temperature: float = 1.0,
        top_k: int = 0,
        seed: int = 0,
        prefix: str = "",
        show_top: int = 10,
        forced_ids: list[int] | None = None,
    ) -> StepView:
        """Encode a sentence and stand before the first decoding step."""
        with self.lock:
            cleaned = clean_text(text)
            try:
                options = StepperOptions(
                    strategy, number(temperature, "Temperature"), int(number(top_k or 0, "Top-k")),
                    int(number(seed or 0, "Seed")), int(number(show_top, "Top candidates")),
                )
            except ValueError as exc:
                raise UserError(str(exc)) from None
            handle = self.handle
            source = prepare_source(handle.tokenizer, cleaned, handle.config.max_len)
            self.notes = []
            if source.truncated:
                self.notes.append(
                    f"The sentence has more tokens than the model accepts; only the first {handle.config.max_len - 1} were used."
                )
            unknown = source.ids.count(handle.config.unk_id)
            if unknown:
                self.notes.append(f"{unknown} piece(s) are outside the model's vocabulary and show as <unk>.")
            forced = list(forced_ids or [])
            if not forced and isinstance(prefix, str) and prefix.strip():
                forced = handle.tokenizer.encode(clean_text(prefix, "a German prefix"))
            if forced:
                self.notes.append(f"What-if: the first {len(forced)} target token(s) are forced from your prefix.")
            ablation = Ablation(handle.config, self.ablated) if self.ablated else None
            if ablation is not None:
                self.notes.append(f"{len(self.ablated)} head(s) switched off.")
            self.stepper = Stepper(handle.model, handle.tokenizer, source, options, forced, ablation)
            return self.view()

    def start_beam(self, text, beam_size, alpha) -> tuple[list[list], StepView]:
        """Beam search, then step through the best beam (forced) to see its attention."""
        with self.lock:
            beams = self._beam_search(text, beam_size, alpha)
            best = beams[0]
            self.start(text, forced_ids=best.ids + ([EOS_ID] if best.finished else []))
            self.notes[-1] = f"Beam search: stepping through the best of {len(beams)} beam(s), forced token by token."
            return self._beam_rows(beams), self.view()

    def _require(self) -> Stepper:
        if self.stepper is None:
            raise UserError("Press Start first (after typing a sentence).")
        return self.stepper

    def next(self) -> StepView:
        with self.lock:
            self._require().step()
            return self.view()

    def previous(self) -> StepView:
        with self.lock:
            self._require().back()
            return self.view()

    def run_to_end(self) -> StepView:
        with self.lock:
            self._require().run()
            return self.view()

    def reset(self) -> StepView:
        with self.lock:
            self._require().seek(0)
            return self.view()

    def seek(self, position) -> StepView:
        with self.lock:
            try:
                position = int(position)
            except (TypeError, ValueError):
                raise UserError(f"Step {position!r} is not a number.") from None
            self._require().seek(position)
            return self.view()

    def view(self) -> StepView:
        """The Translate tab's content at the current step."""
        stepper = self._require()
        steps = stepper.current
        last = steps[-1] if steps else None
        cross_row = None
        if last is not None:
            kind, layer, head = self.handle.default_view
            row = last.cross[layer if kind == "cross" else -1]  # (H, S)
            head = parse_head(head) if kind == "cross" else HEAD_MEAN
            cross_row = row[head].numpy() if isinstance(head, int) else row.mean(0).numpy()
        source_chips = [
            (piece, round(float(cross_row[i]), 3) if cross_row is not None else None) for i, piece in enumerate(stepper.source.pieces)
        ]
        target_chips = [("<s>", "start")] + [
            (s.piece, "current" if s is last else ("forced" if s.forced else "produced")) for s in steps
        ]
        if last is None:
            status = "Ready: press **Next token** to produce the first target token."
        else:
            how = "forced by your prefix" if last.forced else ("sampled" if stepper.options.strategy == "sample" else "argmax")
            status = f"Step **{len(steps)}**: produced **{_md(last.piece)}** (p = {last.prob:.1%}, {how})."
            if stepper.finished:
                status += " Decoding finished" + (" at </s>." if last.token_id == EOS_ID else " at the length limit.")
        if self.notes:
            status += "\n\n" + "\n".join(f"- {_md(n)}" for n in self.notes)
        topk = None
        if last is not None:
            topk = figures.topk_bars(last.top_pieces, last.top_probs, last.piece, f"Next-token distribution at step {len(steps)}", self.font_size)
        return StepView(
            source_chips, target_chips, status, len(steps), len(stepper.steps), stepper.finished, stepper.output_text(), topk
        )

    # ----- attention views ------------------------------------------------------------------
    def labels(self, kind: str) -> tuple[list[str], list[str]]:
        """(query labels, key labels) for a kind at the current step."""
        stepper = self._require()
        produced = [s.piece for s in stepper.current]
        decoder_inputs = ["<s>"] + produced[:-1]
        if kind == "encoder_self":
            return stepper.source.pieces, stepper.source.pieces
        if kind == "decoder_self":
            return produced, decoder_inputs
        if kind == "cross":
            return produced, stepper.source.pieces
        raise UserError(f"Unknown attention kind {kind!r}; choose one of {', '.join(ATTENTION_KINDS)}.")

    def attention_figure(self, kind: str, layer, head):
        """The heatmap for one head, the mean of a layer's heads, or all heads of a layer (mosaic row)."""
        with self.lock:
            stepper = self._require()
            head = parse_head(head)
            if kind not in ATTENTION_KINDS:
                raise UserError(f"Unknown attention kind {kind!r}.")
            n_layers = self.handle.config.n_layers(kind)
            try:
                layer = int(layer)
            except (TypeError, ValueError):
                raise UserError(f"Layer {layer!r} is not a number.") from None
            if not 0 <= layer < n_layers:
                raise UserError(f"Layer {layer} does not exist: this model has layers 0..{n_layers - 1}.")
            if isinstance(head, int) and not 0 <= head < self.handle.config.n_heads:
                raise UserError(f"Head {head} does not exist: this model has heads 0..{self.handle.config.n_heads - 1}.")
            queries, keys = self.labels(kind)
            if kind != "encoder_self" and not queries:
                raise UserError("No target token yet: press Next token to see decoder attention.")
            maps = stepper.maps_at(kind).numpy()  # (L, H, Q, K)
            mask = _mask_for(kind, len(queries), len(keys))
            name = figures.KIND_TITLES[kind]
            if head == HEAD_ALL:
                return figures.mosaic(maps[layer : layer + 1], queries, keys, kind, f"{name}: all heads of layer {layer}", mask, self.font_size)
            weights = maps[layer].mean(0) if head == HEAD_MEAN else maps[layer, head]
            which = "mean of heads" if head == HEAD_MEAN else f"head {head}"
            step = f" · step {len(stepper.current)}" if kind != "encoder_self" else ""
            return figures.attention_heatmap(
                weights, queries, keys, kind, f"{name} · layer {layer} · {which}{step}", mask, self.font_size,
                highlight_row=len(queries) - 1 if kind != "encoder_self" else None,
            )

    def overview_figure(self, kind: str):
        """Every layer x head of a kind as one mosaic figure."""
        with self.lock:
            stepper = self._require()
            if kind not in ATTENTION_KINDS:
                raise UserError(f"Unknown attention kind {kind!r}.")
            queries, keys = self.labels(kind)
            if kind != "encoder_self" and not queries:
                raise UserError("No target token yet: press Next token to see decoder attention.")
            dk, dl, dh = self.handle.default_view
            highlight = (dl, int(dh)) if dk == kind and str(dh).isdigit() else None
            return figures.mosaic(
                stepper.maps_at(kind).numpy(), queries, keys, kind, f"{figures.KIND_TITLES[kind]}: every layer × head",
                _mask_for(kind, len(queries), len(keys)), self.font_size, highlight,
            )

    # ----- look-ahead mask ------------------------------------------------------------------
    def mask_figures(self, layer, head):
        """The look-ahead mask at the current target length, and scores -> mask -> softmax for one head."""
        with self.lock:
            stepper = self._require()
            ids = stepper.target_ids()  # BOS + produced tokens: the decoder's input at the next step
            labels = stepper.tokenizer.pieces(ids)
            T = len(ids)
            mask = lookahead_mask(T)[0, 0].numpy()
            mask_fig = figures.mask_figure(mask, labels, f"Look-ahead mask for a target of {T} position(s)", self.font_size)
            try:
                layer, head = int(layer), int(head)
            except (TypeError, ValueError):
                raise UserError("Choose a decoder layer and a single head for the three stages.") from None
            if not 0 <= layer < self.handle.config.n_decoder_layers or not 0 <= head < self.handle.config.n_heads:
                raise UserError("That decoder layer/head does not exist in this model.")
            model = stepper.model
            with torch.no_grad(), AttentionRecorder(model, ("decoder_self",)) as recorder:
                model(torch.tensor([stepper.source.ids]), torch.tensor([ids]), stepper.ablation)
            maps = recorder.maps()
            scores = maps.scores["decoder_self"][layer][0, head].numpy()
            weights = maps.weights["decoder_self"][layer][0, head].numpy()
            stages = figures.score_stages(
                scores, mask, weights, labels, f"Decoder self-attention, layer {layer}, head {head}: scores → mask → softmax", self.font_size
            )
            return mask_fig, stages

    # ----- whole translations ---------------------------------------------------------------
    def translate(self, text) -> str:
        """A one-click greedy translation with the current model and ablation."""
        with self.lock:
            handle = self.handle
            source = prepare_source(handle.tokenizer, clean_text(text), handle.config.max_len)
            ablation = Ablation(handle.config, self.ablated) if self.ablated else None
            beams = beam_search(handle.model, source.ids, beam_size=1, alpha=0.0, ablation=ablation)
            return handle.tokenizer.decode(beams[0].ids)

    def beams(self, text, beam_size, alpha) -> list[list]:
        """Every beam as [rank, translation, score, log-probability, finished]."""
        with self.lock:
            return self._beam_rows(self._beam_search(text, beam_size, alpha))

    def _beam_rows(self, beams) -> list[list]:
        decode = self.handle.tokenizer.decode
        return [
            [i + 1, decode(b.ids), round(b.score, 3), round(b.log_prob, 3), "yes" if b.finished else "cut off"]
            for i, b in enumerate(beams)
        ]

    def _beam_search(self, text, beam_size, alpha):
        with self.lock:
            beam_size, alpha = int(number(beam_size, "Beam size")), number(alpha, "Length penalty")
            if not 1 <= beam_size <= 8:
                raise UserError(f"Beam size {beam_size} is out of range: choose 1 to 8.")
            if not 0.0 <= alpha <= 2.0:
                raise UserError(f"Length penalty {alpha} is out of range: choose 0 to 2.")
            handle = self.handle
            source = prepare_source(handle.tokenizer, clean_text(text), handle.config.max_len)
            ablation = Ablation(handle.config, self.ablated) if self.ablated else None
            return beam_search(handle.model, source.ids, beam_size, alpha, ablation=ablation)

    def set_ablation(self, heads: list[tuple[str, int, int]]) -> str:
        with self.lock:
            try:
                Ablation(self.handle.config, heads)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            self.ablated = frozenset((k, int(l), int(h)) for k, l, h in heads)
            return f"{len(self.ablated)} head(s) switched off." if self.ablated else "All heads on."

    def compare_ablation(self, text, heads: list[tuple[str, int, int]]) -> tuple[str, str, str]:
        """(translation with all heads, translation with `heads` off, a sentence saying what changed)."""
        with self.lock:
            self.ablated = frozenset()
            before = self.translate(text)
            self.set_ablation(heads)
            after = self.translate(text)
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
            dims = sorted({int(x) for x in str(wave_dims).replace(",", " ").split()})
        except ValueError:
            raise UserError(f"Wave dimensions must be numbers separated by commas, e.g. 0, 1, 20, 100 (got {wave_dims!r}).") from None
        if not dims or any(not 0 <= d < d_model for d in dims) or len(dims) > 12:
            raise UserError(f"Give 1 to 12 wave dimensions between 0 and {d_model - 1}.")
        pe = pe_table[:n_positions]
        return (
            figures.pe_heatmap(pe[:, :n_dims], f"Positional encoding: {n_positions} positions × {n_dims} of {d_model} dimensions", self.font_size),
            figures.pe_waves(pe, dims, d_model, "Selected dimensions over position: the frequency ladder", self.font_size),
            figures.pe_similarity(pe, "PE(p)·PE(q): similarity depends on the distance p − q", self.font_size),
        )

    # ----- export ---------------------------------------------------------------------------
    def export_npz(self, directory: str | Path | None = None) -> Path:
        """All attention tensors of the current sentence and step, with tokens, as a .npz file."""
        with self.lock:
            stepper = self._require()
            arrays = {f"{kind}_weights": stepper.maps_at(kind).numpy() for kind in ATTENTION_KINDS}
            steps = stepper.current
            L, H = self.handle.config.n_decoder_layers, self.handle.config.n_heads
            T = len(steps)
            dec_scores = np.full((L, H, T, T), np.nan, dtype=np.float32)
            for s in steps:
                dec_scores[:, :, s.index, : s.index + 1] = s.decoder_self_scores.numpy()
            arrays["encoder_self_scores"] = stepper.encoder_self_scores.numpy()
            arrays["decoder_self_scores"] = dec_scores
            arrays["cross_scores"] = (
                torch.stack([s.cross_scores for s in steps], dim=2).numpy() if steps else np.zeros((L, H, 0, len(stepper.source.ids)), np.float32)
            )
            arrays["source_tokens"] = np.array(stepper.source.pieces, dtype=str)
            arrays["source_ids"] = np.array(stepper.source.ids)
            arrays["target_tokens"] = np.array([s.piece for s in steps], dtype=str)
            arrays["target_ids"] = np.array([s.token_id for s in steps], dtype=np.int64)
            arrays["decoder_input_tokens"] = np.array(stepper.tokenizer.pieces([BOS_ID] + [s.token_id for s in steps[:-1]]), dtype=str)
            arrays["source_text"] = np.array(stepper.source.text)
            arrays["step"] = np.array(T)
            directory = Path(directory or tempfile.mkdtemp(prefix="attention-"))
            path = directory / f"attention_step{T}.npz"
            np.savez_compressed(path, **arrays)
            return path


def _mask_for(kind: str, queries: int, keys: int) -> np.ndarray | None:
    """The look-ahead mask drawn on decoder self-attention (rows: produced tokens, keys: decoder inputs)."""
    if kind != "decoder_self":
        return None
    return lookahead_mask(queries)[0, 0, :, :keys].numpy()


def _md(text: str) -> str:
    """Escape text for Markdown so user or model text is never rendered as markup or HTML."""
    out = []
    for ch in text:
        if ch in "\\`*_{}[]()#+-.!|<>&~":
            out.append("&#%d;" % ord(ch) if ch in "<>&" else "\\" + ch)
        else:
            out.append(ch)
    return "".join(out)
