"""The step-through viewer as a Gradio component: a `gr.HTML` whose value is the opening wire trace.

The browser code lives in `static/`: ES modules, one job each (see each file's header), around one store of the
view state. It ships as one script, `static/dist/viewer.js`, which esbuild builds from `main.js` (`npm run build` in
`static/`; the built file is committed, so the app needs no Node, and a test holds it to the modules) and one
stylesheet, named by their content hash and served from memory by the middleware (`middleware.py`); plotly.js
comes from the installed plotly package, only when a view that draws with it opens. Nothing comes from a CDN,
so the viewer works offline in a lecture hall. The viewer asks the server through the plain routes of
`explorer.app.http_api` (fetch, promises), never through Gradio events.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import gradio as gr
import plotly

from ..app.callers import CLIENT_HEADER
from ..app.figures import NORMAL_FONT, PRESENTATION_FONT
from ..app.http_api import PREFIX
from ..interpret.request import LIMITS, fields
from .common import browser_drawn

STATIC = Path(__file__).parent / "static"
BUILT = STATIC / "dist" / "viewer.js"  # esbuild's bundle of STATIC/main.js and what it imports
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

# the value is the opening trace, set once with the page: every later trace comes from the API (no Gradio event)
JS_ON_LOAD = "AttentionExplorer.mount(element.querySelector('.ae-root')).load(props.value);"
EXAMPLE_AGREES_JS = "(sentence, example) => window.AttentionExplorer.exampleAgrees(sentence, example)"
ASSETS = "/ae/static/"  # the bundle's URL prefix (kept by the middleware)
PLOTLY_URL = f"/ae/vendor/plotly-{plotly.__version__}/"  # plotly's package_data folder, versioned


def _hashed(name: str, data: bytes) -> str:
    stem, ext = name.rsplit(".", 1)
    return f"{ASSETS}{stem}.{hashlib.blake2b(data, digest_size=6).hexdigest()}.{ext}"


def bundle() -> dict[str, tuple[bytes, str]]:
    """The viewer's files as the middleware serves them: URL -> (bytes, content type); names carry a hash."""
    js = BUILT.read_bytes()
    css = (STATIC / "viewer.css").read_bytes()
    return {_hashed("viewer.js", js): (js, "application/javascript"), _hashed("viewer.css", css): (css, "text/css")}


BUNDLE = bundle()
SCRIPT_URL, STYLE_URL = list(BUNDLE)


def settings(timelapse: dict | None = None, models: list[dict] | None = None) -> dict:
    """What the browser code takes from the server before it runs: where it asks and fetches (the API, the
    bundle and plotly.js, for the HTML export too), the trace request's fields with their defaults and the limits
    of its numbers, the models served to everyone
    (`GET /ae/api/models`, the default first), which sentences have a training time-lapse, and the font sizes the
    server's figures use too."""
    return {
        "TIMELAPSE": timelapse or {"sentences": [], "steps": []},
        "MODELS": models or [],
        "API": PREFIX,
        "CLIENT_HEADER": CLIENT_HEADER,
        "ASSETS": {"bundle": SCRIPT_URL, "css": STYLE_URL, "plotly": PLOTLY_URL + PLOTLY_JS.name},
        "REQUEST": fields(),
        "LIMITS": {key: [limit.low, limit.high] for key, limit in LIMITS.items()},
        "FONT": {"normal": NORMAL_FONT, "presentation": PRESENTATION_FONT},
    }


def head(timelapse: dict | None = None, models: list[dict] | None = None) -> str:
    """The page's head (`mount_gradio_app(head=...)`): the settings, the stylesheet and the bundle, loaded before
    Gradio's app runs its first events and mounts the viewer."""
    # "<" escaped: a sentence from a checkpoint's time-lapse can never close the script element
    values = json.dumps(settings(timelapse, models)).replace("<", "\\u003c")
    return "\n".join(
        [
            # `ready`: resolved by the bundle once it has run (main.js), which the page's own scripts wait for
            # two globals: the server's settings, read once by the bundle (settings.js), and the page's entry points
            f"<script>window.AttentionExplorerSettings = {values}; window.AttentionExplorer = {{}}; "
            "AttentionExplorer.ready = new Promise((resolve) => { AttentionExplorer.loaded = resolve; });</script>",
            f'<link rel="stylesheet" href="{STYLE_URL}">',
            f'<script src="{SCRIPT_URL}"></script>',
        ]
    )


def _named(components: list, prefix: str) -> str:
    """A browser expression of an event's `values` as an object by name: each component's `elem_id` without `prefix`,
    dashes as underscores (the trace request's field names, for the Translate tab)."""
    names = json.dumps([c.elem_id.removeprefix(prefix).replace("-", "_") for c in components])
    return f"Object.fromEntries({names}.map((name, i) => [name, values[i]]))"


def form_js(function: str, components: list, answers: bool = False) -> str:
    """A browser event's `js` that hands `AttentionExplorer.<function>` the components' values by name (their
    `elem_id`, without `opt-`: the trace request's field names), and, with `answers`, returns the values it answers
    by name, in the components' order (Gradio hands an event's values and takes its outputs by position)."""
    call = f"window.AttentionExplorer.{function}({_named(components, 'opt-')})"
    if not answers:
        return f"(...values) => {{ {call}; }}"
    names = json.dumps([c.elem_id.removeprefix("opt-").replace("-", "_") for c in components])
    answered = f"{{ const form = {call}; return {names}.map((name) => form[name]); }}"
    return f"(...values) => window.AttentionExplorer.ready.then(() => {answered})"


def tab_on_load(tab: str, selector: str) -> str:
    """A tab's gr.HTML `js_on_load`: the browser's tab `tab` (static/tabs.js) drawn in the element `selector`."""
    return f"AttentionExplorer.mountTab({json.dumps(tab)}, element.querySelector({json.dumps(selector)}));"


def tab_js(tab: str, action: str, components: list = (), prefix: str = "") -> str:
    """A browser event's `js` that calls `action` of the browser's tab `tab` (static/tabs.js) with the components'
    values by name (their `elem_id` without `prefix`)."""
    act = f"window.AttentionExplorer.act({json.dumps(tab)}, {json.dumps(action)}, {_named(list(components), prefix)})"
    return f"(...values) => window.AttentionExplorer.ready.then(() => {act})"


def build(initial: dict | None) -> gr.HTML:
    return browser_drawn("<div class='ae-root'></div>", JS_ON_LOAD, "viewer", initial)
