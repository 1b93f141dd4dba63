"""Evaluation: `python -m explorer.training.evaluate --checkpoint DIR --data FILE.tsv [--beam N] [--json]`.

The TSV holds `source TAB reference [TAB reference ...]`; lines that repeat a source are merged into
one multi-reference segment. Prints sacreBLEU BLEU and chrF with their signatures, and decoding speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import sacrebleu
import torch

from ..interpret.decoding import beam_search, greedy_decode
from ..interpret.request import DEFAULTS
from ..model.checkpoint import CheckpointError, load_checkpoint
from ..model.config import EOS_ID, PAD_ID
from ..model.tokenizer import normalize
from .data import read_rows


def group_references(pairs: Iterable[tuple[str, ...]]) -> list[tuple[str, list[str]]]:
    """(source, reference, [reference...]) rows -> [(source, [references])], first-seen order."""
    groups: dict[str, list[str]] = {}
    for source, *refs in pairs:
        source = normalize(source)
        if not source:
            continue
        bucket = groups.setdefault(source, [])
        bucket += [r for r in (normalize(x) for x in refs) if r and r not in bucket]
    return [(s, refs) for s, refs in groups.items() if refs]


def read_references(path: str | Path) -> list[tuple[str, list[str]]]:
    """A multi-reference TSV test set, grouped by source."""
    return group_references(read_rows(path))


def score_translations(hypotheses: list[str], references: list[list[str]]) -> dict:
    """Corpus BLEU and chrF with signatures; segments may have different numbers of references."""
    width = max((len(r) for r in references), default=1)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    b, c = bleu.corpus_score(hypotheses, streams), chrf.corpus_score(hypotheses, streams)
    return {
        "bleu": round(b.score, 2),
        "chrf": round(c.score, 2),
        "bleu_signature": str(bleu.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
    }


GOOD_CHRF = 60.0  # a sentence's chrF from which it reads as a usable translation (the lecture model's target)


def share_good(hypotheses: list[str], references: list[list[str]], threshold: float = GOOD_CHRF) -> float:
    """The share of sentences whose own chrF against their references is at least `threshold`."""
    chrf = sacrebleu.metrics.CHRF()
    good = sum(chrf.sentence_score(h, refs).score >= threshold for h, refs in zip(hypotheses, references))
    return round(good / max(1, len(hypotheses)), 4)


ALPHA = DEFAULTS["alpha"]  # the length penalty of beam search, as in the app
LENGTH_BUCKETS = ((1, 5), (6, 10), (11, 15), (16, None))  # source words


def scores_by_length(sources: list[str], hypotheses: list[str], references: list[list[str]]) -> list[dict]:
    """BLEU and chrF per source-length bucket (whitespace words): where a model's quality falls off."""
    rows = []
    for low, high in LENGTH_BUCKETS:
        idx = [i for i, s in enumerate(sources) if low <= len(s.split()) and (high is None or len(s.split()) <= high)]
        if not idx:
            continue
        scores = score_translations([hypotheses[i] for i in idx], [references[i] for i in idx])
        label = f"{low}-{high}" if high is not None else f"{low}+"
        rows.append({"words": label, "segments": len(idx), "bleu": scores["bleu"], "chrf": scores["chrf"]})
    return rows


@torch.no_grad()
def translate(model, tokenizer, sources: list[str], beam: int = 1, alpha: float = ALPHA, batch_size: int = 64):
    """Translate sentences; returns (hypotheses, output tokens, seconds)."""
    encoded = [tokenizer.encode_source(s, model.config.max_len) for s in sources]
    outputs: list[list[int]] = [[] for _ in sources]
    start = time.perf_counter()
    if beam == 1:
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))  # similar lengths batch well
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            for i, ids in zip(idx, greedy_decode(model, [encoded[i] for i in idx])):
                outputs[i] = ids[: ids.index(PAD_ID)] if PAD_ID in ids else ids  # a padding token ends it too
    else:
        for i, ids in enumerate(encoded):
            best = beam_search(model, ids, beam_size=beam, alpha=alpha)[0]
            outputs[i] = best.ids + ([EOS_ID] if best.finished else [])
    seconds = time.perf_counter() - start
    tokens = sum(map(len, outputs))  # EOS included where one was chosen
    return [tokenizer.decode(o) for o in outputs], tokens, seconds


def evaluate(
    checkpoint: str | Path, data: str | Path, beam: int = 1, alpha: float = ALPHA, limit: int = 0, examples: int = 10
) -> dict:
    """Decode a test set with a checkpoint and score it; the first `examples` translations come with the scores."""
    ckpt = load_checkpoint(checkpoint)
    groups = read_references(data)
    if limit:
        groups = groups[:limit]
    if not groups:
        raise ValueError(f"{data} has no `source TAB reference` lines")
    sources, references = [s for s, _ in groups], [refs for _, refs in groups]
    hyps, tokens, seconds = translate(ckpt.model, ckpt.tokenizer, sources, beam, alpha)
    result = score_translations(hyps, references)
    result.update(
        good_share=share_good(hyps, references),
        sentences=len(groups),
        references=sum(len(r) for _, r in groups),
        beam=beam,
        tokens_per_s=round(tokens / seconds, 1),
        seconds=round(seconds, 2),
        threads=torch.get_num_threads(),
        by_length=scores_by_length(sources, hyps, references),
    )
    pairs = list(zip(groups, hyps))[:examples]
    result["examples"] = [{"source": s, "hypothesis": h, "references": r} for (s, r), h in pairs]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.training.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--data", required=True, help="TSV: source TAB reference [TAB reference ...]")
    parser.add_argument("--beam", type=int, default=1, help="beam size (1 = greedy)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help="length penalty exponent for beam search")
    parser.add_argument("--limit", type=int, default=0, help="only the first N segments")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        result = evaluate(args.checkpoint, args.data, args.beam, args.alpha, args.limit)
    except (CheckpointError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"BLEU {result['bleu']:.2f}  {result['bleu_signature']}")
        print(f"chrF {result['chrf']:.2f}  {result['chrf_signature']}")
        print(
            f"{result['sentences']} segments ({result['references']} references), beam {args.beam}, "
            f"{result['tokens_per_s']:.0f} tokens/s on {result['threads']} threads"
        )
        for row in result["by_length"]:
            print(
                f"  {row['words']:>5} source words: {row['segments']:5d} segments, BLEU {row['bleu']:.2f}, chrF "
                f"{row['chrf']:.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
