"""The Gradio UI: `build_demo` lays out the tabs and wires them to the gradio-free core; `server.build_app` serves it.

May import every other folder; the only place besides `app.py` that imports gradio (browser code: `static/`).
"""

from __future__ import annotations

import html

import gradio as gr

from ..app.models import ModelRegistry
from ..app.schemas import SHIPPED, TraceQuery, validate
from ..app.session import SESSION_IDLE_S, USE_OWN_LABEL, ExplorerSession
from ..app.trace_cache import TraceCache
from ..interpret.handle import ModelHandle
from . import ablation_tab, about_tab, positional_tab, train_tab, translate_tab, viewer
from .common import PLAIN_EVENT, Context, session_event

__all__ = ["build_demo", "FILES_MAX_AGE_S"]

FILES_MAX_AGE_S = (
    3600  # files Gradio serves (exports, trained zips, uploads) are deleted this long after they were made
)


def header_html(model_name: str) -> str:
    """One line: the app, what it does (hidden in presentation mode), and the model on screen; the viewer keeps
    `.ae-model-name` naming the model of the trace it shows (the shipped one, or the one trained here)."""
    return (
        "<div class='ae-title'><b>Attention Explorer</b><span class='ae-tagline'> · step through English→German "
        "decoding and look inside every attention head</span> · model: "
        f"<b class='ae-model-name'>{html.escape(model_name)}</b></div>"
    )


def build_demo(
    shipped: ModelHandle,
    cache: TraceCache | None = None,
    idle_s: float = SESSION_IDLE_S,
    files_max_age_s: float = FILES_MAX_AGE_S,
    models: ModelRegistry | None = None,
) -> gr.Blocks:
    """The app. Each browser session's `ExplorerSession` lives in a `gr.State`: Gradio makes it (a deep copy of a
    blank one) on the session's first event, deletes it `idle_s` after its last one (an hour after the tab closed
    at the latest) and then calls its `close`. Files Gradio hands out are deleted `files_max_age_s` after they were
    made. The page carries the opening example's trace; a page load sends no Gradio event."""
    models = models if models is not None else ModelRegistry(shipped, cache)
    blank = ExplorerSession(shipped, models.cache, idle_s, models)
    opening = models.trace(shipped, validate(TraceQuery, {"sentence": translate_tab.OPENING_EXAMPLE}).to_request())
    every = max(1, int(min(files_max_age_s, 600)))
    with gr.Blocks(
        title="Attention Explorer", analytics_enabled=False, delete_cache=(every, int(files_max_age_s))
    ) as demo:
        state = gr.State(blank, time_to_live=idle_s, delete_callback=ExplorerSession.close)
        served = models.listing()
        with gr.Row(elem_id="header"):
            gr.HTML(header_html(shipped.name), elem_id="title", container=False, padding=False)
            model = gr.Radio(  # one click to the other shipped model: the same sentence, traced with it
                [(m.name, m.key) for m in served],
                value=models.default_key,
                label="Model",
                show_label=False,
                container=False,
                scale=0,
                min_width=160,
                elem_id="opt-model",
                visible=len(served) > 1,
            )
            presentation = gr.Checkbox(
                False, label="Presentation mode", elem_id="presentation", scale=0, min_width=190, container=False
            )
        use_own = gr.Checkbox(False, label=USE_OWN_LABEL, elem_id="use-own", render=False)
        ctx = Context(shipped, state, use_own, presentation)
        with gr.Tabs():
            tab = translate_tab.build(ctx, opening)
            positional_tab.build(ctx)
            ablation_tab.build()
            train_tab.build(ctx)
            about_tab.build(ctx, models.served)
        form = wire_trace(demo, ctx, tab, model, models)
        # a deep link fills the form in the browser (its trace comes from the plain route): no server event
        demo.load(None, form, form, js=viewer.FORM_FROM_LINK_JS, api_name=False, queue=False)
        presentation.change(
            None,
            [presentation],
            None,
            api_name=False,
            queue=False,
            js="(on) => { document.body.classList.toggle('presentation', on); return [on]; }",
        )
    return demo


def wire_trace(demo: gr.Blocks, ctx: Context, tab: dict, model: gr.Radio, models: ModelRegistry) -> list:
    """Every way to ask for a new trace from the page: Start, Enter, an example, a shipped model chosen (the viewer
    fetches the trace from the API, `/ae/api/trace`), and the trained model chosen. Returns the form's fields, in
    `viewer.FORM` order."""
    sentence, options, view = tab["sentence"], tab["options"], tab["viewer"]
    form = [sentence, *options, model, ctx.use_own]
    assert [c.elem_id for c in form[1:9]] == [f"opt-{name}" for name in viewer.FORM[1:9]]
    client = {"api_name": False, "queue": False, "js": viewer.TRANSLATE_JS}
    tab["start"].click(None, form, None, **client)
    sentence.submit(None, form, None, **client)
    model.input(None, form, None, **client)
    tab["example"].input(None, [tab["example"]], [sentence], api_name=False, queue=False, js="(s) => s").then(
        None, form, None, **client
    )
    # the Examples box names the example only while the sentence box holds it (issue 50: it kept the last one picked)
    sentence.input(
        None, [sentence, tab["example"]], [tab["example"]], api_name=False, queue=False, js=viewer.EXAMPLE_AGREES_JS
    )

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
        model,
        use_own,
        session,
    ):  # another model has other heads: none is switched off in its first trace
        values = dict(sentence=sentence, strategy=strategy, temperature=temperature, top_k=top_k, seed=seed)
        values |= dict(beam_size=beam_size, alpha=alpha, prefix=prefix or "", model=model or SHIPPED)
        query = validate(TraceQuery, {k: v for k, v in values.items() if v is not None})
        if use_own:
            return session.trace(query.to_request(), use_own)
        return models.trace(models.get(query.model), query.to_request())

    # choosing the model re-traces the sentence with it: the viewer learns the trained model's key from that trace
    ctx.use_own.input(trace, [*form, ctx.state], [view, ctx.state], api_visibility="private", **PLAIN_EVENT)
    return form
