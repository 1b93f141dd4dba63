"""What each head does: a role label for every attention head, from its attention on a fixed probe set of sentences.

Each role is a score measured over the probe set (the same whatever sentence is on screen) and a rule; a head takes
the role whose score passes its rule by the widest margin, or none ("unlabelled": the data does not support a role).

    previous / self / next token   the share of its attention mass on the key one before, at, or one after the query
                                   (TransformerLens's head detector, "mul" score, over the rows that have that key);
                                   rule: at least 0.5
    positional                     Voita et al. (2019): its argmax lands on one relative position at least 90% of the
                                   time (of the rows that have a key there); at −1, 0 or +1 it is named previous,
                                   self or next token
    rare word                      Voita et al.: its argmax lands on the rarest piece of the sentence (the lowest
                                   SentencePiece score, which training-corpus frequency set) in at least half the rows
    end-of-sentence sink           Clark et al. (2019): at least half its mass on </s> (in the decoder's own prefix,
                                   on <s>)
    punctuation                    Clark et al.: at least half its mass on punctuation
    broad                          its mean attention entropy at least 0.85 of log(number of keys): it averages
    alignment (cross-attention)    its alignment error rate against the hand alignments at most 0.3 (English →
                                   German models, whose sentences are aligned by hand); with its diagonal score, the
                                   mass within one position of the diagonal

Rows with a single key to see (the decoder's first query sees only <s>) are left out of every score: they say nothing
about the head. `probe_maps` runs the probe (teacher-forced, on the model's greedy translations); `roles` and `label`
are pure functions of the maps, so a test can hand them attention built by hand.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import torch

from ..model.config import ATTENTION_KINDS, BOS_ID, EOS_ID, PAD_ID, UNK_ID
from ..model.transformer import Transformer
from .decoding import greedy_decode
from .hooks import record

SPECIAL = (PAD_ID, UNK_ID, BOS_ID, EOS_ID)


@dataclass(frozen=True)
class Rule:
    """A role's rule: `name` when `score` passes `threshold` (at most it, for a score where lower is better)."""

    name: str
    threshold: float
    says: str  # how the score reads: "{score:.2f} of the mass on the word before"
    lower_is_better: bool = False

    def margin(self, score: float) -> float:
        """How far past its rule a score is (above 1: the rule holds)."""
        if self.lower_is_better:
            return self.threshold / max(score, 1e-9)
        return score / self.threshold


RULES = {
    "previous": Rule("previous token", 0.5, "{score:.2f} of the mass on the token before"),
    "self": Rule("self", 0.5, "{score:.2f} of the mass on its own token"),
    "next": Rule("next token", 0.5, "{score:.2f} of the mass on the token after"),
    "positional": Rule("positional", 0.9, "the argmax at offset {offset:+d} in {score:.2f} of the rows that have one"),
    "rare": Rule("rare word", 0.5, "the argmax on the sentence's rarest piece in {score:.2f} of the rows"),
    "sink": Rule("end-of-sentence sink", 0.5, "{score:.2f} of the mass on {sink}"),
    "punctuation": Rule("punctuation", 0.5, "{score:.2f} of the mass on punctuation"),
    "broad": Rule("broad", 0.85, "mean entropy {score:.2f} of log(keys): it averages over the sentence"),
    "alignment": Rule(
        "alignment", 0.3, "alignment error rate {score:.2f} against the hand alignment", lower_is_better=True
    ),
}


NEIGHBOURS = {-1: "previous", 0: "self", 1: "next"}  # offsets the positional test may find, by their own role


@dataclass
class ProbeSentence:
    """One probe sentence's attention, teacher-forced on the model's translation: kind -> (L, H, Q, K)."""

    maps: dict[str, np.ndarray]
    keys: dict[str, list[int]]  # kind -> the key ids (the source, or the decoder inputs)


@dataclass
class HeadRole:
    """One head's role (None: unlabelled), the rule's words with its score, and every score measured."""

    kind: str
    layer: int
    head: int
    role: str | None
    says: str
    scores: dict[str, float] = field(default_factory=dict)


def is_punctuation(piece: str) -> bool:
    text = piece.replace("\u2581", "")
    return bool(text) and all(unicodedata.category(c).startswith("P") for c in text)


@torch.no_grad()
def probe_maps(model: Transformer, tokenizer, sentences: list[str], batch: int = 32) -> list[ProbeSentence]:
    """Every probe sentence's attention maps, teacher-forced on the model's greedy translation, in batches."""
    out = []
    for start in range(0, len(sentences), batch):
        sources = [tokenizer.encode_source(s, model.config.max_len) for s in sentences[start : start + batch]]
        targets = greedy_decode(model, sources)
        maps, _ = record(model, sources, [[BOS_ID] + t[:-1] for t in targets])
        for b, (source, target) in enumerate(zip(sources, targets)):
            inputs = [BOS_ID] + target[:-1]
            S, T = len(source), len(inputs)
            out.append(
                ProbeSentence(
                    maps={
                        "encoder_self": maps.stacked("encoder_self", b)[:, :, :S, :S].float().cpu().numpy(),
                        "decoder_self": maps.stacked("decoder_self", b)[:, :, :T, :T].float().cpu().numpy(),
                        "cross": maps.stacked("cross", b)[:, :, :T, :S].float().cpu().numpy(),
                    },
                    keys={"encoder_self": source, "decoder_self": inputs, "cross": source},
                )
            )
    return out


