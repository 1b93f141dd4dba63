"""What a user of opus-mt-en-de waits for, beside the shipped lecture model, in one run on this machine.

    python -m bench.marian_size [--work /var/tmp/ae-marian-bench] [--repeat 5] [--json OUT]

Weights do not change speed, so a random MarianMTModel with opus-mt-en-de's exact config (6+6 layers, d_model 512,
8 heads, feed-forward 2048, swish, 58,101 pieces: `bench.random_marian.OPUS_MT_EN_DE`) times what the real one costs.
It is built once with `transformers` into `--work` (its SentencePiece models trained there on Tatoeba's English and
German, 8,000 pieces each, so that a sentence has about as many pieces as opus-mt makes of it), then served as a Marian
folder: `python app.py --checkpoint FOLDER` converts it on load.

For each model, taking turns:
- start: `python app.py` until it answers HTTP 200 (seconds), and its resident memory then (MB, /proc);
- in-process on one torch thread (the server's default), the median of `--repeat` cold traces (a new cache each time)
  of the opening example, a 12-word and a 25-word sentence;
- Heads that matter on the opening example: the one-pass estimate and the exact ablation, as the server computes them.
A random model does not stop where a translation would: it writes until the length limit (2 x the source + 10). So
the random model's traces and questions are timed on a translation as long as the shipped model's of the same
sentence (its pieces forced, then </s>: the same decoder steps a real translation of that length takes), and once as
it decodes by itself, for the record.
The class of 30 opening the page is `python -m bench.class_open --students 30 --checkpoint FOLDER`, and the projector
at 1366x768 is `python -m bench.projector_fit --checkpoint FOLDER`; RESULTS.md gives their figures beside these.
`--shot DIR` also keeps the 6 x 8 All heads view at 1366x768 in presentation mode (the opening example with its German
forced, so that the rows read as a translation's) as DIR/opus-mt-size-all-heads-1366x768.png, and skips the timings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from bench import common
from bench.app_latency import free_port, start_app, stop_app
from bench.random_marian import OPUS_MT_EN_DE, build
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import OPENING_EXAMPLE

TATOEBA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba-en-de" / "train.tsv"
SENTENCES = {
    "opening example": OPENING_EXAMPLE,
    "12 words": "My grandmother told me a long story about the old village last night.",
    "25 words": "When I was young, my grandmother told me many long stories about the old village by the river, and I "
    "still remember every one of them today.",
}


def opus_sized(work: Path) -> Path:
    """The random opus-mt-en-de-sized Marian folder, built once."""
    folder = work / "opus-mt-en-de-random"
    if (folder / "model.safetensors").is_file():
        return folder
    english, german = [], []
    if TATOEBA.is_file():
        for line in TATOEBA.read_text(encoding="utf-8").splitlines()[:200_000]:
            cols = line.split("\t")
            if len(cols) >= 2:
                english.append(cols[0])
                german.append(cols[1])
        size = 8000
    else:  # a fresh clone without the shared data: the mini corpus, fewer pieces
        from explorer.training.data import MINI_CORPUS, clean, read_tsv

        pairs = clean(read_tsv(MINI_CORPUS))
        english, german, size = [p[0] for p in pairs], [p[1] for p in pairs], 500
    return build(folder, english, german, spm_size=size, init_std=0.02, **OPUS_MT_EN_DE)


UNFORCED = "the same, decoding by itself (to the length limit)"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start(checkpoint: str) -> dict:
    proc, seconds = start_app(checkpoint, free_port())
    try:
        return {"start_s": seconds, "rss_mb": rss_mb(proc.pid)}
    finally:
        stop_app(proc)


def in_process(checkpoint: str, repeat: int, lengths: dict[str, int] | None = None) -> dict:
    """Cold traces and the heads question on one torch thread; with `lengths`, each sentence's translation is forced
    to that many pieces (the last </s>)."""
    import torch

    from explorer.app.schemas import trace_request
    from explorer.interpret.decoding import greedy_decode
    from explorer.interpret.handle import load_handle
    from explorer.interpret.head_importance import head_gradients, head_importance
    from explorer.model.config import EOS_ID

    def forced(n: int) -> list[int]:
        return [4 + i % 50 for i in range(n - 1)] + [EOS_ID]

    torch.set_num_threads(1)
    handle = load_handle(checkpoint)
    out = {"parameters": handle.model.num_parameters()}
    for name, sentence in SENTENCES.items():
        times, pieces = [], None
        options = {"forced_ids": forced(lengths[name])} if lengths else {}
        for _ in range(repeat + 1):
            t0 = time.perf_counter()
            wire = common.cold_trace(handle, trace_request(sentence, **options)).wire
            times.append(time.perf_counter() - t0)
            pieces = (len(wire["source_ids"]), len(wire["target_ids"]))
        out[f"trace {name}"] = {"ms": statistics.median(times[1:]) * 1000, "pieces (S, T)": pieces}
    source = handle.tokenizer.encode_source(OPENING_EXAMPLE)
    target = forced(lengths["opening example"]) if lengths else greedy_decode(handle.model, [source])[0]
    for name, fn in (("heads estimate", head_gradients), ("heads exact", head_importance)):
        times = []
        for _ in range(repeat + 1):
            t0 = time.perf_counter()
            fn(handle.model, source, target)
            times.append(time.perf_counter() - t0)
        out[name] = {"ms": statistics.median(times[1:]) * 1000}
    return out


SHOT = {  # the docs' screenshot: the opening example, its translation forced, every layer x head of cross-attention
    "sentence": OPENING_EXAMPLE,
    "prefix": "Ich weiß, dass er jeden Tag ein Buch liest.",
    "step": 8,
    "kind": "cross",
    "layer": 5,
    "head": 0,
    "view": "mosaic",
}


def screenshot(folder: Path, out: Path) -> Path:
    """The All heads view of the served Marian folder at 1366x768 in presentation mode, as a lecturer projects it."""
    from urllib.parse import urlencode

    from playwright.sync_api import sync_playwright

    port = free_port()
    proc, _ = start_app(str(folder), port)
    path = out / "opus-mt-size-all-heads-1366x768.png"
    try:
        with sync_playwright() as p:
            args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            page.set_default_timeout(120_000)
            page.goto(f"http://127.0.0.1:{port}/?{urlencode(SHOT)}", wait_until="load")
            page.wait_for_selector(".ae-mosaic")
            page.locator("#presentation input").check()
            page.evaluate("() => document.querySelector('.ae-viewer').scrollIntoView({block: 'start'})")
            page.wait_for_function("document.querySelector('.ae-root').getAttribute('aria-busy') !== 'true'")
            page.wait_for_timeout(1000)
            page.screenshot(path=str(path))
            browser.close()
    finally:
        stop_app(proc)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.marian_size", description=__doc__.split("\n")[0])
    parser.add_argument("--work", default="/var/tmp/ae-marian-bench")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2, help="app starts of each model, taking turns")
    parser.add_argument("--json")
    parser.add_argument("--shot", help="keep the All heads view's screenshot in this folder (and time nothing)")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    folder = opus_sized(work)
    print(f"opus-mt-en-de-sized random Marian folder: {folder} ({time.perf_counter() - t0:.0f} s)", flush=True)
    if args.shot:
        print(f"screenshot: {screenshot(folder, Path(args.shot))}")
        return 0
    models = {"lecture-en-de (shipped)": str(SHIPPED_CHECKPOINT), "opus-mt-en-de size (converted on load)": str(folder)}
    names = list(models)
    starts: dict[str, list[dict]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, checkpoint in models.items():
            starts[name].append(start(checkpoint))
    shipped, marian = models.values()
    results = {name: {} for name in models}
    for name in models:
        results[name]["start_s"] = statistics.median(s["start_s"] for s in starts[name])
        results[name]["rss_mb"] = statistics.median(s["rss_mb"] for s in starts[name])
    results[names[0]] |= in_process(shipped, args.repeat)
    lengths = {k.removeprefix("trace "): v["pieces (S, T)"][1] for k, v in results[names[0]].items() if "trace" in k}
    results[names[1]] |= in_process(marian, args.repeat, lengths)  # translations as long as the shipped model's
    results[UNFORCED] = {"start_s": float("nan"), "rss_mb": float("nan")} | in_process(marian, args.repeat)
    names = list(results)
    print(f"\n| figure (median; starts of {args.rounds}, the rest of {args.repeat}) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for figure in results[names[0]]:
        cells = []
        for n in names:
            value = results[n][figure]
            if isinstance(value, dict):
                cells.append(
                    f"{value['ms']:.0f} ms" + (f" {value['pieces (S, T)']}" if "pieces (S, T)" in value else "")
                )
            elif figure == "parameters":
                cells.append(f"{value:,}")
            elif value == value:  # not NaN
                cells.append(f"{value:.1f}")
            else:
                cells.append("")
        print(f"| {figure} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
