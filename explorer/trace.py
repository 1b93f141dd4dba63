"""The decode trace: one whole decode of a sentence with every attention map, built once for the browser.

`build_trace(handle, request)` runs the KV-cached `Stepper` (which records through `AttentionRecorder`
hooks) to the end and stacks what it saw into a `DecodeTrace`:

    encoder_self         (Le, H, S, S)  computed once, before the first step
    decoder_self         (Ld, H, T, T)  row i = step i's query over decoder inputs 0..i; future exactly 0
    cross                (Ld, H, T, S)  row i = step i's query over the source
    decoder_self_scores  (Ld, H, T, T)  q·k/√Dh before the mask, from one teacher-forced pass over the
                                        decoder inputs: its lower triangle is what each step computed,
                                        its upper triangle the future that the look-ahead mask removes

Row i is computed at step i + 1 and never changes afterwards (the decoder is causal), so the view at
step t is rows 0..t-1 of the full trace: the browser slices, the server computes nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from .decoding import Stepper, StepperOptions, beam_search, default_max_new_tokens, prepare_source
from .handle import ModelHandle
from .inputs import TOP_CANDIDATES, TraceRequest, UserError
from .model import Ablation
from .hooks import AttentionRecorder
from .tokenizer import BOS_ID, EOS_ID


@dataclass
class TraceStep:
    """One decoding step: the chosen token and the candidates it was chosen from."""

    token: str
    token_id: int
    prob: float  # probability of the chosen token under the distribution it was chosen from
    forced: bool  # taken from the forced prefix (what-if, a clicked candidate, or the best beam)
    top_tokens: list[str]
    top_ids: list[int]
    top_probs: list[float]


@dataclass
class TraceBeam:
    """One beam-search hypothesis, as the beams table shows it."""

    text: str
    ids: list[int]
    score: float
    log_prob: float
    finished: bool


@dataclass
class DecodeTrace:
    """A whole decode: tokens, steps, every attention map and the notes a person should read."""

    request: TraceRequest
    source_tokens: list[str]
    source_ids: list[int]
    steps: list[TraceStep]
    encoder_self: np.ndarray  # (Le, H, S, S)
    decoder_self: np.ndarray  # (Ld, H, T, T)
    cross: np.ndarray  # (Ld, H, T, S)
    decoder_self_scores: np.ndarray  # (Ld, H, T, T), teacher-forced: the future included
    outputs: list[str]  # outputs[t]: the detokenized translation after t steps (t = 0..T)
    finished: str  # "eos" or "length"
    notes: list[str] = field(default_factory=list)
    beams: list[TraceBeam] = field(default_factory=list)

    @property
    def target_tokens(self) -> list[str]:
        return [s.token for s in self.steps]

    @property
    def target_ids(self) -> list[int]:
        return [s.token_id for s in self.steps]

    @property
    def decoder_input_tokens(self) -> list[str]:
        """The decoder's input at each step: <s>, then every token produced before it."""
        return ["<s>"] + self.target_tokens[:-1]

    def attention(self, kind: str) -> np.ndarray:
        return {"encoder_self": self.encoder_self, "decoder_self": self.decoder_self, "cross": self.cross}[kind]


