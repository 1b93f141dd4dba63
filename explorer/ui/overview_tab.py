"""The "All heads" tab: every layer x head of one attention kind as a single mosaic figure."""

from __future__ import annotations

import gradio as gr

from .common import PLAIN_EVENT, Context, guarded
from .translate_tab import KIND_CHOICES


def build(ctx: Context, shared: dict):
    kind0, layer0, head0 = ctx.shipped.default_view
    with gr.Tab("All heads", id="overview") as tab:
        gr.Markdown(
            "Every layer × head of one kind at the current step, as one figure. Hover a cell for its layer, head, "
            "query, key and exact weight."
            + (f" The outlined tile is the head that best predicts word alignment (layer {layer0}, head {head0})." if kind0 == "cross" and head0.isdigit() else "")
        )
        kind = gr.Radio(KIND_CHOICES, value="cross", label="Attention kind", elem_id="overview-kind")
        plot = gr.Plot(label="Overview", elem_id="overview-plot")

    @guarded
    def overview(kind, key):
        session = ctx.session(key)
        if session.stepper is None:
            return None
        return session.overview_figure(kind)

    kind.input(overview, [kind, ctx.key], [plot], api_name="overview", **PLAIN_EVENT)
    tab.select(overview, [kind, ctx.key], [plot], api_name=False, **PLAIN_EVENT)
