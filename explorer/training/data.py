"""Parallel corpora: readers (TSV, aligned files, Hugging Face datasets), cleaning, split, token batches."""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import torch

from ..model.config import BOS_ID, EOS_ID
from ..model.tokenizer import Tokenizer, normalize
from ..model.transformer import pad_batch

Pair = tuple[str, str]  # (source, target)
MINI_CORPUS = Path(__file__).parent / "corpus" / "mini_en_de.tsv"
LECTURE_CORPUS = Path(__file__).parent / "corpus" / "lecture"  # written for this project (its README.md)


def read_rows(path: str | Path) -> list[tuple[str, ...]]:
    """Every line with at least one tab, split at the tabs: `source TAB target [TAB more...]`."""
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) >= 2:
                rows.append(tuple(cols))
    return rows


def read_tsv(path: str | Path) -> list[Pair]:
    """Lines `source TAB target [TAB anything...]`; extra columns are ignored, lines without a tab skipped."""
    return [(row[0], row[1]) for row in read_rows(path)]


def read_parallel(source_path: str | Path, target_path: str | Path) -> list[Pair]:
    """Two plain-text files with one sentence per line, aligned by line number."""
    src = Path(source_path).read_text(encoding="utf-8", errors="replace").splitlines()
    tgt = Path(target_path).read_text(encoding="utf-8", errors="replace").splitlines()
    if len(src) != len(tgt):
        raise ValueError(f"{source_path} has {len(src)} lines but {target_path} has {len(tgt)}")
    return list(zip(src, tgt))


def read_hf(
    name: str = "opus100",
    config: str | None = "de-en",
    split: str = "train",
    source_lang: str = "en",
    target_lang: str = "de",
) -> list[Pair]:
    """A Hugging Face dataset of {"translation": {lang: text}} rows, e.g. `opus100` de-en.

    `name` may be a hub id (downloaded by `datasets`) or a local directory written by
    `Dataset.save_to_disk` / `DatasetDict.save_to_disk`.
    """
    import datasets  # imported here: only this reader needs it

    if Path(name).is_dir():
        loaded = datasets.load_from_disk(name)
        dataset = loaded[split] if isinstance(loaded, datasets.DatasetDict) else loaded
    else:
        dataset = datasets.load_dataset(name, config, split=split)
    if "translation" not in dataset.column_names:
        raise ValueError(f"dataset {name} has columns {dataset.column_names}, expected 'translation'")
    return [(row[source_lang], row[target_lang]) for row in dataset["translation"]]


def read_corpus(spec: str) -> list[Pair]:
    """One corpus from a command-line spec: `file.tsv`, `DIR` (its *.tsv files), `src.txt,tgt.txt`, `hf:...`, `mini`."""
    if spec == "mini":
        return read_tsv(MINI_CORPUS)
    if Path(spec).is_dir():  # a corpus kept as several files, e.g. one per topic (corpus/lecture/)
        files = sorted(Path(spec).glob("*.tsv"))
        if not files:
            raise ValueError(f"corpus folder {spec} holds no .tsv file")
        return [pair for file in files for pair in read_tsv(file)]
    if spec.startswith("hf:"):
        parts = spec[3:].split(":")
        return read_hf(
            parts[0], parts[1] if len(parts) > 1 and parts[1] else None, parts[2] if len(parts) > 2 else "train"
        )
    if "," in spec:
        src, tgt = spec.split(",", 1)
        return read_parallel(src, tgt)
    return read_tsv(spec)


def clean(pairs: Iterable[Pair], max_chars: int = 300) -> list[Pair]:
    """Normalize both sides, drop empty or over-long pairs and exact duplicates (first kept)."""
    seen, out = set(), []
    for src, tgt in pairs:
        src, tgt = normalize(src), normalize(tgt)
        if not src or not tgt or len(src) > max_chars or len(tgt) > max_chars:
            continue
        if (src, tgt) not in seen:
            seen.add((src, tgt))
            out.append((src, tgt))
    return out


