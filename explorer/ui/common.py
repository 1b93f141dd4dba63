"""What every tab shares: the per-page context, theme and CSS, and the gr.HTML the browser code draws into."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from ..interpret.handle import ModelHandle

USE_OWN_LABEL = "Explore my trained model (instead of the shipped one)"


@dataclass
class Context:
    """Components and objects the tabs wire together."""

    shipped: ModelHandle
    use_own: gr.Checkbox  # the browser's choice of model (rendered in the Train tab): read with the Translate form
    presentation: gr.Checkbox  # presentation mode (larger fonts in the charts the server makes too)


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
        # Gradio adds the page's head (and the viewer's script in it) as its own app starts: wait for the script
        js_on_load=f"AttentionExplorer.ready.then(() => {{ {js_on_load} }});",
        apply_default_css=False,
        container=False,
        elem_id=elem_id,
        padding=False,
    )