@dataclass(frozen=True)
class Keys:
    """What the roles read of one probe sentence's keys, found once for every head: the sink's position (None: the
    sentence has no </s>), the punctuation's, and the rarest word piece's (None: fewer than two word pieces)."""

    sink: int | None
    punctuation: list[int]
    rarest: int | None

    @classmethod
    def of(cls, kind: str, ids: list[int], piece, rarity) -> Keys:
        sink = 0 if kind == "decoder_self" else (ids.index(EOS_ID) if EOS_ID in ids else None)  # <s>, or </s>
        punctuation = [j for j, i in enumerate(ids) if i not in SPECIAL and is_punctuation(piece(i))]
        words = [j for j, i in enumerate(ids) if i not in SPECIAL and j not in punctuation]
        rarest = min(words, key=lambda j: rarity(ids[j])) if len(words) >= 2 else None
        return cls(sink, punctuation, rarest)


def _scores(kind: str, rows: list[np.ndarray], keys: list[Keys]) -> dict[str, float]:
    """Every role's score of one head from its map on each probe sentence (`rows[n]`: (Q, K))."""
    sums = Counter()
    counts = Counter()
    offsets = Counter()  # how often the argmax lands at each offset from the query
    reach = Counter()  # how many rows have a key at that offset
    n_rows = 0
    for A, found in zip(rows, keys):
        rows_, keys_ = A.shape
        # the keys each row may see: the look-ahead mask lets decoder position q see 0..q, the others see them all
        visible = np.minimum(np.arange(1, rows_ + 1), keys_) if kind == "decoder_self" else np.full(rows_, keys_)
        chooses = visible >= 2  # a row with one key to see (the decoder's first) says nothing about the head
        A = A[chooses]
        q = np.arange(len(visible))[chooses]  # each kept row's query position
        Q, K = A.shape
        if Q == 0:
            continue
        if kind != "cross":
            for name, shift in (("previous", -1), ("self", 0), ("next", 1)):
                if kind == "decoder_self" and shift > 0:
                    continue  # the look-ahead mask: never a key after the query
                ok = (q + shift >= 0) & (q + shift < K)
                sums[name] += A[np.arange(Q)[ok], q[ok] + shift].sum()
                counts[name] += ok.sum()
            offsets.update((A.argmax(-1) - q).tolist())
            last = 0 if kind == "decoder_self" else K - 1  # the furthest offset a row may look ahead
            reach.update({o: int(((q + o >= 0) & (q + o < K)).sum()) for o in range(-(K - 1), last + 1)})
            n_rows += Q
        if found.sink is not None:
            sums["sink"] += A[:, found.sink].sum()
            counts["sink"] += Q
        sums["punctuation"] += A[:, found.punctuation].sum() if found.punctuation else 0.0
        counts["punctuation"] += Q
        if found.rarest is not None:
            sees = visible[chooses] > found.rarest  # the rows the mask lets see it
            sums["rare"] += (A[sees].argmax(-1) == found.rarest).sum()
            counts["rare"] += sees.sum()
        entropy = -(A * np.log(np.clip(A, 1e-12, None))).sum(-1) / np.log(visible[chooses])
        sums["broad"] += entropy.sum()
        counts["broad"] += Q
        if kind == "cross" and Q > 1 and K > 1:
            diagonal = np.rint(q * (K - 1) / (Q - 1)).astype(int)
            near = np.abs(np.arange(K)[None, :] - diagonal[:, None]) <= 1
            sums["diagonal"] += (A * near).sum()
            counts["diagonal"] += Q
    scores = {name: float(sums[name] / counts[name]) for name in sums if counts[name]}
    # Voita's positional head: the share of the rows that have a key at that offset (at least half of all rows do)
    shares = {o: n / reach[o] for o, n in offsets.items() if reach[o] >= n_rows / 2}
    if shares:
        offset = max(shares, key=shares.get)
        scores["positional"], scores["positional_offset"] = shares[offset], float(offset)
    return scores


def roles(
    probe: list[ProbeSentence], piece, rarity, n_layers: dict[str, int], n_heads: int, aer: dict | None = None
) -> list[HeadRole]:
    """Every head's role from the probe's maps. `piece(id)` and `rarity(id)` (lower: rarer) read the vocabulary;
    `aer[(layer, head)]`, a cross-attention head's alignment error rate where hand alignments exist."""
    out = []
    for kind in ATTENTION_KINDS:
        keys = [Keys.of(kind, p.keys[kind], piece, rarity) for p in probe]  # the same for every head of the kind
        for layer in range(n_layers[kind]):
            for head in range(n_heads):
                scores = _scores(kind, [p.maps[kind][layer, head] for p in probe], keys)
                if kind == "cross" and aer and (layer, head) in aer:
                    scores["alignment"] = float(aer[(layer, head)])
                out.append(label(kind, layer, head, scores))
    return out


def label(kind: str, layer: int, head: int, scores: dict[str, float]) -> HeadRole:
    """The role whose rule the scores pass by the widest margin, with its words; or unlabelled."""
    passing = [(RULES[name].margin(score), name) for name, score in scores.items() if name in RULES]
    passing = [(m, name) for m, name in passing if m >= 1]
    if not passing:
        return HeadRole(kind, layer, head, None, "unlabelled: no role's rule holds on the probe set", scores)
    _, name = max(passing)
    rule, score = RULES[name], scores[name]
    sink = "<s>" if kind == "decoder_self" else "</s>"
    offset = int(scores.get("positional_offset", 0))
    if name == "positional" and offset in NEIGHBOURS:  # Voita's test at the token before, at or after: its name
        role = RULES[NEIGHBOURS[offset]].name
        return HeadRole(kind, layer, head, role, f"{role}: the argmax there in {score:.2f} of the rows", scores)
    says = f"{rule.name}: " + rule.says.format(score=score, offset=offset, sink=sink)
    return HeadRole(kind, layer, head, rule.name, says, scores)
