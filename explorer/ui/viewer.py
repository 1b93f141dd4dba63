"""The step-through viewer as a Gradio component: a `gr.HTML` whose value is the wire trace.

The browser code lives in `static/` (one file per view, see each file's header) and is served from
this package, with plotly.js from the installed plotly package: nothing comes from a CDN, so the
viewer works offline in a lecture hall. `js_on_load` mounts the viewer and hands it two hooks, which
raise this component's events: `submit` (force a candidate: a new trace), `click` (.npz export) and `select`
(a question about the trace, answered into `build_answers()`'s component).
"""

from __future__ import annotations

import json
from pathlib import Path

import gradio as gr
import plotly

from ..app.figures import NORMAL_FONT, PRESENTATION_FONT

STATIC = Path(__file__).parent / "static"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
SCRIPTS = [  # load order: each file may use what the ones before it define
    "trace.js",
    "plot.js",
    "heatmap.js",
    "mosaic.js",
    "headview.js",
    "compare.js",
    "quiz.js",
    "mask.js",
    "topk.js",
    "chips.js",
    "keys.js",
    "link.js",
    "export.js",
    "ask.js",
    "explain.js",
    "heads.js",
    "attribution.js",
    "beamtree.js",
    "panels.js",
    "viewer.js",
]

JS_ON_LOAD = """
const viewer = AttentionExplorer.mount(element.querySelector('.ae-root'), {
  forceTokens: (request) => trigger('submit', {request: request}),
  exportNpz: (request, step) => trigger('click', {request: request, step: step}),
  ask: (request, question) => trigger('select', {request: request, question: question}),
});
viewer.load(props.value);
watch('value', () => viewer.load(props.value));
"""


def url(path: Path) -> str:
    return f"gradio_api/file={path.resolve()}"


def static_paths() -> list[Path]:
    """What the app must serve for the viewer (passed to gr.set_static_paths before launch)."""
    return [STATIC, PLOTLY_JS]


def settings() -> dict:
    """What the browser code takes from the server before it runs: the scripts' load order (for the HTML
    export) and the font sizes the server's figures use too."""
    return {"SOURCES": SCRIPTS, "FONT": {"normal": NORMAL_FONT, "presentation": PRESENTATION_FONT}}


def head() -> str:
    tags = [
        f"<script>window.AttentionExplorer = {json.dumps(settings())};</script>",
        f'<link rel="stylesheet" href="{url(STATIC / "viewer.css")}">',
        f'<script src="{url(PLOTLY_JS)}"></script>',
    ]
    tags += [f'<script src="{url(STATIC / name)}"></script>' for name in SCRIPTS]
    return "\n".join(tags)


def build(initial: dict | None) -> gr.HTML:
    return gr.HTML(
        value=initial,
        html_template="<div class='ae-root'></div>",
        js_on_load=JS_ON_LOAD,
        head=head(),
        apply_default_css=False,
        container=False,
        elem_id="viewer",
        padding=False,
    )


ANSWERS_ON_LOAD = "watch('value', () => { if (window.aeViewer && props.value) window.aeViewer.receive(props.value); });"


def build_answers() -> gr.HTML:
    """Where the server's answers to the viewer's questions arrive: never shown, its script hands them on."""
    return gr.HTML(
        value=None,
        html_template="<div class='ae-answers'></div>",
        js_on_load=ANSWERS_ON_LOAD,
        apply_default_css=False,
        container=False,
        elem_id="viewer-answers",
        padding=False,
    )
