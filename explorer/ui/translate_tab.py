"""The "Translate & step" tab: sentence, decoding controls, token chips, top-k chart and the attention heatmap."""

from __future__ import annotations

import gradio as gr

from ..config import ATTENTION_KINDS
from ..figures import KIND_TITLES
from ..session import HEAD_ALL, HEAD_MEAN, StepView, UserError
from .common import PLAIN_EVENT, Context, guarded, zero_gpu

EXAMPLES = [
    ("I know that he reads a book every day.", "verb-final subordinate clause (dass … liest)"),
    ("The train arrives at eight o'clock.", "separable verb (kommt … an)"),
    ("She calls her mother every evening.", "separable verb (ruft … an)"),
    ("I have seen the big dog in the garden.", "perfect tense: participle at the end"),
    ("We want to buy a new car tomorrow.", "modal verb: infinitive at the end"),
    ("The man gives the woman the book.", "case: dative and accusative"),
    ("The little girl likes her new teacher.", "gender and adjective agreement"),
    ("When I was a child, I often went to school by bus because my parents did not have a car.", "a long sentence"),
]
KIND_CHOICES = [(KIND_TITLES[k], k) for k in ATTENTION_KINDS]


def head_choices(n_heads: int) -> list[tuple[str, str]]:
    return [(f"head {h}", str(h)) for h in range(n_heads)] + [("mean of heads", HEAD_MEAN), ("all heads", HEAD_ALL)]


def attention_or_none(session, kind, layer, head):
    """The heatmap, or None while the chosen kind has nothing to show yet (before the first step)."""
    try:
        return session.attention_figure(kind, layer, head)
    except UserError:
        if session.stepper is not None and kind != "encoder_self" and not session.stepper.current:
            return None
        raise


def step_outputs(view: StepView, session, kind, layer, head):
    return (
        view.source_chips,
        view.target_chips,
        view.status,
        gr.Slider(maximum=max(1, view.max_position), value=view.position, interactive=True),
        view.topk,
        attention_or_none(session, kind, layer, head),
        view.output_text,
    )


