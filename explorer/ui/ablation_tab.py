"""The "Head ablation" tab: switch heads off, re-translate, compare with the full model."""

from __future__ import annotations

import gradio as gr

from ..config import ATTENTION_KINDS
from ..figures import KIND_TITLES
from .common import Context, guarded


def head_labels(n_layers: int, n_heads: int) -> list[str]:
    return [f"L{layer} H{head}" for layer in range(n_layers) for head in range(n_heads)]


def parse_heads(kind: str, labels: list[str]) -> list[tuple[str, int, int]]:
    out = []
    for label in labels or []:
        layer, head = label.split()
        out.append((kind, int(layer[1:]), int(head[1:])))
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

    run_btn.click(ablate, [shared["sentence"], *groups.values(), ctx.key], [before, after, note], api_name="ablate", concurrency_limit=None)

    @guarded
    def clear(key):
        message = ctx.session(key).set_ablation([])
        return [], [], [], message

    clear_btn.click(clear, [ctx.key], [*groups.values(), note], api_name="clear_ablation", concurrency_limit=None)
