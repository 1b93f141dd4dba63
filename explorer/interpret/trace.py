"""The decode trace: one whole decode of a sentence with every attention map, built once for the browser.

`plan_trace(handle, request)` checks a request against the model and tokenizes it (no model work);
`build_traces(handle, plans)` decodes several plans at once (greedy rows in one KV-cached batch, a beam
or a seeded sampler per plan), then records every attention map with `AttentionRecorder` hooks in one
teacher-forced pass over the chosen tokens, and stacks them into `DecodeTrace`s:

    encoder_self         (Le, H, S, S)  the source over itself
    decoder_self         (Ld, H, T, T)  row i = step i's query over decoder inputs 0..i; future exactly 0
    cross                (Ld, H, T, S)  row i = step i's query over the source
    decoder_self_scores  (Ld, H, T, T)  q·k/√Dh before the mask: its lower triangle is what each step
                                        computed, its upper triangle the future that the mask removes

The teacher-forced pass equals the stepwise decode (`Stepper`) because the decoder is causal; the tests
hold the trace to the stepper's rows and probabilities.

Row i is computed at step i + 1 and never changes afterwards (the decoder is causal), so the view at
step t is rows 0..t-1 of the full trace: the browser slices, the server computes nothing more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import UserError
from ..model.config import BOS_ID, EOS_ID, PAD_ID, UNK_ID
from ..model.transformer import Ablation
from .decoding import (
    Source,
    Stepper,
    StepperOptions,
    beam_search,
    default_max_new_tokens,
    greedy_decode,
    next_token_probs,
    prepare_source,
)
from .handle import ModelHandle
from .hooks import record
from .request import READS, TOP_CANDIDATES, TraceRequest


@dataclass
class TraceStep:
    """One decoding step: the chosen token and the candidates it was chosen from."""

    token: str
    token_id: int
    prob: float  # probability of the chosen token under the distribution it was chosen from
    forced: bool  # taken from the request's forced prefix (what-if, a clicked candidate), not chosen by the model
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


@dataclass(frozen=True)
class TracePlan:
    """A validated request with its tokenized source: everything a trace needs before any model work."""

    request: TraceRequest
    source: Source
    forced: tuple[int, ...]  # target ids to take before the model chooses (a prefix, clicked candidates)
    max_new: int
    notes: tuple[str, ...]

    def ablation(self, config) -> Ablation | None:
        return Ablation(config, self.request.ablation) if self.request.ablation else None


# words that mark a sentence as German or English (none of them a word of the other language: not "die", "in", "was")
GERMAN_WORDS = frozenset(
    "der das und ist nicht ich ein eine einen dem den des sind auch mit auf zu wir sie er es du ihr bin hat habe "
    "wie aber oder weil dass für über nach von bei aus heute morgen sehr gut".split()
)
ENGLISH_WORDS = frozenset(  # not "was" and "an", which German has too
    "the and is are not a of to it that you he she we they i my your this with for on at be have has were do does "
    "what how why".split()
)


def looks_german(text: str) -> bool:
    """Whether `text` reads as German rather than English: more German than English marker words (at least two), or
    German letters (ä ö ü ß) beside a German marker word and no English one ("Müller scored twice." is English)."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    german = sum(w in GERMAN_WORDS for w in words)
    english = sum(w in ENGLISH_WORDS for w in words)
    letters = bool(re.search("[äöüß]", text.lower()))
    return (german >= 2 and german > english) or (english == 0 and german >= 1 and letters)


