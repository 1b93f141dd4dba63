"""The "Head ablation" tab: switch heads off, re-translate, compare with the full model.

The tab is drawn by the browser (`static/ablation.js`) from the trace on screen: a box per head of the model whose
attention is shown, ticked where that trace has the head switched off. Re-translating traces the viewer's sentence
again with the ticked heads off, through the same API as every trace, and shows the translation with all heads beside
it; the heads stay off in the step-through viewer until they are switched back on. A head switched off in the viewer
("Heads that matter") is ticked here, because both read the one trace.
"""

from __future__ import annotations

import gradio as gr

from .common import browser_drawn
from .viewer import tab_on_load

JS_ON_LOAD = tab_on_load("ablation", ".ae-ablation")


def build() -> None:
    """Lay out the tab: the explanation, and the browser's boxes, buttons and translations."""
    with gr.Tab("Head ablation", id="ablation"):
        gr.Markdown(
            "Switch heads off (their output is zeroed before the output projection) and translate the sentence on "
            "screen again. The heads stay off in the step-through viewer, for the next sentences too, until you "
            "switch them back on."
        )
        browser_drawn("<div class='ae-ablation ae-viewer'></div>", JS_ON_LOAD, "ablation")
