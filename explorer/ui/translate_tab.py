"""The "Translate & step" tab: the sentence, the step-through viewer, and the decoding options below it (opening
them never pushes the chart below a projector's fold).

The server decodes once per sentence (the viewer asks the plain route `/ae/api/trace`); stepping, switching
kind/layer/head, the all-heads mosaic and the look-ahead mask then happen in the browser (`viewer.py`, `static/`).
"""

from __future__ import annotations

import gradio as gr

from ..app.examples import EXAMPLES, OPENING_EXAMPLE
from ..app.limits import LIMITS
from ..interpret.request import MAX_CHARS
from . import viewer
from .common import Context

STEPS = {"temperature": 0.05, "top_k": 1, "beam_size": 1, "alpha": 0.1}  # a slider's step: the UI's own


def slider(key: str, label: str) -> gr.Slider:
    limit = LIMITS[key]  # the range and default every request is held to (explorer/app/limits.py)
    return gr.Slider(limit.low, limit.high, value=limit.default, step=STEPS[key], label=label, elem_id=f"opt-{key}")


def build(ctx: Context, initial: dict | None) -> dict:
    """Lay out the tab; returns its components (the events are wired in `ui/__init__.py`)."""
    with gr.Tab("Translate & step", id="translate"):
        with gr.Row(equal_height=True):
            sentence = gr.Textbox(
                OPENING_EXAMPLE,
                label="English sentence",
                show_label=False,
                placeholder="Type an English sentence and press Enter",
                lines=1,
                max_lines=3,
                max_length=MAX_CHARS,
                scale=6,
                elem_id="sentence",
                container=False,
            )
            example = gr.Dropdown(
                [(f"{label}: {s}", s) for s, label in EXAMPLES],
                value=None,
                label="Examples",
                show_label=False,
                allow_custom_value=False,
                filterable=False,
                info=None,
                scale=4,
                elem_id="example",
                container=False,
            )
            start_btn = gr.Button(
                "Translate & step", variant="primary", scale=0, min_width=230, elem_id="start-btn", size="md"
            )
        view = viewer.build(initial)
        with gr.Accordion("Decoding strategy and what-if", open=False, elem_id="options"):
            with gr.Row():
                strategy = gr.Radio(
                    [("greedy", "greedy"), ("sampling", "sample"), ("beam search", "beam")],
                    value="greedy",
                    label="Strategy",
                    elem_id="opt-strategy",
                )
                prefix = gr.Textbox(
                    "",
                    label="What-if: German prefix to force (optional)",
                    placeholder="e.g. Ich weiß",
                    elem_id="opt-prefix",
                )
            with gr.Row():
                temperature = slider("temperature", "Temperature (sampling)")
                top_k = slider("top_k", "Top-k (sampling; 0 = off)")
                seed = gr.Number(LIMITS["seed"].default, precision=0, label="Seed (sampling)", elem_id="opt-seed")
                beam_size = slider("beam_size", "Beam size")
                alpha = slider("alpha", "Length penalty α (beam)")
    return {
        "sentence": sentence,
        "example": example,
        "start": start_btn,
        "options": [strategy, temperature, top_k, seed, beam_size, alpha, prefix],
        "viewer": view,
    }
