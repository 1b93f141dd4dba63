"""The Gradio UI: `build_demo` lays out the tabs and wires them to the gradio-free core."""

from __future__ import annotations

import gradio as gr

from ..session import ExplorerSession, ModelHandle
from ..sessions import SessionStore, new_key
from . import ablation_tab, about_tab, mask_tab, overview_tab, positional_tab, train_tab, translate_tab
from .common import CSS, NORMAL_FONT, PLAIN_EVENT, PRESENTATION_FONT, THEME, Context, guarded

__all__ = ["build_demo", "CSS", "THEME"]


def build_demo(shipped: ModelHandle, store: SessionStore | None = None) -> gr.Blocks:
    store = store or SessionStore(lambda: ExplorerSession(shipped))
    with gr.Blocks(title="Attention Explorer", analytics_enabled=False) as demo:
        key = gr.State(new_key)
        ctx = Context(store, shipped, key)
        with gr.Row():
            gr.Markdown(
                "# Attention Explorer\nStep through English→German decoding token by token and look inside every attention "
                f"head. Model: **{shipped.name}**."
            )
            presentation = gr.Checkbox(False, label="Presentation mode (large fonts)", elem_id="presentation", scale=0, min_width=220)
        with gr.Tabs():
            shared = translate_tab.build(ctx)
            overview_tab.build(ctx, shared)
            mask_tab.build(ctx, shared)
            positional_tab.build(ctx, shared)
            ablation_tab.build(ctx, shared)
            train_tab.build(ctx, shared)
            about_tab.build(ctx, shared)

        @guarded
        def set_presentation(on, key):
            ctx.session(key).font_size = PRESENTATION_FONT if on else NORMAL_FONT

        presentation.change(
            set_presentation, [presentation, key], None, api_name="presentation", **PLAIN_EVENT,
            js="(on, key) => { document.body.classList.toggle('presentation', on); return [on, key]; }",
        ).then(*shared["refresh_attention"], api_name=False, **PLAIN_EVENT)  # redraw with the new font size
    return demo
