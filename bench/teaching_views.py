"""What each on-demand teaching view costs the server, per click, for the app's example sentences.

For every example sentence of the Translate tab, with the shipped model: the decode trace itself (the
reference: what one sentence costs, rollout included, taken from a cold cache), then each question the
viewer can ask about it, computed the way the app computes it the first time (`questions.answer` on the cached trace,
the JSON included): one cell explained (a cross-attention cell of the best head at the middle step), which heads
matter (every head off alone, one batched pass), attention against attribution at the middle step (gradient ×
input and integrated gradients, steps doubled until complete within 5 %), the beam search tree (beam 4, every
hypothesis recorded), the value path and the Q·K space of the best head at the middle step, and the same sentence in
the models trained with and without the look-ahead mask, and without its positional encoding (as typed and
reversed); and the gold alignment the trace carries (`explorer/app/gold.py`: the hand-aligned links at the piece level
and every cross-attention head's AER, part of each example's wire trace); last, one long input (six examples in one
box, aligned by nobody) for the worst case. Interleaved rounds; medians and maxima.

    python -m bench.teaching_views [--checkpoint checkpoints/tatoeba-en-de] [--threads 2] [--repeat 5] [--json OUT]
"""

from __future__ import annotations

from pathlib import Path

from bench import common
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app import questions as registry
from explorer.app.gold import gold_of
from explorer.app.schemas import trace_request, validate
from explorer.interpret.handle import load_handle
from explorer.ui.translate_tab import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
# the worst case a person can ask for in one sentence box: several example sentences at once (~70 pieces)
LONG = " ".join(s for s, _ in EXAMPLES[1:7])


def views_of(handle, sentence: str, best: tuple) -> tuple[dict, str]:
    """Every view's server work for one sentence, as callables: the trace from a cold cache, then each question
    computed as the app computes it once (`questions.answer` on the cached trace, serialised; the app's answer cache
    would make every repeat after the first a hit)."""
    request = trace_request(sentence)
    trace = common.cold_trace(handle, request).trace
    T, S, middle = len(trace.target_ids), len(trace.source_ids), max(1, len(trace.target_ids) // 2)
    kind, layer, head = "cross", best[1], int(best[2])
    questions = {
        "explain a cell": {"what": "explain", "kind": kind, "layer": layer, "head": head, "row": middle - 1,
                           "column": S // 2},
        "heads that matter": {"what": "heads"},
        "attention vs attribution": {"what": "attribution", "step": middle, "layer": layer, "head": head},
        "beam tree (beam 4)": {"what": "beam_tree"},
        "value path": {"what": "value_path", "kind": kind, "layer": layer, "head": head, "row": middle - 1},
        "Q·K space": {"what": "qk_space", "kind": kind, "layer": layer, "head": head},
        "without the mask": {"what": "maskless"},
        "no positions": {"what": "no_position"},
    }  # fmt: skip

    def ask(question: dict):
        asked = validate(registry.AnyQuestion, question)
        return lambda: registry.encoded(registry.answer(handle, trace, asked))

    views = {"trace (cold)": lambda: common.cold_trace(handle, request).wire}
    views |= {name: ask(q) for name, q in questions.items()}
    views["gold alignment (in the trace)"] = lambda: gold_of(trace, handle)
    return views, f"{sentence[:40]} (S={S}, T={T})"


def main() -> int:
    p = common.parser(__doc__.split("\n")[0])
    args = p.parse_args()
    common.setup(args, warmup=1, repeat=5, quick_warmup=0, quick_repeat=1)
    checkpoint = args.checkpoint or str(SHIPPED_CHECKPOINT)
    handle = load_handle(checkpoint)
    best = handle.best_head or ("cross", handle.config.n_decoder_layers - 1, 0)
    rows, results = [], {}
    for sentence in [s for s, _ in EXAMPLES][: 2 if args.quick else None] + [LONG]:
        views, label = views_of(handle, sentence, best)
        times = common.interleaved(views, args.warmup, args.repeat)
        results[sentence] = {name: [round(t * 1000, 1) for t in ts] for name, ts in times.items()}
        rows.append([label] + [common.median(ts) * 1000 for ts in times.values()])
    names = list(views)
    print(common.header("Teaching views: server time per click", args, checkpoint))
    print(common.table(["sentence"] + [f"{n}, ms" for n in names], rows))
    every = {n: [t for r in results.values() for t in r[n]] for n in names}
    print(
        "\n" + common.table(["view", "median ms", "max ms"], [[n, common.median(v), max(v)] for n, v in every.items()])
    )
    common.write_json(args, "teaching_views", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