def build_trace(handle: ModelHandle, request: TraceRequest) -> DecodeTrace:
    """Decode `request.sentence` with the request's options and record everything the views need."""
    config, tokenizer = handle.config, handle.tokenizer
    try:
        ablation = Ablation(config, request.ablation) if request.ablation else None
    except ValueError as exc:
        raise UserError(f"Cannot switch that head off: {exc}.") from None
    source = prepare_source(tokenizer, request.sentence, config.max_len)
    notes = []
    if source.truncated:
        notes.append(f"The sentence has more tokens than the model accepts; only the first {config.max_len - 1} were used.")
    unknown = source.ids.count(config.unk_id)
    if unknown:
        notes.append(f"{unknown} piece(s) are outside the model's vocabulary and show as <unk>.")

    max_new = default_max_new_tokens(handle.model, len(source.ids))
    forced = list(request.forced_ids)
    if any(not 0 <= i < config.vocab_size for i in forced):
        bad = next(i for i in forced if not 0 <= i < config.vocab_size)
        raise UserError(f"Forced token id {bad} is outside the vocabulary (0..{config.vocab_size - 1}).")
    if not forced and request.prefix:
        forced = tokenizer.encode(request.prefix)
    forced = forced[:max_new]
    beams: list[TraceBeam] = []
    if request.strategy == "beam" and not forced:
        found = beam_search(handle.model, source.ids, request.beam_size, request.alpha, ablation=ablation)
        beams = [TraceBeam(tokenizer.decode(b.ids), b.ids, b.score, b.log_prob, b.finished) for b in found]
        forced = found[0].ids + ([EOS_ID] if found[0].finished else [])
        notes.append(f"Beam search (size {request.beam_size}, α {request.alpha}): stepping through the best of {len(found)} beam(s).")
    elif forced:
        how = "your prefix" if request.prefix else "the chosen tokens"
        notes.append(f"What-if: the first {len(forced)} target token(s) are forced from {how}; the model continues from there.")
        if request.strategy == "beam":
            notes.append("Beam search does not take a forced prefix: the model continues greedily after it.")
    if ablation is not None:
        notes.append(f"{len(request.ablation)} head(s) switched off.")

    strategy = "sample" if request.strategy == "sample" else "greedy"
    options = StepperOptions(strategy, request.temperature, request.top_k, request.seed, TOP_CANDIDATES, max_new)
    stepper = Stepper(handle.model, tokenizer, source, options, forced, ablation)
    stepper.run()
    return _stack(request, stepper, tokenizer, notes, beams, _teacher_forced_scores(handle, stepper, ablation))


@torch.no_grad()
def _teacher_forced_scores(handle: ModelHandle, stepper: Stepper, ablation) -> np.ndarray:
    """decoder_self scores (Ld, H, T, T) of one pass over all decoder inputs, the future included."""
    inputs = [BOS_ID] + [s.token_id for s in stepper.steps[:-1]]
    device = next(handle.model.parameters()).device
    with AttentionRecorder(handle.model, ("decoder_self",)) as recorder:
        handle.model(torch.tensor([stepper.source.ids], device=device), torch.tensor([inputs], device=device), ablation)
    return torch.stack([s[0] for s in recorder.maps().scores["decoder_self"]]).numpy()


def _stack(request, stepper: Stepper, tokenizer, notes, beams, scores: np.ndarray) -> DecodeTrace:
    """The stepper's per-step rows stacked into (L, H, T, keys) arrays."""
    steps = stepper.steps
    encoder_self = stepper.encoder_self.numpy()
    L, H = stepper.model.config.n_decoder_layers, stepper.model.config.n_heads
    T, S = len(steps), len(stepper.source.ids)
    decoder_self = np.zeros((L, H, T, T), np.float32)
    cross = np.zeros((L, H, T, S), np.float32)
    for i, s in enumerate(steps):
        decoder_self[:, :, i, : i + 1] = s.decoder_self.numpy()
        cross[:, :, i] = s.cross.numpy()
    ids = [s.token_id for s in steps]
    outputs = [tokenizer.decode(ids[:t]) for t in range(T + 1)]
    finished = "eos" if ids and ids[-1] == EOS_ID else "length"
    trace_steps = [
        TraceStep(s.piece, s.token_id, s.prob, s.forced, s.top_pieces, s.top_ids, s.top_probs) for s in steps
    ]
    return DecodeTrace(
        request, stepper.source.pieces, stepper.source.ids, trace_steps, encoder_self, decoder_self, cross, scores,
        outputs, finished, notes, beams,
    )

