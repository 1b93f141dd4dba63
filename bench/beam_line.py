"""What the beam line says and costs: greedy against beam search on the Translate tab's examples and the lecture set.

    python -m bench.beam_line [--checkpoint DIR] [--beam 4] [--repeat 3] [--threads 1]

For every sentence, the greedy translation (what the step-through shows) and beam search's (what the line under it
says, `explorer/ui/static/beamline.js`); the sentences where they differ are listed for reading one by one. Beside
them, the median seconds over `--repeat` runs on `--threads` torch threads (the server computes a question on one) of a
greedy decode, a beam search with its tree recorded (the beam tree question the line asks) and a cold trace (the
engine's `build_traces` of one sentence, what a new sentence costs the server).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.examples import EXAMPLES
from explorer.app.schemas import trace_request
from explorer.interpret.decoding import beam_search, greedy_decode
from explorer.interpret.handle import load_handle
from explorer.interpret.trace import build_traces, plan_trace

LECTURE_SET = "bench/data/lecture_en_de.tsv"


def timed(repeat: int, work, *args, **kwargs) -> tuple[object, float]:
    """`work(*args, **kwargs)`'s result and its median seconds over `repeat` runs."""
    seconds, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = work(*args, **kwargs)
        seconds.append(time.perf_counter() - t0)
    return out, statistics.median(seconds)


def beam_tree(model, source: list[int], size: int):
    """Beam search with every hypothesis recorded, as the beam tree question runs it."""
    return beam_search(model, source, size, tree=[])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED_CHECKPOINT))
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    handle = load_handle(args.checkpoint)
    lecture = [line.split("\t")[0] for line in open(LECTURE_SET, encoding="utf-8").read().splitlines() if line.strip()]
    sentences = [s for s, _ in EXAMPLES] + lecture
    costs = {"greedy decode": [], f"beam search ({args.beam}) with its tree": [], "cold trace": []}
    print(f"| English | greedy | beam search ({args.beam}) |\n|---|---|---|")
    for sentence in sentences:
        source = handle.tokenizer.encode_source(sentence, handle.config.max_len)
        (greedy,), greedy_s = timed(args.repeat, greedy_decode, handle.model, [source])
        beams, beam_s = timed(args.repeat, beam_tree, handle.model, source, args.beam)
        plan = plan_trace(handle, trace_request(sentence))
        _, trace_s = timed(args.repeat, build_traces, handle, [plan])
        for name, s in zip(costs, (greedy_s, beam_s, trace_s)):
            costs[name].append(s)
        said, beam = handle.tokenizer.decode(greedy), handle.tokenizer.decode(beams[0].ids)
        if said != beam:
            print(f"| {sentence} | {said} | {beam} |")
    print(f"\n{len(sentences)} sentences; median (and range) ms on {args.threads} thread(s), {args.repeat} runs each:")
    for name, seconds in costs.items():
        ms = [1000 * s for s in seconds]
        print(f"- {name}: {statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
