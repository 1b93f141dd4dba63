"""Which cross-attention head predicts word alignment: gold alignments, word<->piece mapping, AER.

Gold files are TSV `source TAB target TAB alignment` with Pharaoh `i-j` pairs over word tokens
(regex `\\w+|[^\\w\\s]`: words and each punctuation mark). For each sentence the target is forced
(teacher forcing) and the cross-attention row of the step that *produces* each target piece is read;
pieces are pooled into words (rows averaged over a word's pieces, columns summed), and every target word
is aligned to its most-attended source word. Alignment error rate (Och & Ney) with sure links only:
AER = 1 - 2|A ∩ S| / (|A| + |S|).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..model.config import BOS_ID
from ..model.tokenizer import WORD_START, Tokenizer, normalize
from ..model.transformer import Transformer
from .attribution import METHODS, NAMES, attribute
from .hooks import record
from .rollout import cross_rollout

WORD = re.compile(r"\w+|[^\w\s]")


@dataclass
class GoldPair:
    source: str
    target: str
    links: set[tuple[int, int]]  # (source word, target word)


def read_gold(path: str | Path) -> list[GoldPair]:
    pairs = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        cols = line.split("\t")
        if n == 0 and cols[0] == "source":
            continue
        if len(cols) != 3:
            raise ValueError(f"{path}:{n + 1}: expected source, target, alignment separated by tabs")
        links = {tuple(int(x) for x in link.split("-")) for link in cols[2].split()}
        pairs.append(GoldPair(normalize(cols[0]), normalize(cols[1]), links))
    return pairs


def words(text: str) -> list[tuple[int, int]]:
    """Character spans of word tokens."""
    return [m.span() for m in WORD.finditer(text)]


def piece_spans(tokenizer: Tokenizer, text: str, ids: list[int]) -> list[tuple[int, int]]:
    """Character span in `text` of each piece id; a piece that adds no character (a lone '▁') gets an empty span."""
    spans, pos = [], 0
    for i in ids:
        core = tokenizer.raw_piece(i).replace(WORD_START, "")
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if not core:
            spans.append((pos, pos))
        elif text.startswith(core, pos):
            spans.append((pos, pos + len(core)))
            pos += len(core)
        else:  # <unk>: cover one character so the rest stays in step
            spans.append((pos, min(pos + 1, len(text))))
            pos = min(pos + 1, len(text))
    return spans


def word_of_piece(word_spans, spans) -> list[int | None]:
    """For each piece span, the index of the word it overlaps most (None for empty spans)."""
    out = []
    for a, b in spans:
        best, overlap = None, 0
        for w, (c, d) in enumerate(word_spans):
            o = min(b, d) - max(a, c)
            if o > overlap:
                best, overlap = w, o
        out.append(best)
    return out


@dataclass
class PieceMaps:
    """One teacher-forced gold pair at the piece level, and how its pieces map to words."""

    source_ids: list[int]  # pieces + EOS
    target_ids: list[int]  # pieces
    source_word: list[int | None]  # word of each source piece (EOS: None)
    target_word: list[int | None]
    n_source_words: int
    n_target_words: int
    encoder_self: torch.Tensor  # (Le, H, S + 1, S + 1)
    cross: torch.Tensor  # (Ld, H, T, S + 1); row j is the query that produces target piece j


@torch.no_grad()
def piece_maps(model: Transformer, tokenizer: Tokenizer, pair: GoldPair) -> PieceMaps:
    """Encode a gold pair, record its attention under teacher forcing, and map its pieces to words."""
    src_ids = tokenizer.encode_source(pair.source)
    tgt_ids = tokenizer.encode_target(pair.target)
    src_word = word_of_piece(words(pair.source), piece_spans(tokenizer, pair.source, src_ids[:-1]))
    tgt_word = word_of_piece(words(pair.target), piece_spans(tokenizer, pair.target, tgt_ids))
    maps, _ = record(model, [src_ids], [[BOS_ID] + tgt_ids], ("encoder_self", "cross"))
    return PieceMaps(
        src_ids, tgt_ids, src_word + [None], tgt_word, len(words(pair.source)), len(words(pair.target)),
        maps.stacked("encoder_self"), maps.stacked("cross"),
    )  # fmt: skip


def pool_words(p: PieceMaps, scores: torch.Tensor) -> torch.Tensor:
    """Piece scores (..., T, S + 1) -> word scores (..., target words, source words): a target word averages its
    pieces' rows, a source word sums its pieces' columns; EOS and pieces of no word drop out."""
    return pool(p.source_word, p.target_word, p.n_source_words, p.n_target_words, scores)


def pool(source_word, target_word, n_source_words: int, n_target_words: int, scores: torch.Tensor) -> torch.Tensor:
    """`pool_words` on the piece-to-word maps themselves (a trace's pieces, or a teacher-forced pair's), as two
    matrix products: target words average their pieces' rows, source words sum their pieces' columns (rows and
    columns beyond the maps', such as a teacher-forced pass's last row, belong to no word)."""
    rows = torch.zeros(n_target_words, scores.shape[-2], dtype=scores.dtype)
    for j, tw in enumerate(target_word[: scores.shape[-2]]):
        if tw is not None:
            rows[tw, j] = 1.0
    rows /= rows.sum(1, keepdim=True).clamp(min=1)
    columns = torch.zeros(scores.shape[-1], n_source_words, dtype=scores.dtype)
    for i, sw in enumerate(source_word[: scores.shape[-1]]):
        if sw is not None:
            columns[i, sw] = 1.0
    return rows @ scores @ columns


def cross_attention_words(model: Transformer, tokenizer: Tokenizer, pair: GoldPair) -> torch.Tensor:
    """Word-level cross-attention (L, H, target words, source words) for one teacher-forced pair."""
    p = piece_maps(model, tokenizer, pair)
    return pool_words(p, p.cross)


def aer(predicted: set, gold: set) -> float:
    return 1.0 - 2 * len(predicted & gold) / max(1, len(predicted) + len(gold))


def score_heads(model: Transformer, tokenizer: Tokenizer, pairs: list[GoldPair]) -> list[dict]:
    """AER of every cross-attention head, every layer's head mean, and the all-layer mean; best first."""
    maps = [cross_attention_words(model, tokenizer, p) for p in pairs]
    L, H = maps[0].shape[:2]
    candidates = {(layer, head): (lambda m, i=layer, h=head: m[i, h]) for layer in range(L) for head in range(H)}
    candidates.update({(layer, "mean"): (lambda m, i=layer: m[i].mean(0)) for layer in range(L)})
    candidates[("all", "mean")] = lambda m: m.mean((0, 1))
    results = [
        {"layer": layer, "head": head} | alignment_scores(pairs, [pick(m) for m in maps])
        for (layer, head), pick in candidates.items()
    ]
    return sorted(results, key=lambda r: (r["aer"], -r["accuracy"]))


