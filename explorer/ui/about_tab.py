"""The "About the model" tab: what the loaded checkpoint is, how it was trained and how well it translates."""

from __future__ import annotations

import gradio as gr

from ..handle import ModelHandle
from .common import Context


def describe(handle: ModelHandle) -> str:
    c = handle.config
    meta = handle.metadata
    lines = [
        f"### {handle.name}",
        f"- {handle.model.num_parameters():,} parameters: {c.n_encoder_layers} encoder + {c.n_decoder_layers} decoder layers, "
        f"d_model {c.d_model}, {c.n_heads} heads, feed-forward {c.d_ff}, {'pre' if c.norm_first else 'post'}-LN, "
        f"joint vocabulary of {c.vocab_size} pieces, up to {c.max_len} tokens.",
    ]
    if meta.get("training_minutes") is not None:
        lines.append(f"- trained for {meta.get('training_minutes')} min ({meta.get('steps')} steps) on {meta.get('hardware')}.")
    evaluation = meta.get("evaluation") or {}
    for name, ev in evaluation.items():
        lines.append(f"- {name}: BLEU {ev['bleu']}, chrF {ev['chrf']} ({ev['sentences']} segments).")
    alignment = meta.get("alignment")
    if alignment:
        best = alignment["best"]
        lines.append(
            f"- the cross-attention that best predicts word alignment is layer {best['layer']}, head {best['head']} "
            f"(alignment error rate {best['aer']:.2f} on {alignment['pairs']} hand-aligned sentences); the explorer opens on it."
        )
    if "tatoeba" in str(meta.get("train_config", {}).get("data", "")).lower():
        lines.append("- training data: Tatoeba Project (tatoeba.org) and manythings.org/anki, CC-BY 2.0 France.")
    return "\n".join(lines)


def build(ctx: Context):
    with gr.Tab("About the model", id="about"):
        gr.Markdown(describe(ctx.shipped))
        gr.Markdown(
            "Rows of every attention map are queries and columns keys. Decoder and cross-attention rows are labelled "
            "with the target token produced at that step; the decoder self-attention keys are the decoder's inputs "
            "(`<s>` and the tokens produced before). Pieces that continue a word start with `·`."
        )
