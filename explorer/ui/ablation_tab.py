"""The "Head ablation" tab: switch heads off, re-translate, compare with the full model."""

from __future__ import annotations

import gradio as gr

import re

from ..config import ATTENTION_KINDS
from ..figures import KIND_TITLES
from ..session import UserError
from .common import PLAIN_EVENT, Context, guarded


def head_labels(n_layers: int, n_heads: int) -> list[str]:
    return [f"L{layer} H{head}" for layer in range(n_layers) for head in range(n_heads)]


def parse_heads(kind: str, labels) -> list[tuple[str, int, int]]:
    """["L0 H1", ...] -> [(kind, 0, 1), ...]; anything else is a UserError naming it."""
    out = []
    for label in labels or []:
        match = re.fullmatch(r"L(\d+) H(\d+)", str(label))
        if match is None:
            raise UserError(f"{label!r} is not a head: heads look like 'L0 H1' (layer 0, head 1).")
        out.append((kind, int(match[1]), int(match[2])))
    return out


def build(ctx: Context, shared: dict):
    config = ctx.shipped.config
    with gr.Tab("Head ablation", id="ablation"):
        gr.Markdown(
            "Switch heads off (their output is zeroed before the output projection) and translate the sentence from the "
            "first tab again. The ablation then stays on for stepping and the heatmaps until you switch the heads back on."
        )
        groups = {
            kind: gr.CheckboxGroup(head_labels(config.n_layers(kind), config.n_heads), label=KIND_TITLES[kind], elem_id=f"ablate-{kind}")
            for kind in ATTENTION_KINDS
        }
        with gr.Row():
            run_btn = gr.Button("Re-translate with these heads off", variant="primary", elem_id="ablate-btn")
            clear_btn = gr.Button("Switch all heads back on")
        with gr.Row():
            before = gr.Textbox(label="All heads", interactive=False, elem_id="ablate-before")
            after = gr.Textbox(label="With the chosen heads off", interactive=False, elem_id="ablate-after")
        note = gr.Markdown()

    @guarded
    def ablate(text, encoder_self, decoder_self, cross, key):
        heads = parse_heads("encoder_self", encoder_self) + parse_heads("decoder_self", decoder_self) + parse_heads("cross", cross)
        return ctx.session(key).compare_ablation(text, heads)

    run_btn.click(ablate, [shared["sentence"], *groups.values(), ctx.key], [before, after, note], api_name="ablate", **PLAIN_EVENT)

    @guarded
    def clear(key):
        message = ctx.session(key).set_ablation([])
        return [], [], [], message

    clear_btn.click(clear, [ctx.key], [*groups.values(), note], api_name="clear_ablation", **PLAIN_EVENT)
