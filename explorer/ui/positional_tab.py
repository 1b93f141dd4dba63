"""The "Positional encoding" tab: the model's own PE buffer as a heatmap, waves and a similarity matrix."""

from __future__ import annotations

import gradio as gr

from ..app.positional import positional_figures
from .common import PLAIN_EVENT, Context, font_size, session_event


def build(ctx: Context):
    config = ctx.shipped.config
    d = config.d_model
    default_dims = ", ".join(str(x) for x in sorted({0, 1, 4, 16, d // 4, d // 2, d - 2}))
    with gr.Tab("Positional encoding", id="positional") as tab:
        gr.Markdown(
            "Read from the model's own buffer `pos_encoding.pe`: PE(pos, 2i) = sin(pos / 10000^(2i/d)), "
            "PE(pos, 2i+1) = cos(pos / 10000^(2i/d)). Low dimensions oscillate fast, high ones slowly."
        )
        with gr.Row():
            positions = gr.Slider(
                2, config.max_len, value=min(64, config.max_len), step=1, label="Positions", elem_id="pe-positions"
            )
            dims = gr.Slider(2, d, value=min(128, d), step=2, label="Dimensions in the heatmap", elem_id="pe-dims")
            waves = gr.Textbox(default_dims, label="Dimensions drawn as waves", elem_id="pe-waves")
        show_btn = gr.Button("Show", elem_id="pe-show")
        heat = gr.Plot(label="PE table", elem_id="pe-heatmap")
        with gr.Row():
            wave_plot = gr.Plot(label="Waves", elem_id="pe-wave-plot")
            sim_plot = gr.Plot(label="Similarity", elem_id="pe-sim-plot")

    @session_event
    def show(positions, dims, waves, presentation, use_own, session):
        return positional_figures(session.handle(use_own), positions, dims, waves, font_size(presentation))

    inputs = [positions, dims, waves, ctx.presentation, ctx.use_own, ctx.state]
    outputs = [heat, wave_plot, sim_plot, ctx.state]
    show_btn.click(show, inputs, outputs, api_name="positional", api_visibility="private", **PLAIN_EVENT)
    tab.select(show, inputs, outputs, api_name=False, **PLAIN_EVENT)
