"""The "Head ablation" tab: switch heads off, re-translate, compare with the full model.

The ticked heads are part of every trace request, so the viewer shows the ablated model until they
are switched back on; re-translating here (or switching all back on) traces the viewer's sentence again, and a head
switched off in the viewer ("Heads that matter") is ticked here (`static/page.js`).
"""

from __future__ import annotations

import re

import gradio as gr

from ..app.figures import KIND_TITLES
from ..interpret.request import UserError
from ..model.config import ATTENTION_KINDS
from .common import PLAIN_EVENT, Context, session_event


def head_labels(n_layers: int, n_heads: int) -> list[str]:
    return [f"L{layer} H{head}" for layer in range(n_layers) for head in range(n_heads)]


def parse_heads(kind: str, labels) -> list[tuple[str, int, int]]:
    """["L0 H1", ...] -> [(kind, 0, 1), ...]; anything else is a UserError naming it."""
    if labels is not None and not isinstance(labels, (list, tuple)):
        raise UserError(f"Heads must be a list like ['L0 H1'] (got {str(labels)[:40]!r}).")
    out = []
    for label in labels or []:
        match = re.fullmatch(r"L(\d{1,4}) H(\d{1,4})", str(label))
        if match is None:
            raise UserError(f"{str(label)[:40]!r} is not a head: heads look like 'L0 H1' (layer 0, head 1).")
        out.append((kind, int(match[1]), int(match[2])))
    return out


def parse_all(encoder_self, decoder_self, cross) -> list[tuple[str, int, int]]:
    return (
        parse_heads("encoder_self", encoder_self)
        + parse_heads("decoder_self", decoder_self)
        + parse_heads("cross", cross)
    )


def build(ctx: Context, tab: dict) -> tuple[list[gr.CheckboxGroup], list]:
    """Lay out the tab; returns its checkbox groups and the events after which the viewer traces the sentence again
    with the heads as ticked (re-translate, switch all back on), so the viewer and this tab agree."""
    config = ctx.shipped.config
    with gr.Tab("Head ablation", id="ablation"):
        gr.Markdown(
            "Switch heads off (their output is zeroed before the output projection) and translate the sentence from "
            "the "
            "first tab again. The heads stay off in the step-through viewer until you switch them back on."
        )
        groups = [
            gr.CheckboxGroup(
                head_labels(config.n_layers(kind), config.n_heads),
                value=[],
                label=KIND_TITLES[kind],
                elem_id=f"ablate-{kind}",
            )
            for kind in ATTENTION_KINDS
        ]
        with gr.Row():
            run_btn = gr.Button("Re-translate with these heads off", variant="primary", elem_id="ablate-btn")
            clear_btn = gr.Button("Switch all heads back on")
        with gr.Row():
            before = gr.Textbox(label="All heads", interactive=False, elem_id="ablate-before")
            after = gr.Textbox(label="With the chosen heads off", interactive=False, elem_id="ablate-after")
        note = gr.Markdown()

    @session_event
    def ablate(text, encoder_self, decoder_self, cross, use_own, session):
        return session.compare_ablation(text, parse_all(encoder_self, decoder_self, cross), use_own)

    run_btn.click(
        ablate,
        [tab["sentence"], *groups, ctx.use_own, ctx.state],
        [before, after, note, ctx.state],
        api_name="ablate",
        api_visibility="private",
        **PLAIN_EVENT,
    )
    cleared = clear_btn.click(
        lambda: ([], [], [], "All heads on."),
        None,
        [*groups, note],
        api_name="clear_ablation",
        api_visibility="private",
        **PLAIN_EVENT,
    )
    return groups, [run_btn.click, cleared.then]