def plan_trace(handle: ModelHandle, request: TraceRequest) -> TracePlan:
    """Check `request` against the model (heads, token ids) and tokenize it; a UserError names what is wrong."""
    config, tokenizer = handle.config, handle.tokenizer
    try:
        ablation = Ablation(config, request.ablation) if request.ablation else None
    except ValueError as exc:
        raise UserError(f"Cannot switch that head off: {exc}.") from None
    source = prepare_source(tokenizer, request.sentence, config.max_len)
    notes = []
    if source.truncated:
        notes.append(
            f"The sentence has more tokens than the model accepts; only the first {config.max_len - 1} were used."
        )
    if handle.languages.source == "en" and looks_german(request.sentence):
        notes.append(
            f"This looks like German. The model reads English and writes {handle.languages.target_name}, so it reads "
            "this sentence as if it were English; type an English sentence to see a translation."
        )
    unknown = source.ids.count(UNK_ID)
    if unknown:
        notes.append(f"{unknown} piece(s) are outside the model's vocabulary and show as <unk>.")
    max_new = default_max_new_tokens(handle.model, len(source.ids))
    forced = list(request.forced_ids)
    bad = next((i for i in forced if not 0 <= i < config.vocab_size), None)
    if bad is not None:
        raise UserError(f"Forced token id {bad} is outside the vocabulary (0..{config.vocab_size - 1}).")
    if PAD_ID in forced:
        raise UserError(f"Forced token id {PAD_ID} is the padding token, which the model never reads.")
    if not forced and request.prefix:
        forced = tokenizer.encode_target(request.prefix)
    if forced:
        how = "your prefix" if request.prefix and not request.forced_ids else "the chosen tokens"
        notes.append(
            f"What-if: the first {len(forced[:max_new])} target token(s) are forced from {how}; the model continues "
            "from there."
        )
        if request.strategy == "beam":
            notes.append("Beam search does not take a forced prefix: the model continues greedily after it.")
    if ablation is not None:
        notes.append(f"{len(request.ablation)} head(s) switched off.")
    return TracePlan(request, source, tuple(forced[:max_new]), max_new, tuple(notes))


def build_trace(handle: ModelHandle, request: TraceRequest) -> DecodeTrace:
    """Decode `request.sentence` with the request's options and record everything the views need."""
    return build_traces(handle, [plan_trace(handle, request)])[0]


@torch.no_grad()
def build_traces(handle: ModelHandle, plans: list[TracePlan]) -> list[DecodeTrace]:
    """Traces of several plans at once: a class's sentences cost one batched decode and one batched pass.

    First each plan's target ids are chosen: greedy rows (a forced prefix, then the argmax) decode together
    in one KV-cached batch, a beam search or a seeded sampler runs per plan. Then one teacher-forced pass
    with an `AttentionRecorder` over the chosen ids gives every attention map and every step's next-token
    distribution: the decoder is causal, so its rows equal what the stepwise decode computed.
    """
    model, tokenizer, config = handle.model, handle.tokenizer, handle.config
    targets: list[list[int] | None] = [None] * len(plans)
    forced = [list(p.forced) for p in plans]
    beams: list[list[TraceBeam]] = [[] for _ in plans]
    notes = [list(p.notes) for p in plans]
    for i, p in enumerate(plans):
        if p.request.strategy == "beam" and not p.forced:
            found = beam_search(model, p.source.ids, p.request.beam_size, p.request.alpha, ablation=p.ablation(config))
            beams[i] = [TraceBeam(tokenizer.decode(b.ids), b.ids, b.score, b.log_prob, b.finished) for b in found]
            forced[i] = (found[0].ids + ([EOS_ID] if found[0].finished else []))[: p.max_new]
            notes[i].append(
                f"Beam search (size {p.request.beam_size}, α {p.request.alpha}): stepping through the best of "
                f"{len(found)} beam(s)."
            )
        elif p.request.strategy == "sample":
            sampling = {name: getattr(p.request, name) for name in READS["sample"]}
            options = StepperOptions("sample", show_top=TOP_CANDIDATES, max_new_tokens=p.max_new, **sampling)
            stepper = Stepper(model, tokenizer, p.source, options, forced[i], p.ablation(config))
            stepper.run()
            targets[i] = [s.token_id for s in stepper.steps]
    for group in _by_ablation(plans, [i for i, t in enumerate(targets) if t is None]):
        found = greedy_decode(
            model,
            [plans[i].source.ids for i in group],
            [plans[i].max_new for i in group],
            [forced[i] for i in group],
            plans[group[0]].ablation(config),
        )
        for i, ids in zip(group, found):
            targets[i] = ids
    traces: list[DecodeTrace | None] = [None] * len(plans)
    for group in _by_ablation(plans, range(len(plans))):
        passed = _teacher_forced(model, [plans[i] for i in group], [targets[i] for i in group])
        for i, (maps, logits) in zip(group, passed):
            p = plans[i]
            # the request's own forced tokens (a beam search's best beam is fed the same way, but the model chose it)
            steps = _steps(p, tokenizer, targets[i], len(p.forced), logits)
            traces[i] = _trace(p, tokenizer, steps, maps, notes[i], beams[i])
    return traces