def fold(text: str) -> str:
    """A sentence reduced to its lowercased words: what "the same sentence" means for keeping test data out."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def held_out_filter(sentences: Iterable[str], min_words: int = 4):
    """A predicate that is true for a source that is, or contains, one of `sentences` (their near-copies).

    Sentences are compared folded (case, punctuation and spacing ignored); a training source that contains
    a held-out sentence of at least `min_words` words as a run of whole words is held out too. The runs are
    looked up in a set, one per held-out length (a regex of thousands of alternatives took minutes over a mix).
    """
    folded = {fold(s) for s in sentences} - {""}
    long = {f for f in folded if len(f.split()) >= min_words}
    lengths = sorted({len(f.split()) for f in long})

    def held_out(source: str) -> bool:
        text = fold(source)
        if text in folded:
            return True
        words = text.split()
        return any(
            " ".join(words[i : i + n]) in long for n in lengths if n <= len(words) for i in range(len(words) - n + 1)
        )

    return held_out


def weighted_epoch(sizes: Sequence[int], weights: Sequence[float], seed: int) -> list[int]:
    """One epoch's example indices over corpora laid end to end, each corpus taken `weight` times.

    A weight of 2.5 gives every example of that corpus twice and a random half of them a third time,
    drawn anew for each seed (each epoch), so a low weight such as 0.1 still reaches every example over
    the epochs.
    """
    if len(sizes) != len(weights):
        raise ValueError(f"{len(weights)} weights for {len(sizes)} corpora")
    rng = random.Random(seed)
    indices, start = [], 0
    for size, weight in zip(sizes, weights):
        whole, part = int(math.floor(weight)), weight - math.floor(weight)
        corpus = range(start, start + size)
        indices += list(corpus) * whole + rng.sample(corpus, round(part * size))
        start += size
    return indices


def split_by_source(pairs: Sequence[Pair], valid_fraction: float, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """Deterministic train/valid split; all translations of one source land on the same side."""
    train, valid = [], []
    for pair in pairs:
        digest = hashlib.sha256(f"{seed}\t{pair[0]}".encode()).digest()
        (valid if int.from_bytes(digest[:8], "big") / 2**64 < valid_fraction else train).append(pair)
    return train, valid


Example = tuple[list[int], list[int]]  # (source ids + EOS, BOS + target ids + EOS)


def encode_pairs(tokenizer: Tokenizer, pairs: Iterable[Pair], max_len: int) -> list[Example]:
    """Token ids for each pair; pairs with a side longer than max_len tokens are dropped."""
    out = []
    for src, tgt in pairs:
        s = tokenizer.encode_source(src)
        t = [BOS_ID] + tokenizer.encode_target(tgt) + [EOS_ID]
        if len(s) <= max_len and len(t) <= max_len:
            out.append((s, t))
    return out


def token_batches(
    examples: Sequence[Example], max_tokens: int, seed: int | None = None, indices: Sequence[int] | None = None
) -> list[list[int]]:
    """Index batches of similar length whose padded size stays under max_tokens.

    Examples (those at `indices`, repeats allowed, or all) are sorted by (target, source) length so
    little padding is wasted; with a seed, ties are broken randomly and the batch order is shuffled
    (a new seed per epoch gives a new order).
    """
    rng = random.Random(seed)
    chosen = range(len(examples)) if indices is None else indices
    keys = [(len(examples[i][1]), len(examples[i][0]), rng.random() if seed is not None else 0.0) for i in chosen]
    order = [chosen[j] for j in sorted(range(len(chosen)), key=keys.__getitem__)]
    batches, batch, longest = [], [], 0
    for i in order:
        size = max(len(examples[i][0]), len(examples[i][1]))
        if batch and max(longest, size) * (len(batch) + 1) > max_tokens:
            batches.append(batch)
            batch, longest = [], 0
        batch.append(i)
        longest = max(longest, size)
    if batch:
        batches.append(batch)
    if seed is not None:
        rng.shuffle(batches)
    return batches


def collate(examples: Sequence[Example]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Padded (src (B, S), tgt_in (B, T), tgt_out (B, T)); tgt_out is tgt_in shifted left by one."""
    src = pad_batch([s for s, _ in examples])
    tgt_in = pad_batch([t[:-1] for _, t in examples])
    tgt_out = pad_batch([t[1:] for _, t in examples])
    return src, tgt_in, tgt_out
