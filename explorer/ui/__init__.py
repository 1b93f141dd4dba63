"""The Gradio UI: `build_demo` lays out the tabs and wires them to the gradio-free core."""

from __future__ import annotations

from dataclasses import fields

import gradio as gr

from ..handle import ModelHandle
from ..inputs import TraceRequest, UserError, parse_link, parse_request
from ..session import ExplorerSession
from ..sessions import SessionStore, new_key
from ..trace_cache import TraceCache
from . import ablation_tab, about_tab, positional_tab, train_tab, translate_tab, viewer
from .common import CSS, NORMAL_FONT, PLAIN_EVENT, PRESENTATION_FONT, THEME, Context, guarded, zero_gpu

__all__ = ["build_demo", "CSS", "THEME", "static_paths"]
static_paths = viewer.static_paths


def build_demo(shipped: ModelHandle, store: SessionStore | None = None, cache: TraceCache | None = None) -> gr.Blocks:
    cache = cache or TraceCache()
    store = store or SessionStore(lambda: ExplorerSession(shipped, cache))
    opening = ExplorerSession(shipped, cache).trace(parse_request(translate_tab.OPENING_EXAMPLE))
    with gr.Blocks(title="Attention Explorer", analytics_enabled=False) as demo:
        key = gr.State(new_key)
        ctx = Context(store, shipped, key)
        with gr.Row(elem_id="header"):
            gr.Markdown(
                f"**Attention Explorer** · step through English→German decoding and look inside every attention head · "
                f"model: **{shipped.name}**"
            )
            presentation = gr.Checkbox(False, label="Presentation mode", elem_id="presentation", scale=0, min_width=190, container=False)
        with gr.Tabs():
            tab = translate_tab.build(ctx, opening)
            positional_tab.build(ctx)
            heads = ablation_tab.build(ctx, tab)
            train_tab.build(ctx)
            about_tab.build(ctx)
        demo.load(*wire_trace(ctx, tab, heads), api_name=False, **PLAIN_EVENT)  # a deep link decodes its sentence

        @guarded
        def set_presentation(on, key):
            ctx.session(key).font_size = PRESENTATION_FONT if on else NORMAL_FONT

        presentation.change(
            set_presentation, [presentation, key], None, api_name="presentation", **PLAIN_EVENT,
            js="(on, key) => { document.body.classList.toggle('presentation', on); return [on, key]; }",
        )
    return demo


def wire_trace(ctx: Context, tab: dict, heads: list) -> tuple:
    """Every way to ask for a new trace: Start, Enter, an example, a forced candidate; the .npz; returns the deep-link loader."""
    sentence, options, view = tab["sentence"], tab["options"], tab["viewer"]

    @guarded
    def trace(sentence, strategy, temperature, top_k, seed, beam_size, alpha, prefix, ablate_encoder_self, ablate_decoder_self, ablate_cross, key):
        ablation = ablation_tab.parse_all(ablate_encoder_self, ablate_decoder_self, ablate_cross)
        request = parse_request(sentence, strategy, temperature, top_k, seed, beam_size, alpha, prefix, ablation=ablation)
        return ctx.session(key).trace(request)

    inputs = [sentence, *options, *heads, ctx.key]
    tab["start"].click(trace, inputs, [view], api_name="trace", **PLAIN_EVENT)
    sentence.submit(trace, inputs, [view], api_name=False, **PLAIN_EVENT)
    tab["example"].input(lambda s: s, [tab["example"]], [sentence], api_name=False, queue=False).then(
        trace, inputs, [view], api_name=False, **PLAIN_EVENT
    )

    @guarded
    @zero_gpu
    def translate(text, key):
        return ctx.session(key).translate(text)

    # a one-shot greedy translation for API users (the viewer shows the translation of every trace)
    gr.on(None, translate, [sentence, ctx.key], [tab["full"]], api_name="translate", **PLAIN_EVENT)

    @guarded
    def force(key, evt: gr.EventData):
        return ctx.session(key).trace(_request_of(evt))

    view.submit(force, [ctx.key], [view], api_name=False, **PLAIN_EVENT)

    @guarded
    def export_npz(key, evt: gr.EventData):
        path = ctx.session(key).export_npz(_request_of(evt), evt._data.get("step", 0))
        return gr.File(str(path), visible=True)

    view.click(export_npz, [ctx.key], [tab["npz_file"]], api_name=False, **PLAIN_EVENT)

    @guarded
    def open_link(key, request: gr.Request):
        linked = parse_link(dict(request.query_params))
        if linked is None:
            return [gr.skip()] * (len(options) + len(heads) + 2)
        values = [linked.strategy, linked.temperature, linked.top_k, linked.seed, linked.beam_size, linked.alpha, linked.prefix]
        groups = ablation_tab.groups_of(linked.ablation)
        return [linked.sentence, *values, *groups, ctx.session(key).trace(linked)]

    return open_link, [ctx.key], [sentence, *options, *heads, view]


def _request_of(evt: gr.EventData):
    data = evt._data if isinstance(evt._data, dict) else {}
    request = data.get("request")
    if not isinstance(request, dict):
        raise UserError("The viewer sent no request: reload the page.")
    return parse_request(**{f.name: request[f.name] for f in fields(TraceRequest) if f.name in request})