def _by_ablation(plans: list[TracePlan], indices) -> list[list[int]]:
    """Indices grouped by their switched-off heads: one forward pass cannot mix ablations."""
    groups: dict[tuple, list[int]] = {}
    for i in indices:
        groups.setdefault(plans[i].request.ablation, []).append(i)
    return list(groups.values())


def _teacher_forced(model, plans: list[TracePlan], targets: list[list[int]]):
    """One recorded pass over every plan's decoder inputs; per plan its unpadded maps and logits."""
    maps, logits = record(
        model,
        [p.source.ids for p in plans],
        [[BOS_ID] + ids[:-1] for ids in targets],
        ablation=plans[0].ablation(model.config),
    )
    out = []
    for b, (p, ids) in enumerate(zip(plans, targets)):
        S, T = len(p.source.ids), len(ids)
        sizes = {"encoder_self": (S, S), "decoder_self": (T, T), "cross": (T, S)}
        arrays = {
            kind: torch.stack([w[b, :, :q, :k] for w in maps.weights[kind]]).numpy() for kind, (q, k) in sizes.items()
        }
        arrays["decoder_self_scores"] = torch.stack([s[b, :, :T, :T] for s in maps.scores["decoder_self"]]).numpy()
        out.append((arrays, logits[b, :T]))
    return out


def _steps(plan: TracePlan, tokenizer, ids: list[int], n_forced: int, logits: torch.Tensor) -> list[TraceStep]:
    """Each step's chosen token and candidates, under the distribution the token was chosen from."""
    probs = next_token_probs(logits, plan.request)  # (T, V)
    top_p, top_i = probs.topk(min(TOP_CANDIDATES, probs.size(-1)), dim=-1)
    chosen = probs.gather(1, torch.tensor(ids)[:, None])[:, 0].tolist()
    return [
        TraceStep(
            tokenizer.piece(t),
            t,
            chosen[i],
            i < n_forced,
            tokenizer.pieces(top_i[i].tolist()),
            top_i[i].tolist(),
            top_p[i].tolist(),
        )
        for i, t in enumerate(ids)
    ]


def _trace(plan: TracePlan, tokenizer, steps: list[TraceStep], maps: dict, notes, beams) -> DecodeTrace:
    ids = [s.token_id for s in steps]
    finished = "eos" if ids and ids[-1] == EOS_ID else "length"
    if finished == "length" and plan.request.strategy != "beam":
        notes = [
            *notes,
            f"The model did not finish this translation: it stopped at the length limit of {plan.max_new} tokens "
            "(twice the source plus 10) without choosing </s>. A small model repeats itself like this on text far "
            "from what it was trained on, or on very long sentences.",
        ]
    return DecodeTrace(
        plan.request,
        plan.source.pieces,
        plan.source.ids,
        steps,
        maps["encoder_self"],
        maps["decoder_self"],
        maps["cross"],
        maps["decoder_self_scores"],
        [tokenizer.decode(ids[:t]) for t in range(len(ids) + 1)],
        finished,
        notes,
        beams,
    )
