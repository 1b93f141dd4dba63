"""Autoregressive decoding with a key/value cache: batched greedy (with forced prefixes), beam search, a stepper.

`greedy_decode` decodes a batch of sentences at once, each after its own forced prefix and up to its own
length; the trace builder uses it for a class's sentences. The stepper (`Stepper`) encodes a sentence once
(keeping the encoder_self maps), then advances one target token per `step()`, reporting the chosen token,
the top-k next-token probabilities and that step's decoder_self and cross attention rows for every layer
and head; it samples with a seed for the trace builder, and it is the step-by-step reference the trace is
tested against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..model.config import BOS_ID, EOS_ID
from ..model.tokenizer import Tokenizer
from ..model.transformer import Ablation, DecoderState, Transformer, pad_batch
from .hooks import AttentionMaps, AttentionRecorder
from .request import DEFAULTS, STRATEGIES

STEPPED = ("greedy", "sample")  # the strategies a Stepper chooses by; beam search steps through its winner, forced


@dataclass
class Source:
    """A tokenized source sentence, as the model sees it (ids end with EOS)."""

    text: str
    ids: list[int]
    pieces: list[str]
    truncated: bool = False  # the input had more tokens than the model accepts


def prepare_source(tokenizer: Tokenizer, text: str, max_len: int) -> Source:
    """Tokenize `text`, truncating to max_len tokens (EOS included) and saying so."""
    ids = tokenizer.encode_source(text, max_len)
    truncated = len(ids) == max_len and len(tokenizer.encode(text)) >= max_len  # a full-length source was cut
    return Source(text, ids, tokenizer.source_pieces(text, ids), truncated)


def default_max_new_tokens(model: Transformer, source_length: int) -> int:
    """A generous output budget: twice the source plus 10, within the positional table."""
    return min(2 * source_length + 10, model.config.max_len - 1)


@torch.no_grad()
def greedy_decode(
    model: Transformer,
    sources: list[list[int]],
    limits: int | list[int] | None = None,
    forced: list[list[int]] | None = None,
    ablation: Ablation | None = None,
    positions: bool = True,
) -> list[list[int]]:
    """Greedy decoding of a batch: row b takes forced[b] first, then the argmax, until EOS or limits[b] tokens.

    `limits` is one budget for every row or one per row (default: `default_max_new_tokens` of the longest
    source). Returns each row's output ids, its EOS included when one was chosen (what a `Stepper` steps through).
    """
    device = next(model.parameters()).device
    if limits is None:
        limits = default_max_new_tokens(model, max(map(len, sources)))
    if isinstance(limits, int):
        limits = [limits] * len(sources)
    forced = forced or [[] for _ in sources]
    memory, src_mask = model.encode(pad_batch(sources, device), ablation, positions=positions)
    state = DecoderState(memory, src_mask)
    token = torch.full((len(sources), 1), BOS_ID, dtype=torch.long, device=device)
    lengths = [0] * len(sources)
    outputs = []
    for t in range(max(limits)):
        logits, state = model.decode(token, state, ablation, positions=positions)
        chosen = logits[:, -1].argmax(-1)  # (B,)
        for b, prefix in enumerate(forced):
            if t < len(prefix):
                chosen[b] = prefix[t]
        outputs.append(chosen)
        for b, token_id in enumerate(chosen.tolist()):
            if not lengths[b] and (token_id == EOS_ID or t + 1 >= limits[b]):
                lengths[b] = t + 1
        if all(lengths):
            break
        token = chosen[:, None]
    rows = torch.stack(outputs, dim=1).tolist()
    return [row[:n] for row, n in zip(rows, lengths)]


@dataclass
class Beam:
    """One finished (or cut-off) beam hypothesis."""

    ids: list[int]  # output ids without BOS/EOS
    log_prob: float  # sum of token log-probabilities (EOS included when finished)
    score: float  # log_prob / length penalty; beams are ranked by it
    finished: bool
    node: int = 0  # its leaf in the search tree, when one was recorded


@dataclass
class BeamNode:
    """One hypothesis the search looked at: its last token, the path's log-probability and what became of it.

    status: "kept" (one of the beams after its step), "pruned" (among the best 2·beam_size candidates of its
    step but not kept, or a beam dropped when the finished ones could no longer be beaten), "finished" (EOS
    chosen: a complete translation), "cut" (still open at the length limit).
    """

    id: int
    parent: int  # -1 for the root (<s>)
    step: int  # target position of `token` (the root: -1)
    token: int
    log_prob: float  # cumulative: the root's 0
    status: str
    score: float | None = None  # finished and cut hypotheses: log_prob / length penalty


def length_penalty(length: int, alpha: float) -> float:
    """GNMT length penalty ((5 + length) / 6) ** alpha; alpha 0 ranks by raw log-probability."""
    return ((5.0 + length) / 6.0) ** alpha


@torch.no_grad()
def beam_search(
    model: Transformer,
    source: list[int],
    beam_size: int = DEFAULTS["beam_size"],
    alpha: float = DEFAULTS["alpha"],
    max_new_tokens: int | None = None,
    ablation: Ablation | None = None,
    tree: list[BeamNode] | None = None,
) -> list[Beam]:
    """Beam search for one sentence; returns every beam, best first (beam 1 equals greedy).

    Given a list as `tree`, appends every hypothesis the search considered (`BeamNode`s, the root first).
    """
    if beam_size < 1:  # what a person may choose is the schemas' business (explorer/app/schemas.py), not the decoder's
        raise ValueError(f"beam_size={beam_size} must be at least 1")
    device = next(model.parameters()).device
    src = torch.tensor([source], device=device)
    limit = max_new_tokens or default_max_new_tokens(model, src.size(1))
    memory, src_mask = model.encode(src, ablation)
    state = DecoderState(memory, src_mask)
    hyps = [[]]  # live hypotheses' ids
    log_probs = torch.zeros(1, device=device)  # (beams,)
    finished: list[Beam] = []
    nodes = tree if tree is not None else []
    nodes.append(BeamNode(len(nodes), -1, -1, BOS_ID, 0.0, "kept"))
    hyp_nodes = [nodes[-1].id]  # each live hypothesis' node

    def node(parent_row: int, token: int, lp: float, status: str, score=None) -> int:
        nodes.append(BeamNode(len(nodes), hyp_nodes[parent_row], len(hyps[parent_row]), token, lp, status, score))
        return nodes[-1].id

    for _ in range(limit):
        last = torch.tensor([[h[-1] if h else BOS_ID] for h in hyps], device=device)  # (beams, 1)
        logits, state = model.decode(last, state, ablation)
        step_lp = torch.log_softmax(logits[:, -1].float(), dim=-1)  # (beams, V)
        total = (log_probs[:, None] + step_lp).view(-1)  # (beams * V,)
        top_lp, top_idx = total.topk(min(2 * beam_size, total.numel()))
        vocab = step_lp.size(1)
        next_hyps, next_lp, rows, next_nodes = [], [], [], []
        candidates = list(zip(top_lp.tolist(), top_idx.tolist()))
        for n, (lp, idx) in enumerate(candidates):
            row, token = divmod(idx, vocab)
            if token == EOS_ID:
                ids = hyps[row]
                score = lp / length_penalty(len(ids) + 1, alpha)
                finished.append(Beam(ids, lp, score, True, node(row, token, lp, "finished", score)))
            else:
                next_hyps.append(hyps[row] + [token])
                next_lp.append(lp)
                rows.append(row)
                next_nodes.append(node(row, token, lp, "kept"))
            if len(next_hyps) == beam_size:
                for lp_rest, idx_rest in candidates[n + 1 :]:  # considered, not kept
                    node(idx_rest // vocab, idx_rest % vocab, lp_rest, "pruned")
                break
        finished.sort(key=lambda b: -b.score)
        if len(finished) >= beam_size:
            best_live = max(next_lp) / length_penalty(limit, alpha) if alpha > 0 else max(next_lp)
            if not next_hyps or finished[beam_size - 1].score >= best_live:
                for n in next_nodes:  # the live beams can no longer beat the finished ones: dropped
                    nodes[n].status = "pruned"
                break
        if not next_hyps:
            break
        hyps, log_probs, hyp_nodes = next_hyps, torch.tensor(next_lp, device=device), next_nodes
        state = state.select(torch.tensor(rows, device=device))
    else:
        for h, lp, n in zip(hyps, log_probs.tolist(), hyp_nodes):
            score = lp / length_penalty(len(h), alpha)
            nodes[n].status, nodes[n].score = "cut", score
            finished.append(Beam(h, lp, score, False, n))
    finished.sort(key=lambda b: -b.score)
    return finished[:beam_size]


@dataclass
class Step:
    """One decoding step: the token chosen at target position `index` and what the model saw."""

    index: int
    token_id: int
    piece: str
    prob: float  # probability of the chosen token under the distribution it was chosen from
    top_ids: list[int]
    top_probs: list[float]
    forced: bool  # taken from the user's prefix rather than chosen by the model
    decoder_self: torch.Tensor  # (L, H, index + 1) this query's row over the target so far
    decoder_self_scores: torch.Tensor  # (L, H, index + 1) raw scores before the mask
    cross: torch.Tensor  # (L, H, S) this query's row over the source
    cross_scores: torch.Tensor  # (L, H, S)


def next_token_probs(logits: torch.Tensor, sampling) -> torch.Tensor:
    """The distribution a next token is chosen from, over the last axis of `logits` ((V,) or (T, V)): the softmax,
    when sampling of the logits divided by the temperature with all but the top-k cut. `sampling`: what names the
    strategy and the sampling options (`StepperOptions`, or a `TraceRequest`): stepping and tracing share this."""
    if sampling.strategy == "sample":
        logits = logits / sampling.temperature
        if sampling.top_k:
            kth = logits.topk(min(sampling.top_k, logits.size(-1)), dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
    return torch.softmax(logits, dim=-1)


@dataclass
class StepperOptions:
    """How the stepper chooses tokens."""

    strategy: str = "greedy"  # "greedy" or "sample"
    temperature: float = 1.0
    top_k: int = 0  # 0: no top-k cut when sampling
    seed: int = 0
    show_top: int = 10  # how many next-token candidates to report
    max_new_tokens: int | None = None

    def __post_init__(self):
        if self.strategy not in STEPPED:
            raise ValueError(
                f"strategy={self.strategy!r} must be one of {STEPPED} to step (of {STRATEGIES}: beam search runs "
                "beam_search and steps through its best beam)"
            )
        if not 0 < self.temperature < float("inf"):
            raise ValueError(f"temperature={self.temperature} must be a positive number")
        if self.top_k < 0:
            raise ValueError(f"top_k={self.top_k} must be 0 (off) or positive")


@dataclass
class Stepper:
    """Step-by-step decoding of one sentence with full attention capture."""

    model: Transformer
    tokenizer: Tokenizer
    source: Source
    options: StepperOptions = field(default_factory=StepperOptions)
    forced_prefix: list[int] = field(default_factory=list)  # target ids the user typed
    ablation: Ablation | None = None

    def __post_init__(self):
        device = next(self.model.parameters()).device
        self._generator = torch.Generator().manual_seed(self.options.seed)
        src = torch.tensor([self.source.ids], device=device)
        with torch.no_grad(), AttentionRecorder(self.model, ("encoder_self",)) as recorder:
            memory, src_mask = self.model.encode(src, self.ablation, need_weights=True)
        maps = recorder.maps()
        self.encoder_self = maps.stacked("encoder_self")  # (L, H, S, S)
        self.steps: list[Step] = []
        self._state = DecoderState(memory, src_mask)  # cache after all computed steps
        self.max_new_tokens = self.options.max_new_tokens or default_max_new_tokens(self.model, len(self.source.ids))

    @property
    def finished(self) -> bool:
        """Decoding has stopped (EOS chosen or length limit reached)."""
        return bool(self.steps and self.steps[-1].token_id == EOS_ID) or len(self.steps) >= self.max_new_tokens

    def target_ids(self) -> list[int]:
        """Ids of the decoder input so far: BOS + chosen tokens."""
        return [BOS_ID] + [s.token_id for s in self.steps]

    def step(self) -> Step | None:
        """Advance one token; None once decoding has finished."""
        if self.finished:
            return None
        step = self._compute_step()
        self.steps.append(step)
        return step

    def run(self) -> None:
        """Decode to EOS or the length limit."""
        while self.step() is not None:
            pass

    @torch.no_grad()
    def _compute_step(self) -> Step:
        index = len(self.steps)
        device = self._state.memory.device
        token = torch.tensor([[self.target_ids()[-1]]], device=device)
        with AttentionRecorder(self.model, ("decoder_self", "cross")) as recorder:
            logits, self._state = self.model.decode(token, self._state, self.ablation, need_weights=True)
        maps: AttentionMaps = recorder.maps()
        probs = self._distribution(logits[0, -1].float())
        forced = index < len(self.forced_prefix)
        if forced:
            chosen = self.forced_prefix[index]
        elif self.options.strategy == "greedy":
            chosen = int(probs.argmax())
        else:
            chosen = int(torch.multinomial(probs.cpu(), 1, generator=self._generator))
        k = min(self.options.show_top, probs.numel())
        top_p, top_i = probs.topk(k)
        return Step(
            index=index,
            token_id=chosen,
            piece=self.tokenizer.piece(chosen),
            prob=float(probs[chosen]),
            top_ids=top_i.tolist(),
            top_probs=top_p.tolist(),
            forced=forced,
            decoder_self=maps.stacked("decoder_self")[:, :, 0],  # (L, H, index + 1)
            decoder_self_scores=torch.stack([s[0, :, 0] for s in maps.scores["decoder_self"]]),
            cross=maps.stacked("cross")[:, :, 0],  # (L, H, S)
            cross_scores=torch.stack([s[0, :, 0] for s in maps.scores["cross"]]),
        )

    def _distribution(self, logits: torch.Tensor) -> torch.Tensor:
        """The next-token distribution the choice is made from (V,)."""
        return next_token_probs(logits, self.options)

    def maps_at(self, kind: str) -> torch.Tensor:
        """(L, H, queries, keys) after the steps so far; decoder rows are stacked steps."""
        if kind == "encoder_self":
            return self.encoder_self
        steps = self.steps
        L, H, T = self.model.config.n_decoder_layers, self.model.config.n_heads, len(steps)
        if kind == "cross":
            if not steps:
                return torch.zeros(L, H, 0, len(self.source.ids))
            return torch.stack([s.cross for s in steps], dim=2)  # (L, H, T, S)
        if kind == "decoder_self":
            out = torch.zeros(L, H, T, T)
            for s in steps:
                out[:, :, s.index, : s.index + 1] = s.decoder_self
            return out
        raise ValueError(f"unknown attention kind {kind!r}")
