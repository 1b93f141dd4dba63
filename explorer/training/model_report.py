"""Measure a checkpoint for its model card and write the findings into it, or compare checkpoints side by side.

    python -m explorer.training.model_report --checkpoint checkpoints/tatoeba-en-de --data valid.tsv \\
        --gold explorer/app/alignments/everyday.tsv --beam 4 [--reference-checkpoint FP32_DIR] \\
        [--tests FLORES=flores.tsv TED=ted.tsv --limit 1500] [--lecture bench/data/lecture_en_de.tsv]
    python -m explorer.training.model_report --compare OLD_DIR NEW_DIR --data valid.tsv --tests ... \\
        --lecture bench/data/lecture_en_de.tsv --gold explorer/app/alignments/everyday.tsv [--json OUT]

Runs `explorer.training.evaluate` greedily and with beam search, scores every cross-attention head against
hand-made word alignments, optionally evaluates an fp32 copy for the fp16 comparison, then stores all of
it in config.json's training metadata (the app reads the best alignment head from there) and re-renders
the model card. `--tests` adds test sets (greedy, the first `--limit` segments), `--lecture` the lecture set with
every translation listed in the card. `--card-only` re-renders the card (e.g. with a new `--note`) from the
measurements already stored in config.json, without decoding anything. `--compare` writes nothing: it prints one
table of every checkpoint on every test set (greedy, as the app decodes), the lecture set's translations side by
side, and each checkpoint's best alignment head.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from ..interpret.alignment import read_gold, score_heads, score_methods
from ..interpret.request import DEFAULTS
from ..model.checkpoint import CheckpointError, load_checkpoint, update_metadata
from ..model.metadata import MAX_LABEL_CHARS, is_plain_text
from .card import render_card
from .evaluate import GOOD_CHRF, evaluate


def alignment_section(alignment: dict) -> str:
    rows = alignment.get("heads") or []
    best = alignment["best"]
    lines = [
        "## Which attention head aligns words",
        "",
        f"Cross-attention against {alignment['pairs']} hand-aligned sentence pairs (`{alignment.get('gold', '?')}`), "
        "target forced, each target word aligned to its most-attended source word; alignment error rate (lower is "
        "better) and the share of target words whose chosen source word is a gold link.",
        "",
        f"Best single head: **layer {best['layer']}, head {best['head']}** (AER {best['aer']:.3f}, "
        f"accuracy {_percent(best)}); the explorer opens on it.",
        "",
        "| layer | head | AER | accuracy |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r['layer']} | {r['head']} | {r['aer']:.3f} | {_percent(r)} |" for r in rows]
    if alignment.get("methods"):
        lines += ["", methods_section(alignment)]
    return "\n".join(lines) + "\n"


def methods_section(alignment: dict) -> str:
    """The explanations the viewer offers, scored against the same gold alignments."""
    lines = [
        "## Attention, rollout and gradients against the gold alignments",
        "",
        "The same pairs and the same rule (each target word to its highest-scoring source word), for each "
        "explanation the viewer offers: attention (the best head, the mean of all heads), attention rollout "
        "(composed through the encoder with the residual, averaged over decoder layers), and the gradient "
        "attributions of each target piece's log-probability to the source pieces (gradient × input; integrated "
        "gradients from an all-zero embedding baseline, steps doubled until complete within 5 %). Lower AER: closer "
        "to where a person aligns the words.",
        "",
        "| explanation | AER | accuracy |",
        "|---|---|---|",
    ]
    lines += [f"| {r['method']} | {r['aer']:.3f} | {_percent(r)} |" for r in alignment["methods"]]
    return "\n".join(lines)


def _percent(row: dict) -> str:
    return "?" if row.get("accuracy") is None else f"{row['accuracy']:.1%}"


def lecture_section(lecture: dict) -> str:
    """Every sentence of the lecture set with the model's greedy translation."""
    lines = [
        "## The lecture set, translated",
        "",
        f"`{lecture['name']}`: sentences a lecturer types in class (never trained on), greedy as the app decodes; "
        f"BLEU {lecture['bleu']:.1f}, chrF {lecture['chrf']:.1f} against {lecture['references']} references.",
        "",
        "| English | the model's German |",
        "|---|---|",
    ]
    lines += [f"| {_cell(e['source'])} | {_cell(e['hypothesis'])} |" for e in lecture["examples"]]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def card_text(meta: dict) -> str:
    """The model card of a checkpoint whose metadata holds its evaluation and alignment findings."""
    note = meta.get("card_note")
    notes = f"## Notes on this run\n\n{note}\n\n" if note else ""
    sections = notes + alignment_section(meta["alignment"])
    if meta.get("lecture"):
        sections += "\n" + lecture_section(meta["lecture"])
    measured = f"\nMeasured with `{meta['report_command']}`.\n" if meta.get("report_command") else ""
    return render_card(meta, meta["evaluation"], sections + measured)


