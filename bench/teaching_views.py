"""What each on-demand teaching view costs the server, per click, for the app's example sentences.

For every example sentence of the Translate tab, with the shipped model: the decode trace itself (the
reference: what one sentence costs, rollout included, taken from a cold cache), then each question the
viewer can ask about it, answered the way the app answers it (`ExplorerSession.probe`: the trace from the
cache, the core's computation, the JSON): one cell explained (a cross-attention cell of the best head at the
middle step), which heads matter (every head off alone, one batched pass), attention against attribution
at the middle step (gradient × input and integrated gradients, steps doubled until complete within 5 %),
and the beam search tree (beam 4, every hypothesis recorded); last, one long input (six examples in one box) for
the worst case. Interleaved rounds; medians and maxima.

    python -m bench.teaching_views [--checkpoint checkpoints/tatoeba-en-de] [--threads 2] [--repeat 5] [--json OUT]
"""

from __future__ import annotations

from pathlib import Path

from bench import common
from explorer.app import SHIPPED_CHECKPOINT
from explorer.app.schemas import trace_request
from explorer.app.session import ExplorerSession
from explorer.app.trace_cache import TraceCache
from explorer.interpret.handle import load_handle
from explorer.ui.translate_tab import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
# the worst case a person can ask for in one sentence box: several example sentences at once (~70 pieces)
LONG = " ".join(s for s, _ in EXAMPLES[1:7])


def views_of(handle, sentence: str, best: tuple) -> tuple[dict, str]:
    """Every view's server work for one sentence, as callables (the trace warmed into the session's cache)."""
    request = trace_request(sentence)
    session = ExplorerSession(handle, TraceCache())
    wire = session.trace(request)
    T, S, middle = len(wire["target_ids"]), len(wire["source_ids"]), max(1, len(wire["target_ids"]) // 2)
    cell = {"what": "explain", "kind": "cross", "layer": best[1], "head": best[2], "row": middle - 1, "column": S // 2}
    attribution = {"what": "attribution", "step": middle, "layer": best[1], "head": best[2]}
    views = {
        "trace (cold)": lambda: ExplorerSession(handle, TraceCache()).trace(request),
        "explain a cell": lambda: session.probe(request, cell),
        "heads that matter": lambda: session.probe(request, {"what": "heads"}),
        "attention vs attribution": lambda: session.probe(request, attribution),
        "beam tree (beam 4)": lambda: session.probe(request, {"what": "beam_tree"}),
    }
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
