"""Where the lecture model's German comes from, by ALTI+: the source share of content words, function words and word
endings on the lecture dev set, the drop on a forced wrong prefix, and what the question costs beside a trace.

    python -m bench.source_share [--checkpoint DIR] [--sentences 917] [--json OUT]

For every sentence of `bench/data/lecture_dev_en_de.tsv` (written for this project, never trained on), the model's
greedy translation and its ALTI+ contributions (`explorer.interpret.alti.source_prefix`, one teacher-forced pass).
Each generated piece is put in one class:
- a word ending: a piece that continues a word ("·en", "·st");
- a function word: a word's first piece whose whole word is in `FUNCTION_WORDS` below (German articles, pronouns,
  prepositions, conjunctions, auxiliary and modal verbs, common particles: a closed-class list written for this bench);
- punctuation; the end token `</s>`;
- a content word: any other word's first piece.
Reported per class: the mean source share and how many pieces. Then the known result of Ferrando et al. (2022) and
stopes' documentation (a hallucination takes less from the source): each sentence decoded again after a forced wrong
prefix (the first three words of the next sentence's translation), and the mean source share of the pieces the model
writes after it, against the same sentence's own translation at the same positions. Then the server time of the
question (`source_prefix` on a trace) beside the trace's own (a cold trace, `bench.common.cold_trace`), on the
Translate tab's examples, one torch thread.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from bench import common
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import EXAMPLES
from explorer.interpret.alti import source_prefix
from explorer.interpret.decoding import greedy_decode
from explorer.interpret.handle import load_handle
from explorer.interpret.head_roles import is_punctuation
from explorer.model.config import EOS_ID
from explorer.model.tokenizer import WORD_START
from explorer.training.data import read_tsv

DEV = Path(__file__).parent / "data" / "lecture_dev_en_de.tsv"
FUNCTION_WORDS = set(
    """der die das den dem des ein eine einen einem einer eines kein keine keinen keinem keiner keines
    ich du er sie es wir ihr mich dich sich uns euch mir dir ihm ihn ihnen man
    mein meine meinen meinem meiner dein deine sein seine seinen seinem seiner ihre ihren ihrem ihrer unser unsere
    dieser diese dieses diesen diesem jeder jede jedes jeden jedem welcher welche welches
    in im an am auf aus bei beim mit nach von vom zu zum zur über unter vor hinter neben zwischen durch für gegen
    ohne um bis seit während wegen
    und oder aber denn sondern dass weil wenn als ob obwohl damit bevor nachdem wie wo was wer
    ist sind war waren bin bist hat haben habe hast hatte hatten wird werden wurde wurden worden sein
    kann können konnte muss müssen musste soll sollen sollte will wollen wollte darf dürfen mag möchte
    nicht auch noch schon nur sehr so zu es hier dort da dann jetzt immer""".split()
)


def classes(tokenizer, ids: list[int]) -> list[str]:
    """Each generated piece's class (see the module's docstring)."""
    out = []
    for n, i in enumerate(ids):
        if i == EOS_ID:
            out.append("</s>")
            continue
        raw = tokenizer.raw_piece(i)
        if is_punctuation(raw):
            out.append("punctuation")
        elif not raw.startswith(WORD_START) and n > 0:
            out.append("word ending")
        else:  # a word's first piece: the whole word is it and the endings after it
            word = raw.replace(WORD_START, "")
            for j in ids[n + 1 :]:
                nxt = tokenizer.raw_piece(j) if j != EOS_ID else WORD_START
                if nxt.startswith(WORD_START) or is_punctuation(nxt):
                    break
                word += nxt
            out.append("function word" if word.lower() in FUNCTION_WORDS else "content word")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.source_share", description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--sentences", type=int, default=917)
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    handle = load_handle(args.checkpoint)
    tok, model = handle.tokenizer, handle.model
    pairs = read_tsv(DEV)[: args.sentences]
    sources = [tok.encode_source(en, model.config.max_len) for en, _ in pairs]
    targets = []
    for start in range(0, len(sources), 32):
        targets += greedy_decode(model, sources[start : start + 32])
    shares: dict[str, list[float]] = defaultdict(list)
    for source, target in zip(sources, targets):
        found = source_prefix(model, source, target)
        for cls, share in zip(classes(tok, target), found.source_share):
            shares[cls].append(float(share))
    print(f"Source share of each generated piece, {len(pairs)} lecture dev sentences, {Path(args.checkpoint).name}\n")
    print("| piece | pieces | mean source share | median |")
    print("|---|---|---|---|")
    results = {"classes": {}}
    for cls in ("content word", "function word", "word ending", "punctuation", "</s>"):
        values = shares[cls]
        if values:
            mean, median = statistics.fmean(values), statistics.median(values)
            results["classes"][cls] = {"pieces": len(values), "mean": mean, "median": median}
            print(f"| {cls} | {len(values):,} | {mean:.3f} | {median:.3f} |")

    # a forced wrong prefix: the next sentence's first three words, then what the model writes after it
    forced_shares, own_shares = [], []
    for n, (source, target) in enumerate(zip(sources, targets)):
        other = tok.encode_target(" ".join(tok.decode(targets[(n + 1) % len(targets)]).split()[:3]))
        if not other or len(other) >= len(target) - 1:
            continue
        continued = greedy_decode(model, [source], forced=[other])[0]
        wrong = source_prefix(model, source, continued).source_share[len(other) :]
        own = source_prefix(model, source, target).source_share[len(other) :]
        k = min(len(wrong), len(own))
        forced_shares += [float(x) for x in wrong[:k]]
        own_shares += [float(x) for x in own[:k]]
    results["forced"] = {
        "pieces": len(forced_shares),
        "forced": statistics.fmean(forced_shares),
        "own": statistics.fmean(own_shares),
    }
    print(
        f"\nAfter a forced wrong prefix (the next sentence's first three words): mean source share "
        f"{results['forced']['forced']:.3f} over {len(forced_shares):,} pieces, against "
        f"{results['forced']['own']:.3f} at the same positions of the model's own translation"
    )

    from explorer.app.schemas import trace_request

    trace_ms, alti_ms = [], []
    for sentence, _ in EXAMPLES:
        for _ in range(4):
            t0 = time.perf_counter()
            common.cold_trace(handle, trace_request(sentence))
            trace_ms.append((time.perf_counter() - t0) * 1000)
            source = tok.encode_source(sentence)
            target = greedy_decode(model, [source])[0]
            t0 = time.perf_counter()
            source_prefix(model, source, target)
            alti_ms.append((time.perf_counter() - t0) * 1000)
    results["ms"] = {"trace": statistics.median(trace_ms), "contributions": statistics.median(alti_ms)}
    print(
        f"\nServer time on the Translate tab's examples (median of {len(trace_ms)}, one thread): a cold trace "
        f"{results['ms']['trace']:.1f} ms, the contributions question {results['ms']['contributions']:.1f} ms"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
