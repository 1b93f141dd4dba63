"""What every tab shares: the error guard, the session event wrapper, the per-session context, theme and CSS."""

from __future__ import annotations

import functools
import html
import inspect
import logging
import os
from dataclasses import dataclass

import gradio as gr

from ..app.callers import address_of, trusted_proxies
from ..app.figures import NORMAL_FONT, PRESENTATION_FONT
from ..app.limits import flag
from ..app.refusals import GENERIC_ERROR
from ..app.session import ExplorerSession
from ..interpret.handle import ModelHandle
from ..interpret.request import UserError

log = logging.getLogger("explorer.ui")

# Cheap events whose inputs are plain values: run concurrently (never queued behind each other) and
# unprocessed, so the core's own validation answers bad values with its message instead of Gradio's.
PLAIN_EVENT = {"concurrency_limit": None, "preprocess": False}


def _as_gr_error(exc: BaseException) -> gr.Error:
    if isinstance(exc, UserError):
        message = str(exc)
    else:
        log.exception("handler failed")
        message = GENERIC_ERROR
    # gr.Error renders its message as HTML: escape, so typed text can never become markup (quotes are harmless in
    # text and stay readable for API clients, which get the message verbatim)
    return gr.Error(html.escape(message, quote=False), print_exception=False)


def guarded(fn):
    """Turn UserError into a clear message in the UI and anything else into a logged, generic one."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def gen_wrapper(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as exc:  # noqa: BLE001 - the server must survive anything a user does
                raise _as_gr_error(exc) from None

        return gen_wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as exc:  # noqa: BLE001
            raise _as_gr_error(exc) from None

    return wrapper


def zero_gpu(fn, duration: int = 30):
    """On a Hugging Face ZeroGPU Space (SPACES_ZERO_GPU set) run `fn` under `spaces.GPU`, which ZeroGPU
    requires of at least one function; elsewhere `fn` is returned unchanged and `spaces` is never imported."""
    if not os.environ.get("SPACES_ZERO_GPU"):
        return fn
    import spaces

    return functools.wraps(fn)(spaces.GPU(duration=duration)(fn))


def session_event(fn):
    """A handler `fn(*values, session)` wired with inputs `[..., ctx.state]` and outputs `[..., ctx.state]`.

    Errors become messages (`guarded`); one session runs at most `fairness.MAX_IN_FLIGHT` events at once, and its
    events count against its address as the API's requests do (and wait in the model's line as that address); and
    handing the session back to its `gr.State` restarts Gradio's time-to-live, so a session expires only after that
    long without any event. A handler returns a tuple for several outputs, anything else for one.
    """
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def gen_wrapper(*args, **kwargs):
            args, address = _address_in(args)
            session = _session_in(args)
            with session.admit(address):
                for out in fn(*args, **kwargs):
                    yield (*_outputs(out), session)

        return guarded(_asking_for_request(gen_wrapper, fn))

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args, address = _address_in(args)
        session = _session_in(args)
        with session.admit(address):
            out = fn(*args, **kwargs)
        return (*_outputs(out), session)

    return guarded(_asking_for_request(wrapper, fn))


def _asking_for_request(wrapper, fn):
    """`wrapper` with `fn`'s parameters and one more, last, annotated `gr.Request`: Gradio passes the request there."""
    signature = inspect.signature(fn)
    positional = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    asked = inspect.Parameter(
        "ae_request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=gr.Request
    )
    wrapper.__signature__ = signature.replace(parameters=[*positional, asked])
    wrapper.__annotations__ = {**getattr(fn, "__annotations__", {}), "ae_request": gr.Request}
    return wrapper


def _address_in(args) -> tuple[tuple, str]:
    """The handler's arguments without the request Gradio passed, and the address that request is counted by."""
    request = next((arg for arg in args if isinstance(arg, gr.Request)), None)
    rest = tuple(arg for arg in args if arg is not request)
    inner = getattr(request, "request", None)  # the Starlette request inside Gradio's
    return rest, address_of(inner, trusted_proxies()) if inner is not None else ""


def _session_in(args) -> ExplorerSession:
    """The session among a handler's arguments (Gradio puts request or event data where the signature says)."""
    for arg in args:
        if isinstance(arg, ExplorerSession):
            return arg
    raise UserError("This page lost its server session: reload the page.")


def _outputs(out) -> tuple:
    return out if isinstance(out, tuple) else (out,)


def font_size(presentation) -> int:
    return PRESENTATION_FONT if flag(presentation, "Presentation mode") else NORMAL_FONT


@dataclass
class Context:
    """Components and objects the tabs wire together."""

    shipped: ModelHandle
    state: gr.State  # this browser session's ExplorerSession, kept and deleted by Gradio's session lifecycle
    use_own: gr.Checkbox  # the browser's choice of model (rendered in the Train tab): sent with every event
    presentation: gr.Checkbox  # presentation mode (larger fonts in server-drawn figures too)


THEME = gr.themes.Default(
    primary_hue="blue",
    font=[gr.themes.LocalFont("Source Sans Pro"), "system-ui", "sans-serif"],
    font_mono=[gr.themes.LocalFont("IBM Plex Mono"), "monospace"],
)

CSS = """
#header { align-items: center; flex-wrap: nowrap; }
#header p { margin: 0; }
#title { flex: 1 1 auto; min-width: 0; }
#presentation, #opt-model { flex: 0 0 auto !important; width: auto !important; min-width: 0 !important; }
#opt-model .wrap { flex-wrap: nowrap; gap: 4px; }
#opt-model label { padding: 4px 8px; white-space: nowrap; }
.ae-title { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
body.presentation .ae-tagline { display: none; }
@media (max-width: 1500px) { .ae-tagline { display: none; } }
#example .wrap { min-height: 0; }
body.presentation {
  --text-xs: 14px; --text-sm: 17px; --text-md: 21px; --text-lg: 24px; --text-xl: 30px; --text-xxl: 36px;
  --body-text-size: 21px; --prose-text-size: 21px; --input-text-size: 21px;
  --block-label-text-size: 17px; --block-info-text-size: 17px; --block-title-text-size: 21px;
  --button-large-text-size: 24px; --button-medium-text-size: 21px; --button-small-text-size: 17px;
  --checkbox-label-text-size: 21px; --section-header-text-size: 21px;
}
body.presentation .prose { font-size: var(--prose-text-size); }
"""


def browser_drawn(html_template: str, js_on_load: str, elem_id: str, value=None) -> gr.HTML:
    """A gr.HTML whose content the browser code (`static/`) draws: no Gradio styling, container or padding."""
    return gr.HTML(
        value=value,
        html_template=html_template,
        js_on_load=js_on_load,
        apply_default_css=False,
        container=False,
        elem_id=elem_id,
        padding=False,
    )