def alignment_scores(pairs: list[GoldPair], word_scores: list[torch.Tensor]) -> dict:
    """AER and accuracy of aligning every target word to its highest-scoring source word, over all pairs."""
    predicted_all, gold_all, correct, total = set(), set(), 0, 0
    for n, (pair, w) in enumerate(zip(pairs, word_scores)):  # w: (target words, source words)
        predicted = {(int(w[t].argmax()), t) for t in range(w.size(0)) if w[t].abs().sum() > 0}
        predicted_all |= {(n, s, t) for s, t in predicted}
        gold_all |= {(n, s, t) for s, t in pair.links}
        aligned_targets = {t for _, t in pair.links}
        correct += sum((s, t) in pair.links for s, t in predicted if t in aligned_targets)
        total += len(aligned_targets)
    return {"aer": round(aer(predicted_all, gold_all), 4), "accuracy": round(correct / max(1, total), 4)}


def score_methods(model: Transformer, tokenizer: Tokenizer, pairs: list[GoldPair], best: tuple[int, int]) -> list[dict]:
    """AER of the explanations the viewer offers, each target word aligned to its highest-scoring source word:
    the best single cross-attention head `best` (layer, head), the mean of every cross-attention head, the
    attention rollout (mean over decoder layers), gradient × input and integrated gradients (explorer.interpret.
    attribution, the produced target piece's log-probability attributed to the source pieces)."""
    pieces = [piece_maps(model, tokenizer, p) for p in pairs]
    layer, head = best
    methods = {
        f"attention, best head (layer {layer}, head {head})": lambda p: p.cross[layer, head],
        "attention, mean of all heads": lambda p: p.cross.mean((0, 1)),
        "attention rollout (mean over decoder layers)": lambda p: torch.from_numpy(
            cross_rollout(p.cross.numpy(), p.encoder_self.numpy()).mean(0)
        ),
    }
    for method in METHODS:
        methods[NAMES[method]] = lambda p, m=method: torch.from_numpy(
            np.stack([attribute(model, p.source_ids, p.target_ids, j, m).scores for j in range(len(p.target_ids))])
        )
    return [
        {"method": name} | alignment_scores(pairs, [pool_words(p, f(p).float()) for p in pieces])
        for name, f in methods.items()
    ]


@dataclass(frozen=True)
class TraceAlignment:
    """A gold pair on a trace that wrote its target: its links at the piece level and each head's AER."""

    cells: list[tuple[int, int]]  # (target piece: the row of the step that produced it, source piece)
    aer: list[list[float]]  # [layer][head]: each cross-attention head's AER on this sentence alone
    aer_mean: list[float]  # [layer]: the mean of the layer's heads


def on_trace(
    tokenizer: Tokenizer, pair: GoldPair, source_ids: list[int], target_ids: list[int], cross: np.ndarray
) -> TraceAlignment | None:
    """`pair` on a trace's cross-attention (layers, heads, T, S + 1), or None when the trace wrote another target.

    The trace must have read the pair's source and begun with its target (whatever follows, the end token or more,
    is no gold word); row j of a cross-attention map is the query of the step that produced target piece j, as
    under teacher forcing.
    """
    gold_ids = tokenizer.encode_target(pair.target)
    if list(source_ids) != tokenizer.encode_source(pair.source) or list(target_ids[: len(gold_ids)]) != gold_ids:
        return None
    source_word = word_of_piece(words(pair.source), piece_spans(tokenizer, pair.source, source_ids[:-1])) + [None]
    target_word = word_of_piece(words(pair.target), piece_spans(tokenizer, pair.target, gold_ids))
    target_word += [None] * (len(target_ids) - len(gold_ids))  # the end token (or more) is no gold word
    cells = [
        (j, i)
        for j, tw in enumerate(target_word)
        for i, sw in enumerate(source_word)
        if tw is not None and sw is not None and (sw, tw) in pair.links
    ]
    maps = torch.from_numpy(np.asarray(cross, dtype=np.float32))
    pooled = pool(source_word, target_word, len(words(pair.source)), len(words(pair.target)), maps)

    def score(word_map: torch.Tensor) -> float:
        return alignment_scores([pair], [word_map])["aer"]

    # pooling is linear: the pooled mean of a layer's heads is the mean of its pooled heads
    means = pooled.mean(1)
    return TraceAlignment(cells, [[score(head) for head in layer] for layer in pooled], [score(m) for m in means])