def build(ctx: Context):
    shipped = ctx.shipped
    kind0, layer0, head0 = shipped.default_view
    with gr.Tab("Translate & step", id="translate"):
        with gr.Row():
            with gr.Column(scale=3):
                sentence = gr.Textbox(
                    label="English sentence", placeholder="Type an English sentence, or pick an example below", lines=2, elem_id="sentence"
                )
                gr.Examples(
                    [[s] for s, _ in EXAMPLES], inputs=[sentence], example_labels=[f"{label}: {s}" for s, label in EXAMPLES],
                    cache_examples=False, label="Examples that show interesting attention",
                )
            with gr.Column(scale=2):
                with gr.Row():
                    translate_btn = gr.Button("Translate", variant="primary")
                full = gr.Textbox(label="Full translation (greedy)", interactive=False, elem_id="full-translation")
                with gr.Accordion("Decoding strategy and what-if", open=False):
                    strategy = gr.Radio([("greedy", "greedy"), ("sampling", "sample"), ("beam search", "beam")], value="greedy", label="Strategy")
                    with gr.Row():
                        temperature = gr.Slider(0.1, 3.0, value=1.0, step=0.05, label="Temperature (sampling)")
                        top_k = gr.Slider(0, 50, value=0, step=1, label="Top-k (sampling; 0 = off)")
                        seed = gr.Number(0, precision=0, label="Seed (sampling)")
                    with gr.Row():
                        beam_size = gr.Slider(1, 8, value=4, step=1, label="Beam size")
                        alpha = gr.Slider(0.0, 2.0, value=0.6, step=0.1, label="Length penalty α")
                    prefix = gr.Textbox(label="What-if: German prefix to force (optional)", placeholder="e.g. Ich weiß")
        with gr.Row():
            start_btn = gr.Button("Start", variant="primary", elem_id="start-btn")
            prev_btn = gr.Button("◀ Previous", elem_id="prev-btn")
            next_btn = gr.Button("Next token ▶", variant="primary", elem_id="next-btn")
            run_btn = gr.Button("Run to end", elem_id="run-btn")
            reset_btn = gr.Button("Reset", elem_id="reset-btn")
        step_slider = gr.Slider(0, 1, value=0, step=1, label="Step", interactive=True, elem_id="step-slider")
        status = gr.Markdown("Type a sentence and press **Start**.", elem_id="status-md")
        with gr.Row():
            with gr.Column(scale=1):
                source_chips = gr.HighlightedText(
                    label="Source tokens (shaded by cross-attention of the current step)", elem_id="source-chips", elem_classes=["chips"],
                    show_legend=False,
                )
                target_chips = gr.HighlightedText(
                    label="Target so far", color_map={"current": "#D55E00", "forced": "#CC79A7", "start": "#999999", "produced": "#56B4E9"},
                    elem_id="target-chips", elem_classes=["chips"], show_legend=True,
                )
                output_text = gr.Textbox(label="Output so far", interactive=False, elem_id="output-text")
                topk_plot = gr.Plot(label="Next-token distribution", elem_id="topk-plot")
                beams_table = gr.Dataframe(
                    headers=["rank", "translation", "score", "log-prob", "finished"], label="Beams (beam search)", visible=False,
                    interactive=False, elem_id="beams-table",
                )
            with gr.Column(scale=1):
                with gr.Row():
                    kind = gr.Radio(KIND_CHOICES, value=kind0, label="Attention", elem_id="kind-radio")
                with gr.Row():
                    layer = gr.Radio([str(i) for i in range(shipped.config.n_decoder_layers)], value=str(layer0), label="Layer", elem_id="layer-radio")
                    head = gr.Radio(head_choices(shipped.config.n_heads), value=str(head0), label="Head", elem_id="head-radio")
                attention_plot = gr.Plot(label="Attention heatmap", elem_id="attention-plot")
                with gr.Accordion("Export", open=False):
                    gr.Markdown("The figure: the camera icon in the plot's toolbar saves a PNG. All attention tensors of this sentence and step, with tokens:")
                    export_btn = gr.Button("Export attention tensors (.npz)", size="sm", elem_id="export-btn")
                    export_file = gr.File(label="Attention tensors of this sentence and step", interactive=False)

    outputs = [source_chips, target_chips, status, step_slider, topk_plot, attention_plot, output_text]
    view_inputs = [kind, layer, head, ctx.key]

    @guarded
    def start(text, strategy, temperature, top_k, seed, beam_size, alpha, prefix, kind, layer, head, key):
        session = ctx.session(key)
        if strategy == "beam":
            rows, view = session.start_beam(text, beam_size, alpha)
            return (*step_outputs(view, session, kind, layer, head), gr.Dataframe(value=rows, visible=True))
        view = session.start(text, strategy, temperature, top_k, seed, prefix)
        return (*step_outputs(view, session, kind, layer, head), gr.Dataframe(visible=False))

    start_inputs = [sentence, strategy, temperature, top_k, seed, beam_size, alpha, prefix, *view_inputs]
    start_btn.click(start, start_inputs, outputs + [beams_table], api_name="start", **PLAIN_EVENT)
    sentence.submit(start, start_inputs, outputs + [beams_table], api_name=False, **PLAIN_EVENT)

    def action(method):
        @guarded
        def handler(kind, layer, head, key):
            session = ctx.session(key)
            return step_outputs(getattr(session, method)(), session, kind, layer, head)

        handler.__name__ = method
        return handler

    next_btn.click(action("next"), view_inputs, outputs, api_name="next_token", **PLAIN_EVENT)
    prev_btn.click(action("previous"), view_inputs, outputs, api_name="previous", **PLAIN_EVENT)
    run_btn.click(action("run_to_end"), view_inputs, outputs, api_name="run_to_end", **PLAIN_EVENT)
    reset_btn.click(action("reset"), view_inputs, outputs, api_name="reset", **PLAIN_EVENT)

    @guarded
    def seek(position, kind, layer, head, key):
        session = ctx.session(key)
        return step_outputs(session.seek(position), session, kind, layer, head)

    step_slider.release(seek, [step_slider, *view_inputs], outputs, api_name="seek", **PLAIN_EVENT)

    @guarded
    @zero_gpu
    def translate(text, key):
        return ctx.session(key).translate(text)

    translate_btn.click(translate, [sentence, ctx.key], [full], api_name="translate", **PLAIN_EVENT)

    @guarded
    def attention(kind, layer, head, key):
        session = ctx.session(key)
        if session.stepper is None:
            return None
        return attention_or_none(session, kind, layer, head)

    for i, control in enumerate((kind, layer, head)):
        control.input(attention, view_inputs, [attention_plot], api_name="attention" if i == 0 else False, **PLAIN_EVENT)

    @guarded
    def layers_for(kind, key):
        n = ctx.session(key).handle.config.n_layers(kind)
        return gr.Radio([str(i) for i in range(n)])

    kind.input(layers_for, [kind, ctx.key], [layer], api_name=False, **PLAIN_EVENT)

    @guarded
    def export(key):
        return str(ctx.session(key).export_npz())

    export_btn.click(export, [ctx.key], [export_file], api_name="export_npz", **PLAIN_EVENT)
    return {"sentence": sentence, "refresh_attention": (attention, view_inputs, [attention_plot])}
