"""The Gradio UI: `build_demo` lays out the tabs and wires them to the gradio-free core; `launch_options` serves it.

May import every other folder; the only place besides `app.py` that imports gradio (browser code: `static/`).
"""

from __future__ import annotations

from dataclasses import fields

import gradio as gr
from starlette.middleware import Middleware

from ..app import markdown
from ..app.session import SESSION_IDLE_S, USE_OWN_LABEL, ExplorerSession
from ..app.trace_cache import TraceCache
from ..app.training_job import MAX_UPLOAD_BYTES
from ..interpret.handle import ModelHandle
from ..interpret.inputs import TraceRequest, UserError, parse_link, parse_request
from . import ablation_tab, about_tab, positional_tab, train_tab, translate_tab, viewer
from .app_blocks import Blocks
from .body_limit import BodyLimit
from .common import CSS, GENERIC_ERROR, PLAIN_EVENT, PROBE_EVENT, THEME, Context, log, session_event, zero_gpu

__all__ = ["build_demo", "launch_options", "static_paths"]
static_paths = viewer.static_paths

FILES_MAX_AGE_S = (
    3600  # files Gradio serves (exports, trained zips, uploads) are deleted this long after they were made
)
# browser sessions whose Gradio state (~0.18 MB each) the server keeps; the least recently active beyond are dropped
SESSION_CAPACITY = 3000


def build_demo(
    shipped: ModelHandle,
    cache: TraceCache | None = None,
    idle_s: float = SESSION_IDLE_S,
    files_max_age_s: float = FILES_MAX_AGE_S,
) -> gr.Blocks:
    """The app. Each browser session's `ExplorerSession` lives in a `gr.State`: Gradio makes it (a deep copy of a
    blank one) on the session's first event, deletes it `idle_s` after its last one (an hour after the tab closed
    at the latest) and then calls its `close`. Files Gradio hands out are deleted `files_max_age_s` after they were
    made."""
    blank = ExplorerSession(shipped, cache or TraceCache(), idle_s)
    opening = blank.trace(parse_request(translate_tab.OPENING_EXAMPLE))
    every = max(1, int(min(files_max_age_s, 600)))
    with Blocks(
        title="Attention Explorer", analytics_enabled=False, delete_cache=(every, int(files_max_age_s))
    ) as demo:
        state = gr.State(blank, time_to_live=idle_s, delete_callback=ExplorerSession.close)
        with gr.Row(elem_id="header"):
            gr.Markdown(
                f"**Attention Explorer** · step through English→German decoding and look inside every attention head · "
                f"model: **{markdown.escape(shipped.name)}**",
                latex_delimiters=[],
            )
            presentation = gr.Checkbox(
                False, label="Presentation mode", elem_id="presentation", scale=0, min_width=190, container=False
            )
        use_own = gr.Checkbox(False, label=USE_OWN_LABEL, elem_id="use-own", render=False)
        ctx = Context(shipped, state, use_own, presentation)
        with gr.Tabs():
            tab = translate_tab.build(ctx, opening)
            positional_tab.build(ctx)
            heads = ablation_tab.build(ctx, tab)
            train_tab.build(ctx)
            about_tab.build(ctx)
        demo.load(*wire_trace(ctx, tab, heads), api_name=False, **PLAIN_EVENT)  # a deep link decodes its sentence
        presentation.change(
            None,
            [presentation],
            None,
            api_name=False,
            queue=False,
            js="(on) => { document.body.classList.toggle('presentation', on); return [on]; }",
        )
    return demo


def launch_options() -> dict:
    """Keyword arguments of `demo.launch` that belong to the app: theme, limits, error display, session capacity."""
    return dict(
        theme=THEME,
        css=CSS,
        footer_links=["gradio"],
        show_error=False,
        ssr_mode=False,
        max_file_size=MAX_UPLOAD_BYTES,
        state_session_capacity=SESSION_CAPACITY,
        app_kwargs={"middleware": [Middleware(BodyLimit, upload_bytes=MAX_UPLOAD_BYTES)]},
    )


