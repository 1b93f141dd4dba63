"""`Blocks`: gr.Blocks whose own check of a request's values names what it refuses.

Before a handler runs, Gradio checks that a call sent a value for every input; a call that sent too few would hear
a bare "Error" (and leave a traceback in the log). Here it becomes a message that says how many were sent and how
many the event takes, like every message of the core. Every other check is the core's: the events run with
preprocess=False and take no file (the Train tab's file comes through the API, `explorer/app/uploads.py`).
This override is the one place the explorer reaches inside Gradio; `tests/test_gradio_touch_points.py` holds it.
"""

from __future__ import annotations

import gradio as gr


class Blocks(gr.Blocks):
    async def preprocess_data(self, block_fn, inputs, state, explicit_call: bool = False):
        try:
            return await super().preprocess_data(block_fn, inputs, state, explicit_call)
        except gr.Error:
            raise
        except Exception as exc:  # noqa: BLE001 - Gradio's own refusal of the values: say what was wrong
            raise gr.Error(refused_input(block_fn.inputs, inputs, exc), print_exception=False) from None


def refused_input(blocks, values, exc: Exception) -> str:
    """A message saying what Gradio could not take."""
    takes = sum(not block.stateful for block in blocks)
    if not isinstance(values, list) or len(values) < len(blocks):
        sent = len(values) if isinstance(values, list) else "no list of"
        return f"This call sent {sent} values; it takes {takes}."
    return f"The {takes} values sent could not be read ({type(exc).__name__})."