def rerender_card(checkpoint: str, note: str | None) -> int:
    """Rewrite the card from config.json's stored measurements, optionally with a new note."""
    ckpt = load_checkpoint(checkpoint)
    meta = dict(ckpt.metadata)  # validated: the fields the card reads have their types
    if not meta.get("evaluation") or not meta.get("alignment"):
        print(f"error: {checkpoint} has no stored evaluation; run without --card-only first", file=sys.stderr)
        return 2
    if note is not None:
        meta["card_note"] = note
    update_metadata(checkpoint, {"card_note": meta.get("card_note", "")}, card_text(meta))
    print(f"re-rendered {Path(checkpoint) / 'README.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m explorer.training.model_report", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--checkpoint")
    parser.add_argument("--data", help="multi-reference TSV (source TAB reference ...)")
    parser.add_argument("--gold", nargs="+", help="gold word alignments TSV (several: scored together)")
    parser.add_argument("--beam", type=int, default=DEFAULTS["beam_size"])
    parser.add_argument("--reference-checkpoint", help="an fp32 export of the same weights, for the fp16 comparison")
    parser.add_argument("--data-name", default=None, help="how the test set is named in the card")
    parser.add_argument(
        "--note", default=None, help="a paragraph for the card (e.g. how the run was resumed); kept if omitted"
    )
    parser.add_argument("--card-only", action="store_true", help="re-render the card from the stored measurements")
    parser.add_argument("--tests", nargs="*", default=[], metavar="NAME=TSV", help="more test sets, decoded greedily")
    parser.add_argument("--limit", type=int, default=0, help="only the first N segments of each --tests set")
    parser.add_argument("--lecture", default=None, help="the lecture set: every translation is listed")
    parser.add_argument("--compare", nargs="+", default=None, metavar="DIR", help="compare checkpoints; writes nothing")
    parser.add_argument("--json", default=None, help="with --compare: also write the results as JSON")
    parser.add_argument(
        "--alignment-only", action="store_true", help="measure only the alignment findings again (needs --gold)"
    )
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args)
    if not args.checkpoint:
        parser.error("--checkpoint is required (or --compare)")
    if args.alignment_only and not args.gold:
        parser.error("--alignment-only needs --gold")
    if not (args.card_only or args.alignment_only) and (not args.data or not args.gold):
        parser.error("--data and --gold are required (unless --card-only or --alignment-only)")
    try:
        if args.card_only:
            return rerender_card(args.checkpoint, args.note)
        return realign(args.checkpoint, args.gold) if args.alignment_only else report(args, argv)
    except (CheckpointError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def read_golds(golds: list[str]) -> list:
    """The hand-aligned pairs of every gold file, in order."""
    return [pair for gold in golds for pair in read_gold(gold)]


def measure_alignment(ckpt, golds: list[str]) -> dict:
    """Every head's AER against the gold alignments, and the AER of each explanation the viewer offers."""
    pairs = read_golds(golds)
    heads = score_heads(ckpt.model, ckpt.tokenizer, pairs)
    singles = [r for r in heads if isinstance(r["head"], int)]
    best = singles[0]
    methods = score_methods(ckpt.model, ckpt.tokenizer, pairs, (best["layer"], best["head"]))
    print(f"best alignment head: layer {best['layer']} head {best['head']} AER {best['aer']}")
    for r in heads[:8]:
        print(f"  layer {r['layer']} head {r['head']}: AER {r['aer']:.3f} accuracy {r['accuracy']:.1%}")
    for r in methods:
        print(f"  {r['method']}: AER {r['aer']:.3f} accuracy {r['accuracy']:.1%}")
    name = " + ".join(Path(g).name for g in golds)
    return {"gold": name, "pairs": len(pairs), "best": best, "heads": heads, "methods": methods}


def realign(checkpoint: str, gold: list[str]) -> int:
    """Measure the alignment findings again (no test-set decoding) and re-render the card."""
    ckpt = load_checkpoint(checkpoint)
    if not ckpt.metadata.get("evaluation"):
        print(f"error: {checkpoint} has no stored evaluation; run without --alignment-only first", file=sys.stderr)
        return 2
    updates = {"alignment": measure_alignment(ckpt, gold)}
    update_metadata(checkpoint, updates, card_text(dict(ckpt.metadata) | updates))
    print(f"re-rendered {Path(checkpoint) / 'README.md'}")
    return 0


def report(args: argparse.Namespace, argv: list[str] | None) -> int:
    """Measure, store the findings in config.json and re-render the card."""
    name = args.data_name or Path(args.data).name
    if not is_plain_text(name, MAX_LABEL_CHARS):  # checked now, not after the decoding, when the card is written
        raise ValueError(
            f"the test set name {name!r} must be plain text (no < > & or control characters); pass --data-name"
        )
    evaluation = {f"{name}, greedy": evaluate(args.checkpoint, args.data, beam=1)}
    for test_name, path in test_sets(args.tests):
        evaluation[f"{test_name}, greedy" + (f", first {args.limit}" if args.limit else "")] = evaluate(
            args.checkpoint, path, beam=1, limit=args.limit
        )
    if args.beam > 1:
        evaluation[f"{name}, beam {args.beam}"] = evaluate(args.checkpoint, args.data, beam=args.beam)
    if args.reference_checkpoint:
        evaluation[f"{name}, greedy, fp32 weights"] = evaluate(args.reference_checkpoint, args.data, beam=1)
    for key, ev in evaluation.items():
        print(f"{key}: BLEU {ev['bleu']} chrF {ev['chrf']} ({ev['sentences']} segments, {ev['tokens_per_s']} tok/s)")

    ckpt = load_checkpoint(args.checkpoint)
    alignment = measure_alignment(ckpt, args.gold)

    argv = list(argv if argv is not None else sys.argv[1:])
    if "--note" in argv:  # the note is prose, not a measuring option
        i = argv.index("--note")
        del argv[i : i + 2]
    argv = [a for a in argv if not a.startswith("--note=")]
    note = ckpt.metadata.get("card_note", "") if args.note is None else args.note
    updates = {
        "evaluation": evaluation,
        "alignment": alignment,
        **({"lecture": lecture_of(args.checkpoint, args.lecture)} if args.lecture else {}),
        "report_command": "python -m explorer.training.model_report " + shlex.join(argv),
        "card_note": note,
    }
    update_metadata(args.checkpoint, updates, card_text(dict(ckpt.metadata) | updates))
    print(
        json.dumps(
            {k: {m: v[m] for m in ("bleu", "chrf", "bleu_signature", "chrf_signature")} for k, v in evaluation.items()},
            indent=1,
        )
    )
    return 0


def test_sets(specs: list[str]) -> list[tuple[str, str]]:
    """`NAME=PATH` pairs of --tests."""
    out = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--tests takes NAME=PATH pairs, not {spec!r}")
        out.append((name, path))
    return out


def lecture_of(checkpoint: str, path: str) -> dict:
    """The lecture set decoded greedily, every translation kept (for the card)."""
    result = evaluate(checkpoint, path, beam=1, examples=1000)
    keep = ("bleu", "chrf", "good_share", "sentences", "references", "examples")
    return {k: result[k] for k in keep} | {"name": Path(path).name}


def _scores(result: dict) -> str:
    return f"{result['bleu']} | {result['chrf']} | {result['good_share']:.1%}"


def column_names(paths: list[str]) -> list[str]:
    """Each checkpoint's column: its folder's name, or where two folders share one, the path as given."""
    names = [Path(p).name for p in paths]
    return [n if n and names.count(n) == 1 else str(p) for n, p in zip(names, paths)]


def compare(args: argparse.Namespace) -> int:
    """Every checkpoint on every test set in one table, and the lecture set's translations side by side."""
    sets = ([(args.data_name or Path(args.data).name, args.data)] if args.data else []) + test_sets(args.tests)
    if len({str(Path(c).resolve()) for c in args.compare}) < len(args.compare):
        print(f"error: --compare names one checkpoint twice: {' '.join(args.compare)}", file=sys.stderr)
        return 2
    names = column_names(args.compare)
    results: dict = {"checkpoints": args.compare, "tests": {}, "lecture": None, "alignment": {}}
    for set_name, path in sets:
        limit = 0 if path == args.data else args.limit
        results["tests"][set_name] = [evaluate(c, path, beam=1, limit=limit) for c in args.compare]
    lines = [
        "| test set (greedy) | " + " | ".join(f"{n} BLEU | {n} chrF | {n} chrF ≥ {GOOD_CHRF:g}" for n in names) + " |"
    ]
    lines.append("|---|" + "---|---|---|" * len(names))
    for set_name, rows in results["tests"].items():
        lines.append(f"| {set_name} ({rows[0]['sentences']}) | " + " | ".join(map(_scores, rows)) + " |")
    if args.lecture:
        lecture = [lecture_of(c, args.lecture) for c in args.compare]
        results["lecture"] = lecture
        lines.append(f"| lecture set ({lecture[0]['sentences']}) | " + " | ".join(map(_scores, lecture)) + " |")
    if args.gold:
        for c, n in zip(args.compare, names):
            ckpt = load_checkpoint(c)
            heads = score_heads(ckpt.model, ckpt.tokenizer, read_golds(args.gold))
            best = [r for r in heads if isinstance(r["head"], int)][0]
            results["alignment"][n] = best
        lines.append(
            "| best alignment head (AER) | "
            + " | ".join(f"L{b['layer']} H{b['head']} | {b['aer']:.3f} | " for b in results["alignment"].values())
            + " |"
        )
    print("\n".join(lines))
    if results["lecture"]:
        print("\n| English | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
        for i, example in enumerate(results["lecture"][0]["examples"]):
            cells = [_cell(r["examples"][i]["hypothesis"]) for r in results["lecture"]]
            print(f"| {_cell(example['source'])} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
