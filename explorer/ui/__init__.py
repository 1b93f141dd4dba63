"""The Gradio UI: `build_demo` lays out the tabs and wires them to the gradio-free core; `mount` puts the page on an
ASGI app, which `explorer.server` serves.

May import every folder below it; the only place besides `app.py` that imports gradio (browser code: `static/`).
"""

from __future__ import annotations

import asyncio
import html
import json

import gradio as gr

from ..app.callers import SERVER
from ..app.models import ModelRegistry
from ..app.questions import Ask
from ..app.questions.beam_tree import BeamTree
from ..app.schemas import trace_request
from ..interpret.handle import ModelHandle
from . import ablation_tab, about_tab, positional_tab, train_tab, translate_tab, viewer
from .common import CSS, THEME, USE_OWN_LABEL, Context

__all__ = ["Page", "build_demo", "mount", "viewer"]
Page = gr.Blocks  # the page `build_demo` lays out


def header_html(model_name: str, languages: str) -> str:
    """One line: the app, what it does (hidden in presentation mode), and the model on screen; the viewer keeps
    `.ae-model-name` and `.ae-languages` naming the model of the trace it shows and its language pair."""
    return (
        "<div class='ae-title'><b>Attention Explorer</b><span class='ae-tagline'> · step through "
        f"<span class='ae-languages'>{html.escape(languages)}</span> decoding and look inside every attention "
        f"head</span> · model: <b class='ae-model-name'>{html.escape(model_name)}</b></div>"
    )


async def opening_trace(models: ModelRegistry, shipped: ModelHandle) -> dict:
    """The opening example's wire trace with the answers its first drawing asks for (`answers`, by the question's
    key as the browser writes it): what beam search writes, for the line under the greedy output (beamline.js), so a
    first visit sends no request."""
    request = trace_request(translate_tab.OPENING_EXAMPLE)
    wire = (await models.atraced(shipped, request, SERVER)).wire
    question = BeamTree().model_dump()  # beamtree.js's QUESTION; its key is the question as JSON.stringify writes it
    asked = Ask.model_validate({"trace": request.model_dump(), "question": question})
    beam, _ = await models.aanswered(asked, SERVER)
    return wire | {"answers": {json.dumps(question, separators=(",", ":")): beam.model_dump(mode="json")}}


def build_demo(shipped: ModelHandle, models: ModelRegistry | None = None) -> gr.Blocks:
    """The page. Gradio lays it out; every event of it runs in the browser, which asks the API (`/ae/api`) for what
    it shows: no event runs on the server, so the app has no Gradio session or state. The page carries the opening
    example's trace, asked in the model line as the server's own (before the server's event loop runs)."""
    models = models if models is not None else ModelRegistry(shipped)
    opening = asyncio.run(opening_trace(models, shipped))
    with gr.Blocks(title="Attention Explorer", analytics_enabled=False) as demo:
        served = models.listing()
        with gr.Row(elem_id="header"):
            gr.HTML(header_html(shipped.name, shipped.languages.label), elem_id="title", container=False, padding=False)
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
        ctx = Context(shipped, use_own, presentation)
        with gr.Tabs():
            tab = translate_tab.build(ctx, opening)
            positional_tab.build(ctx)
            ablation_tab.build()
            train_tab.build(ctx)
            about_tab.build(ctx, models.served)
        form = wire_trace(ctx, tab, model)
        # a deep link fills the form in the browser (its trace comes from the plain route): no server event
        demo.load(None, form, form, js=viewer.form_js("formFromLink", form, answers=True), api_name=False, queue=False)
        presentation.change(
            None,
            [presentation],
            None,
            api_name=False,
            queue=False,
            js="(on) => { document.body.classList.toggle('presentation', on); return [on]; }",
        )
    return demo


def wire_trace(ctx: Context, tab: dict, model: gr.Radio) -> list:
    """Every way to ask for a new trace from the page: Start, Enter, an example, a shipped model chosen, the trained
    model chosen (the viewer fetches the trace from the API, `/ae/api/trace`). Returns the form's fields; the browser
    reads each by its name (`viewer.form_js`)."""
    sentence, options = tab["sentence"], tab["options"]
    form = [sentence, *options, model, ctx.use_own]
    client = {"api_name": False, "queue": False, "js": viewer.form_js("translateForm", form)}
    tab["start"].click(None, form, None, **client)
    sentence.submit(None, form, None, **client)
    model.input(None, form, None, **client)
    ctx.use_own.input(None, form, None, **client)
    tab["example"].input(None, [tab["example"]], [sentence], api_name=False, queue=False, js="(s) => s").then(
        None, form, None, **client
    )
    # the Examples box names the example only while the sentence box holds it (issue 50: it kept the last one picked)
    sentence.input(
        None, [sentence, tab["example"]], [tab["example"]], api_name=False, queue=False, js=viewer.EXAMPLE_AGREES_JS
    )
    return form


def mount(app, page: Page, head: str):
    """`app` with `page` at `/` (Gradio's own routes: the page, its config and front end), our theme, CSS and `head`."""
    return gr.mount_gradio_app(
        app, page, path="/", theme=THEME, css=CSS, head=head, footer_links=["gradio"], show_error=False, ssr_mode=False
    )
