"""`Blocks`: gr.Blocks whose own checks of the values a request sends name the value they refuse.

Before a handler runs, Gradio checks some inputs itself (an uploaded file's record, how many values came); what
it refuses would reach the person as a bare "Error". Here it becomes a message that names the field and the
value, like every message of the core. Every other check is the core's (the events run with preprocess=False).
"""

from __future__ import annotations

import html

import gradio as gr


class Blocks(gr.Blocks):
    async def preprocess_data(self, block_fn, inputs, state, explicit_call: bool = False):
        try:
            return await super().preprocess_data(block_fn, inputs, state, explicit_call)
        except gr.Error:
            raise
        except Exception as exc:  # noqa: BLE001 - Gradio's own refusal of a value: say which one
            raise gr.Error(
                html.escape(refused_input(block_fn.inputs, inputs, exc), quote=False), print_exception=False
            ) from None


def refused_input(blocks, values, exc: Exception) -> str:
    """A message naming the input Gradio could not take."""
    if not isinstance(values, list) or len(values) != len(blocks):
        sent = len(values) if isinstance(values, list) else "no list of"
        return f"This call sent {sent} values; it takes {sum(not block.stateful for block in blocks)}."
    for block, value in zip(blocks, values):
        if (
            getattr(block, "data_model", None) is not None and value is not None
        ):  # file inputs: what Gradio checks itself
            label = getattr(block, "label", None) or "The file"
            return (
                f"{label}: {str(value)[:80]!r} is not a file uploaded to this server. Upload the file first "
                "(from Python: gradio_client.handle_file(path))."
            )
    return f"The values sent could not be read ({type(exc).__name__})."