def wire_trace(ctx: Context, tab: dict, heads: list) -> tuple:
    """Every way to ask for a new trace (Start, Enter, an example, a forced candidate) and the .npz export;
    returns the deep-link loader."""
    sentence, options, view = tab["sentence"], tab["options"], tab["viewer"]

    @session_event
    def trace(
        sentence,
        strategy,
        temperature,
        top_k,
        seed,
        beam_size,
        alpha,
        prefix,
        ablate_encoder_self,
        ablate_decoder_self,
        ablate_cross,
        use_own,
        session,
    ):
        ablation = ablation_tab.parse_all(ablate_encoder_self, ablate_decoder_self, ablate_cross)
        request = parse_request(
            sentence, strategy, temperature, top_k, seed, beam_size, alpha, prefix, ablation=ablation
        )
        return session.trace(request, use_own)

    inputs, outputs = [sentence, *options, *heads, ctx.use_own, ctx.state], [view, ctx.state]
    tab["start"].click(trace, inputs, outputs, api_name="trace", **PLAIN_EVENT)
    sentence.submit(trace, inputs, outputs, api_name=False, **PLAIN_EVENT)
    tab["example"].input(lambda s: s, [tab["example"]], [sentence], api_name=False, queue=False).then(
        trace, inputs, outputs, api_name=False, **PLAIN_EVENT
    )

    @session_event
    @zero_gpu
    def translate(text, use_own, session):
        return session.translate(text, use_own=use_own)

    # a one-shot greedy translation for API users; no UI event triggers it
    tab["translate"].click(
        translate, [sentence, ctx.use_own, ctx.state], [tab["full"], ctx.state], api_name="translate", **PLAIN_EVENT
    )

    @session_event
    def force(use_own, session, evt: gr.EventData):
        return session.trace(_request_of(evt), use_own)

    view.submit(force, [ctx.use_own, ctx.state], outputs, api_name=False, **PLAIN_EVENT)

    @session_event
    def export_npz(use_own, session, evt: gr.EventData):
        path = session.export_npz(_request_of(evt), evt._data.get("step", 0), use_own)
        return gr.File(str(path), visible=True)

    view.click(export_npz, [ctx.use_own, ctx.state], [tab["npz_file"], ctx.state], api_name=False, **PLAIN_EVENT)

    @session_event
    def ask(use_own, session, evt: gr.EventData):
        question = evt._data.get("question") if isinstance(evt._data, dict) else None
        asked = question if isinstance(question, dict) else {}
        try:
            return session.probe(_request_of(evt), question, use_own)
        except UserError as exc:  # the panel that asked shows the message
            return {"what": asked.get("what"), "id": asked.get("id"), "error": str(exc)}
        except Exception:  # a bug: logged, and the panel stops waiting
            log.exception("the viewer's question %r failed", asked.get("what"))
            return {"what": asked.get("what"), "id": asked.get("id"), "error": GENERIC_ERROR}

    view.select(ask, [ctx.use_own, ctx.state], [tab["answers"], ctx.state], api_name=False, **PROBE_EVENT)

    @session_event
    def open_link(session, request: gr.Request):
        linked = parse_link(dict(request.query_params))
        if linked is None:
            return tuple([gr.skip()] * (len(options) + len(heads) + 2))
        values = [
            linked.strategy,
            linked.temperature,
            linked.top_k,
            linked.seed,
            linked.beam_size,
            linked.alpha,
            linked.prefix,
        ]
        groups = ablation_tab.groups_of(linked.ablation)
        return (linked.sentence, *values, *groups, session.trace(linked))

    return open_link, [ctx.state], [sentence, *options, *heads, view, ctx.state]


def _request_of(evt: gr.EventData):
    data = evt._data if isinstance(evt._data, dict) else {}
    request = data.get("request")
    if not isinstance(request, dict):
        raise UserError("The viewer sent no request: reload the page.")
    return parse_request(**{f.name: request[f.name] for f in fields(TraceRequest) if f.name in request})
