"""The "Look-ahead mask" tab: the mask at the current target length and scores -> mask -> softmax."""

from __future__ import annotations

import gradio as gr

from .common import PLAIN_EVENT, Context, guarded


def build(ctx: Context, shared: dict):
    config = ctx.shipped.config
    with gr.Tab("Look-ahead mask", id="mask") as tab:
        gr.Markdown(
            "The decoder may not look at target positions it has not produced yet. Its self-attention scores for "
            "future keys are set to −∞ before the softmax, so their weights are exactly 0. Below: the mask for the "
            "current target length, and for one decoder layer and head the three stages."
        )
        with gr.Row():
            layer = gr.Radio([str(i) for i in range(config.n_decoder_layers)], value="0", label="Decoder layer", elem_id="mask-layer")
            head = gr.Radio([str(h) for h in range(config.n_heads)], value="0", label="Head", elem_id="mask-head")
        mask_plot = gr.Plot(label="Look-ahead mask", elem_id="mask-plot")
        stages_plot = gr.Plot(label="Scores → mask → softmax", elem_id="stages-plot")

    @guarded
    def show(layer, head, key):
        session = ctx.session(key)
        if session.stepper is None:
            return None, None
        return session.mask_figures(layer, head)

    inputs, outputs = [layer, head, ctx.key], [mask_plot, stages_plot]
    layer.input(show, inputs, outputs, api_name="mask", **PLAIN_EVENT)
    head.input(show, inputs, outputs, api_name=False, **PLAIN_EVENT)
    tab.select(show, inputs, outputs, api_name=False, **PLAIN_EVENT)
