"""The model card (a checkpoint's README.md) and the loss-curve PNG, rendered from training metadata."""

from __future__ import annotations

import io

CREDIT = (
    "Tatoeba Project (tatoeba.org) and manythings.org/anki, licensed CC-BY 2.0 France "
    "(https://creativecommons.org/licenses/by/2.0/fr/)"
)


def loss_curve_png(history: list[dict]) -> bytes | None:
    """Training loss (and validation loss/BLEU where present) against step, as PNG bytes."""
    train = [h for h in history if not h.get("valid")]
    if len(train) < 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    valid = [h for h in history if h.get("valid")]
    fig, ax = plt.subplots(figsize=(7, 4.4), dpi=100)
    ax.plot([h["step"] for h in train], [h["loss"] for h in train], label="training loss (label-smoothed)", color="#0072B2")
    lines = ax.get_lines()
    if valid:
        ax.plot([h["step"] for h in valid], [h["loss"] for h in valid], "o-", label="validation loss", color="#D55E00")
        ax2 = ax.twinx()
        ax2.plot([h["step"] for h in valid], [h["bleu"] for h in valid], "s--", label="validation BLEU", color="#009E73")
        ax2.set_ylabel("BLEU")
        lines = ax.get_lines() + ax2.get_lines()
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy")
    ax.grid(alpha=0.3)
    # one legend below the axes, where it cannot cover a curve
    fig.legend(lines, [line.get_label() for line in lines], loc="lower center", ncol=len(lines), frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def render_card(meta: dict, evaluation: dict | None = None, extra_sections: str = "") -> str:
    """Markdown model card from a checkpoint's training metadata (and an evaluation, if given).

    The metadata has the types `explorer.model.metadata.validate_metadata` checks; optional fields may be absent.
    """
    tc = meta.get("train_config") or {}
    data = ", ".join(tc.get("data", []))
    lines = [
        "# Attention Explorer English→German Transformer",
        "",
        "A small encoder-decoder Transformer trained with this project's own pipeline "
        "(`python -m explorer.training.train`), made to be looked inside with Attention Explorer.",
        "",
        "## Training data",
        f"- corpus: `{data}`, validation: `{tc.get('valid') or 'split off the training data'}`",
        f"- {meta.get('train_pairs', '?')} training pairs, {meta.get('valid_pairs', '?')} validation pairs after cleaning",
    ]
    if "tatoeba" in data.lower() or "tatoeba" in str(tc.get("valid", "")).lower():
        lines.append(f"- data credit: {CREDIT}")
    lines += [
        "",
        "## Training",
        f"- command: `{meta.get('command', '')}`",
        f"- parameters: {meta.get('parameters') or 0:,}",
        f"- steps: {meta.get('steps')}, epochs: {meta.get('epochs')}, training wall time: {meta.get('training_minutes')} min",
        f"- hardware: {meta.get('hardware')} (world size {meta.get('world_size', 1)})"
        + (", bf16 autocast" if meta.get("bf16_autocast") else ""),
        "- hyperparameters: "
        + ", ".join(
            f"{k}={tc[k]}"
            for k in (
                "vocab_size", "d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "d_ff", "dropout",
                "norm_first", "max_len", "max_tokens", "lr", "warmup", "max_steps", "cooldown_steps", "weight_decay",
                "label_smoothing", "clip", "seed", "bf16", "save_dtype",
            )
            if k in tc
        ),
        "",
        "![loss curve](loss_curve.png)",
        "",
    ]
    last = meta.get("last_validation")
    if last:
        lines += [
            "## Validation during training",
            f"Greedy decoding of {last.get('sentences')} validation sources at step {last.get('step')}: "
            f"loss {last.get('loss') or 0:.3f}, BLEU {last.get('bleu')}, chrF {last.get('chrf')}.",
            "",
        ]
    if evaluation:
        lines += ["## Evaluation", ""]
        for name, ev in evaluation.items():
            lines += [
                f"### {name}",
                f"- BLEU **{ev['bleu']}** (`{ev.get('bleu_signature', '?')}`)",
                f"- chrF **{ev['chrf']}** (`{ev.get('chrf_signature', '?')}`)",
                f"- {ev['sentences']} segments, {ev.get('references', '?')} references, beam {ev.get('beam', 1)}, "
                f"{ev.get('tokens_per_s', '?')} output tokens/s on {ev.get('threads', '?')} CPU threads",
                "",
            ]
            if ev.get("by_length"):
                lines += ["| source words | segments | BLEU | chrF |", "|---|---|---|---|"]
                lines += [f"| {r['words']} | {r['segments']} | {r['bleu']} | {r['chrf']} |" for r in ev["by_length"]]
                lines.append("")
        examples = next(iter(evaluation.values())).get("examples", [])
        if examples:
            lines += ["### Example translations", "", "| English | model | a reference |", "|---|---|---|"]
            lines += [f"| {e['source']} | {e['hypothesis']} | {e['references'][0]} |" for e in examples]
            lines.append("")
    lines.append(extra_sections)
    return "\n".join(lines).rstrip() + "\n"
