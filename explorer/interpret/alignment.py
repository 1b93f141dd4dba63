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

import torch

from ..model.config import BOS_ID
from ..model.tokenizer import WORD_START, Tokenizer, normalize
from ..model.transformer import Transformer
from .hooks import record

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
        core = tokenizer.sp.id_to_piece(int(i)).replace(WORD_START, "")
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


@torch.no_grad()
def cross_attention_words(model: Transformer, tokenizer: Tokenizer, pair: GoldPair) -> torch.Tensor:
    """Word-level cross-attention (L, H, target words, source words) for one teacher-forced pair."""
    src_ids = tokenizer.encode_source(pair.source)
    tgt_ids = tokenizer.encode(pair.target)
    src_word = word_of_piece(words(pair.source), piece_spans(tokenizer, pair.source, src_ids[:-1]))  # EOS: no word
    tgt_word = word_of_piece(words(pair.target), piece_spans(tokenizer, pair.target, tgt_ids))
    maps, _ = record(model, [src_ids], [[BOS_ID] + tgt_ids], ("cross",))
    cross = maps.stacked("cross")  # (L, H, T, S + 1); row j produces target piece j
    n_src, n_tgt = len(words(pair.source)), len(words(pair.target))
    L, H = cross.shape[:2]
    out = torch.zeros(L, H, n_tgt, n_src)
    counts = torch.zeros(n_tgt)
    for j, tw in enumerate(tgt_word):
        if tw is None:
            continue
        counts[tw] += 1
        for i, sw in enumerate(src_word):
            if sw is not None:
                out[:, :, tw, sw] += cross[:, :, j, i]
    return out / counts.clamp(min=1)[None, None, :, None]


def aer(predicted: set, gold: set) -> float:
    return 1.0 - 2 * len(predicted & gold) / max(1, len(predicted) + len(gold))


def score_heads(model: Transformer, tokenizer: Tokenizer, pairs: list[GoldPair]) -> list[dict]:
    """AER of every cross-attention head, every layer's head mean, and the all-layer mean; best first."""
    maps = [cross_attention_words(model, tokenizer, p) for p in pairs]
    L, H = maps[0].shape[:2]
    candidates = {(layer, head): (lambda m, i=layer, h=head: m[i, h]) for layer in range(L) for head in range(H)}
    candidates.update({(layer, "mean"): (lambda m, i=layer: m[i].mean(0)) for layer in range(L)})
    candidates[("all", "mean")] = lambda m: m.mean((0, 1))
    results = []
    for (layer, head), pick in candidates.items():
        predicted_all, gold_all, correct, total = set(), set(), 0, 0
        for n, (pair, m) in enumerate(zip(pairs, maps)):
            w = pick(m)  # (target words, source words)
            predicted = {(int(w[t].argmax()), t) for t in range(w.size(0)) if w[t].sum() > 0}
            predicted_all |= {(n, s, t) for s, t in predicted}
            gold_all |= {(n, s, t) for s, t in pair.links}
            aligned_targets = {t for _, t in pair.links}
            correct += sum((s, t) in pair.links for s, t in predicted if t in aligned_targets)
            total += len(aligned_targets)
        results.append(
            {
                "layer": layer,
                "head": head,
                "aer": round(aer(predicted_all, gold_all), 4),
                "accuracy": round(correct / max(1, total), 4),
            }
        )
    return sorted(results, key=lambda r: (r["aer"], -r["accuracy"]))
