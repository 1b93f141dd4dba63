"""The model card (a checkpoint's README.md), rendered from training metadata."""

from __future__ import annotations

HYPERPARAMETERS = (  # what the card lists of a run's train_config (its "model" section first)
    "vocab_size",
    "d_model",
    "n_heads",
    "n_encoder_layers",
    "n_decoder_layers",
    "d_ff",
    "dropout",
    "norm_first",
    "lookahead_mask",
    "max_len",
    "max_tokens",
    "lr",
    "warmup",
    "max_steps",
    "cooldown_steps",
    "weight_decay",
    "label_smoothing",
    "clip",
    "seed",
    "bf16",
    "save_dtype",
)


def render_card(meta: dict, evaluation: dict | None = None, extra_sections: str = "") -> str:
    """Markdown model card from a checkpoint's training metadata (and an evaluation, if given).

    The metadata has the types `explorer.model.metadata.validate_metadata` checks; optional fields may be absent.
    Its name, data credit, known limits and recipe come from the recipe the model was trained with.
    """
    tc = meta.get("train_config") or {}
    settings = (tc.get("model") or {}) | tc  # the architecture is nested in train_config["model"]
    recipe = meta.get("recipe")
    lines = [
        f"# {meta.get('name') or 'Attention Explorer translator'}",
        "",
        "A small encoder-decoder Transformer trained with this project's own pipeline "
        "(`python -m explorer.training.train`), made to be looked inside with Attention Explorer.",
        "",
        "## Training data",
        f"- corpus: `{', '.join(tc.get('data', []))}`, validation: "
        f"`{tc.get('valid') or 'split off the training data'}`",
        f"- {meta.get('train_pairs', '?')} training pairs, {meta.get('valid_pairs', '?')} validation pairs after "
        "cleaning",
    ]
    if meta.get("data_credit"):
        lines.append(f"- data credit: {meta['data_credit']}")
    if meta.get("data_sources"):
        lines += ["", "| corpus | weight per epoch | what | licence |", "|---|---|---|---|"]
        lines += [f"| `{s['spec']}` | {s['weight']:g} | {s['name']} | {s['licence']} |" for s in meta["data_sources"]]
    lines += [
        "",
        "## Training",
        f"- command: `{meta.get('command', '')}`",
        f"- parameters: {meta.get('parameters') or 0:,}",
        f"- steps: {meta.get('steps')}, epochs: {meta.get('epochs')}, training wall time: "
        f"{meta.get('training_minutes')} min",
        *(
            [f"- weights: the mean of the final weights and the snapshots of steps {', '.join(map(str, averaged))}"]
            if (averaged := meta.get("averaged_steps"))
            else []
        ),
        f"- hardware: {meta.get('hardware')} (world size {meta.get('world_size', 1)})"
        + (", bf16 autocast" if meta.get("bf16_autocast") else ""),
        "- hyperparameters: " + ", ".join(f"{k}={settings[k]}" for k in HYPERPARAMETERS if k in settings),
        "",
    ]
    if recipe:
        lines += [f"The recipe, `{recipe['file']}`:", "", "```python", recipe["text"].rstrip(), "```", ""]
    lines += [
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
    if meta.get("known_limits"):
        lines += ["## Known limits", ""] + [f"- {item}" for item in meta["known_limits"]] + [""]
    return "\n".join(lines).rstrip() + "\n"
