"""The "Positional encoding" tab: the model's own PE buffer as a heatmap, waves and a similarity matrix.

Gradio lays out the form; the browser asks the API for the charts (`static/positional.js`,
`GET /ae/api/positional/figures`) and draws them.
"""

from __future__ import annotations

import gradio as gr

from ..model.config import POSITIONAL_LAYOUTS
from .common import Context, browser_drawn
from .viewer import tab_js, tab_on_load

ON_LOAD = tab_on_load("positional", ".ae-pe")


def build(ctx: Context):
    config = ctx.shipped.config
    d = config.d_model
    default_dims = ", ".join(str(x) for x in sorted({0, 1, 4, 16, d // 4, d // 2, d - 2}))
    with gr.Tab("Positional encoding", id="positional") as tab:
        gr.Markdown(
            f"Read from the model's own buffer `pos_encoding.pe`: {POSITIONAL_LAYOUTS[config.positional_layout]}. "
            "Small i oscillates fast, large i slowly."
        )
        with gr.Row():
            positions = gr.Slider(
                2, config.max_len, value=min(64, config.max_len), step=1, label="Positions", elem_id="pe-positions"
            )
            dims = gr.Slider(2, d, value=min(128, d), step=2, label="Dimensions in the heatmap", elem_id="pe-dims")
            waves = gr.Textbox(default_dims, label="Dimensions drawn as waves", elem_id="pe-waves")
        show_btn = gr.Button("Show", elem_id="pe-show")
        browser_drawn("<div class='ae-pe'></div>", ON_LOAD, "pe-charts")
    inputs = [positions, dims, waves, ctx.presentation]
    show = tab_js("positional", "show", inputs, prefix="pe-")  # {positions, dims, waves, presentation}
    show_btn.click(None, inputs, None, js=show, api_name=False, queue=False)
    tab.select(None, inputs, None, js=show, api_name=False, queue=False)
