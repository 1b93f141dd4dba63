"""The "Translate & step" tab: the sentence, the step-through viewer, and the decoding options below it (opening
them never pushes the chart below a projector's fold).

The server decodes once per sentence (the viewer asks the plain route `/ae/api/trace`); stepping, switching
kind/layer/head, the all-heads mosaic and the look-ahead mask then happen in the browser (`viewer.py`, `static/`).
"""

from __future__ import annotations

import gradio as gr

from ..app.examples import EXAMPLES, OPENING_EXAMPLE
from ..interpret.request import LIMITS, MAX_CHARS, READS, TraceRequest
from . import viewer
from .common import Context

STRATEGY_NAMES = {"greedy": "greedy", "sample": "sampling", "beam": "beam search"}
SLIDER_MAX_STEPS = 1000  # a wider integer range (the seed's) is a number box


def option(name: str) -> gr.Slider | gr.Number:
    """The input of one of the request's number options: its range, default and title are the field's
    (`explorer.interpret.request.TraceRequest`), its label says which strategy reads it."""
    limit, field = LIMITS[name], TraceRequest.model_fields[name]
    which = next(STRATEGY_NAMES[strategy] for strategy, names in READS.items() if name in names)
    label = f"{field.title} ({which}{'; ' + field.description if field.description else ''})"
    integer = isinstance(limit.default, int)
    if integer and limit.high - limit.low > SLIDER_MAX_STEPS:
        return gr.Number(
            limit.default, precision=0, minimum=limit.low, maximum=limit.high, label=label, elem_id=f"opt-{name}"
        )
    step = 1 if integer else 0.05
    return gr.Slider(limit.low, limit.high, value=limit.default, step=step, label=label, elem_id=f"opt-{name}")


def build(ctx: Context, initial: dict | None) -> dict:
    """Lay out the tab; returns its components (the events are wired in `ui/__init__.py`)."""
    with gr.Tab("Translate & step", id="translate"):
        with gr.Row(equal_height=True):
            sentence = gr.Textbox(
                OPENING_EXAMPLE,
                label=f"{ctx.shipped.languages.source_name} sentence",
                show_label=False,
                placeholder=f"Type a sentence in {ctx.shipped.languages.source_name} and press Enter",
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
                    [(label, value) for value, label in STRATEGY_NAMES.items()],
                    value="greedy",
                    label="Strategy",
                    elem_id="opt-strategy",
                )
                prefix = gr.Textbox(
                    "",
                    label="What-if: the translation's first words, forced (optional)",
                    placeholder="e.g. Ich weiß" if ctx.shipped.languages.target == "de" else "the first words",
                    elem_id="opt-prefix",
                )
            with gr.Row():
                numbers = [option(name) for name in LIMITS]  # every number option of the request, in its order
    return {
        "sentence": sentence,
        "example": example,
        "start": start_btn,
        "options": [strategy, *numbers, prefix],
        "viewer": view,
    }
