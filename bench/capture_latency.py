"""Latency of translating one sentence with full attention capture vs without.

Source: 15 tokens (14 + EOS; a fixed English sentence with --checkpoint, seeded random ids
otherwise). Output: exactly 15 tokens. The no-capture run is greedy decoding with the KV cache
(`model.decode` one token at a time, no hooks: SDPA fast path) with the special ids excluded from
the argmax, so it never stops early. Its 15 tokens are then given to the `Stepper` as
`forced_prefix` with max_new_tokens=15: the Stepper does the same model work per step and also
records encoder_self once and decoder_self + cross at every step (explicit attention path, maps
copied out), computes the softmax, the top-10 candidates and their pieces, as the app does.
A middle row isolates the recorder: the same greedy loop inside one `AttentionRecorder` (all
kinds), with `maps()` at the end. Timed per sentence: construction/encoding through the last step.
Without --checkpoint the model is random with the shipped size and pieces are shown as ids.

    python -m bench.capture_latency [--checkpoint checkpoints/tatoeba-en-de] [--threads N] [--json OUT]
"""

from __future__ import annotations

from bench import common
from explorer.interpret.decoding import Source, Stepper, StepperOptions
from explorer.interpret.hooks import AttentionRecorder

TARGET_MEDIAN_MS, TARGET_RATIO = 30.0, 1.5


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--source-tokens", type=int, default=15, help="source length, EOS included")
    p.add_argument("--new-tokens", type=int, default=15, help="output tokens (forced: no early EOS)")
    args = p.parse_args()
    common.setup(args, warmup=5, repeat=60, quick_warmup=1, quick_repeat=5)

    model, tokenizer, desc = common.load_model(args.checkpoint, args.seed)
    ids = common.source_ids(tokenizer, args.source_tokens, args.seed)
    source = Source(tokenizer.decode(ids), ids, tokenizer.pieces(ids))
    n = args.new_tokens
    output = common.greedy_cached(model, ids, n)

    def no_capture():
        return common.greedy_cached(model, ids, n)

    def recorder_only():
        with AttentionRecorder(model) as recorder:
            tokens = common.greedy_cached(model, ids, n, need_weights=True)
        recorder.maps()
        return tokens

    def stepper():
        s = Stepper(model, tokenizer, source, StepperOptions(max_new_tokens=n), forced_prefix=output)
        s.run()
        return s

    # the three variants decode the same tokens; the Stepper records every step
    assert recorder_only() == output, "explicit attention path chose different tokens than the fast path"
    s = stepper()
    assert [step.token_id for step in s.steps] == output and s.finished
    assert s.maps_at("cross").shape[2] == n and s.encoder_self.shape[-1] == len(ids)

    variants = {
        "no capture (cached greedy)": no_capture,
        "recorder only": recorder_only,
        "Stepper (app)": stepper,
    }
    times = common.interleaved(variants, args.warmup, args.repeat)
    ms = {name: [t * 1000 for t in ts] for name, ts in times.items()}
    base = common.median(ms["no capture (cached greedy)"])

    print(common.header("Attention capture latency (one sentence, lower is better)", args, desc))
    print(f"Source {len(ids)} tokens -> {n} output tokens; ratio = median / median of no capture.\n")
    rows = [[name, common.median(v), common.p90(v), f"{common.median(v) / base:.2f}x"] for name, v in ms.items()]
    print(common.table(["variant", "median ms", "p90 ms", "ratio"], rows))
    capture = common.median(ms["Stepper (app)"])
    ratio = capture / base

    def verdict(good: bool) -> str:
        return "met" if good else "NOT met"

    quick = " (quick run on a possibly busy machine: not a verdict)" if args.quick else ""
    print(
        f"\nTargets{quick}: capture median <= {TARGET_MEDIAN_MS:.0f} ms: {capture:.1f} ms "
        f"({verdict(capture <= TARGET_MEDIAN_MS)}); capture/no-capture <= {TARGET_RATIO}x: {ratio:.2f}x "
        f"({verdict(ratio <= TARGET_RATIO)})."
    )
    common.write_json(
        args,
        "capture_latency",
        {
            "model": desc,
            "source_tokens": len(ids),
            "new_tokens": n,
            "ms": ms,
            "median_ms": {k: common.median(v) for k, v in ms.items()},
            "p90_ms": {k: common.p90(v) for k, v in ms.items()},
            "ratio_capture_over_no_capture": ratio,
        },
    )


if __name__ == "__main__":
    main()
